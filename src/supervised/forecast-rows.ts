import { tcnForecast, type SequenceRegressor } from '../models/index.js';
import { gatherChunks, type ChunkDataset, type RvSamples } from './rv-dataset.js';

/**
 * A network's forecasts for `rows` of `samples` (all of them by default), in the target's units
 * (the dataset's standardization undone), gathered and run in batches of at least `batchRows`.
 */
export function forecastRows(
  net: SequenceRegressor,
  dataset: ChunkDataset,
  samples: RvSamples,
  batchRows: number,
  rows: readonly number[] = Array.from({ length: samples.count }, (_, i) => i),
): number[] {
  const width = dataset.chunkLen * dataset.featureNames.length;
  const size = Math.max(batchRows, 32);
  const x = new Float32Array(size * width);
  const out: number[] = [];
  const { mean, sd } = dataset.targetScale;
  for (let from = 0; from < rows.length; from += size) {
    const part = rows.slice(from, from + size);
    gatherChunks(dataset, samples, part, x);
    for (const v of tcnForecast(net, x.subarray(0, part.length * width), part.length))
      out.push(v * sd + mean);
  }
  return out;
}

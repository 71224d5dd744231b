import { BAR_FEATURE_COUNT } from '../data/features/bar-features.js';
import type { SizedModel, TcnModel } from '../profiles/index.js';

/*
 * A forecasting set's model as the planner sizes it: what `train forecast` builds (supervised/
 * forecast-model.ts) from its flags, so that the plan charges that model and not a figure for
 * another one. The bar features are imported from their own file: the data layer's index loads the
 * store, which planning does not need.
 */

/** The model of a forecasting set: its kind and the flags that shape it. */
export interface ForecastModelShape {
  /** `tcn`: a TCN over the chunk; `mlp`: an MLP over the chunk's bars, flattened. */
  kind: 'tcn' | 'mlp';
  /** TCN channels, or the MLP's hidden width. */
  hidden: number;
  /** TCN blocks, or MLP hidden layers. */
  layers: number;
  /** Bars a chunk. */
  chunkLen: number;
}

/** `train forecast`'s model when no flag shapes it: a TCN of 4 blocks of 32 channels (an MLP: 2 layers) on chunks of 64 bars. */
export function forecastModelDefaults(
  kind: ForecastModelShape['kind'] = 'tcn',
): ForecastModelShape {
  return { kind, hidden: 32, layers: kind === 'tcn' ? 4 : 2, chunkLen: 64 };
}

/** The planner's model for a forecasting set's model (trained without gradient checkpointing). */
export function forecastPlanModel(shape: ForecastModelShape): TcnModel | SizedModel {
  const inputs = BAR_FEATURE_COUNT;
  if (shape.kind === 'tcn')
    return {
      kind: 'tcn',
      inputs,
      hidden: shape.hidden,
      layers: shape.layers,
      kernel: 3,
      chunkLen: shape.chunkLen,
      checkpoint: false,
    };
  // Dense layers inputs·chunkLen → hidden × layers → 1, each with its bias.
  const widths = [inputs * shape.chunkLen, ...Array<number>(shape.layers).fill(shape.hidden), 1];
  let paramCount = 0;
  for (let i = 1; i < widths.length; i++)
    paramCount += (widths[i - 1] ?? 0) * (widths[i] ?? 0) + (widths[i] ?? 0);
  const outputs = shape.hidden * shape.layers + 1;
  return {
    kind: 'params',
    paramCount,
    // Every layer output saved and its gradient beside it, plus the flattened chunk.
    activationsPerSample: 2 * outputs + inputs * shape.chunkLen,
    source: `window MLP, ${shape.layers}×${shape.hidden} hidden over ${shape.chunkLen} bars × ${inputs} features`,
  };
}

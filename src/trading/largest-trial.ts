import { PPO_DEFAULTS } from '../agents/index.js';
import { largestValue } from './search-space.js';
import type { DrlStudySpec } from './study-spec.js';

/** The shape of a trading study's largest trial: each size parameter at its largest value. */
export interface LargestTrial {
  netDim: number;
  layers: number;
  batchSize: number;
  nEnvs: number;
  targetStep: number;
  dataset: { bars: number; assets: number; features: number | undefined };
  lookback: number;
}

/**
 * The largest trial a trading study can sample, so a run plans its workers for it and no sampled
 * trial then fails for memory.
 */
export function largestTrial(spec: DrlStudySpec): LargestTrial {
  const p = spec.params;
  return {
    netDim: largestValue(p.netDim, PPO_DEFAULTS.netDim),
    layers: largestValue(p.layers, PPO_DEFAULTS.layers),
    batchSize: largestValue(p.batchSize, PPO_DEFAULTS.batchSize),
    nEnvs: largestValue(p.nEnvs, PPO_DEFAULTS.nEnvs),
    targetStep: largestValue(p.targetStep, PPO_DEFAULTS.targetStep),
    dataset: {
      bars: spec.data.bars,
      assets: spec.data.symbols.length,
      features: spec.data.featureCount,
    },
    lookback: spec.lookback,
  };
}

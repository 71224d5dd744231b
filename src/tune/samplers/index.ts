export { RandomSampler, sampleUniform, type RandomSamplerOptions } from './random-sampler.js';
export { GridSampler, MAX_GRID_POINTS, type GridSamplerOptions } from './grid-sampler.js';
export { TpeSampler, defaultGamma, defaultWeights, type TpeSamplerOptions } from './tpe-sampler.js';

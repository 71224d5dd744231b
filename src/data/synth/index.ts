export {
  DEFAULT_REGIMES,
  generateSynthetic,
  type RegimeSpec,
  type SynthOptions,
  type SyntheticAsset,
  type SyntheticMarket,
  type SyntheticMeta,
} from './generate-synthetic.js';
export { momentumState } from './momentum-state.js';
export { digestBars } from './synthetic-digest.js';

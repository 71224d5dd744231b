export {
  DEFAULT_FEATURE_NAMES,
  DEFAULT_FEATURE_WARMUP,
  computeFeatures,
  computeFeaturesForAssets,
  featureNames,
  featureWarmup,
  type FeatureOptions,
  type FeatureTable,
  type MultiAssetFeatureTable,
} from './compute-features.js';
export {
  Normalizer,
  fitNormalizer,
  type FitRange,
  type NormalizationMethod,
  type NormalizerJson,
  type NormalizerOptions,
  type NormalizerPooling,
  type TechArrayShape,
} from './normalizer.js';
export {
  directionalMovement,
  resolveAdxOptions,
  type AdxOptions,
  type DirectionalMovement,
} from './adx.js';
export {
  atrRatio,
  averageTrueRange,
  resolveAtrOptions,
  trueRange,
  trueRangeAt,
  type AtrOptions,
} from './atr.js';
export {
  bollinger,
  resolveBollingerOptions,
  type BollingerOptions,
  type BollingerSeries,
} from './bollinger.js';
export { cci, resolveCciOptions, type CciOptions } from './cci.js';
export {
  macd,
  relativeMacd,
  resolveMacdOptions,
  type MacdOptions,
  type MacdSeries,
} from './macd.js';
export { obvRatio, onBalanceVolume, resolveObvOptions, type ObvOptions } from './obv.js';
export {
  logReturns,
  logReturnsForHorizons,
  resolveLogReturnOptions,
  resolveVolatilityOptions,
  rollingVolatility,
  type LogReturnOptions,
  type VolatilityOptions,
} from './returns.js';
export {
  rollingMean,
  rollingMeanStd,
  rollingRatio,
  rollingSum,
  type RollingMoments,
  type RollingStdOptions,
} from './rolling.js';
export { resolveRsiOptions, rsi, type RsiOptions } from './rsi.js';
export { ema, seededSmoothing, wilderSmoothing } from './smoothing.js';
export {
  resolveUltimateOscillatorOptions,
  ultimateOscillator,
  type ResolvedUltimateOscillatorOptions,
  type UltimateOscillatorOptions,
} from './ultimate-oscillator.js';
export {
  resolveVolumeZScoreOptions,
  volumeZScore,
  type VolumeZScoreOptions,
} from './volume-zscore.js';
export { BAR_FEATURE_COUNT, barFeatures, RV_FEATURE_NAMES } from './bar-features.js';

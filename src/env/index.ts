export {
  ACTION_SCALINGS,
  EXECUTION_PRICES,
  resolveEnvOptions,
  type ActionScaling,
  type EnvRange,
  type ExecutionPrice,
  type ResolvedEnvOptions,
  type RewardMode,
  type TradingEnvOptions,
} from './env-config.js';
export {
  featureMarket,
  pricesMarket,
  scriptedMarket,
  syntheticMarket,
  type FeatureMarketOptions,
  type TestMarketOptions,
} from './synthetic-market.js';
export {
  VectorTradingEnv,
  type EnvInfo,
  type EnvResetOptions,
  type EnvResetResult,
  type EnvStepResult,
  type ObservationLayout,
  type TradingEnvTables,
} from './trading-env.js';

import type { FeatureOptions } from '../data/features/compute-features.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { featureMarket } from '../env/synthetic-market.js';
import type { TradingEnvOptions } from '../env/env-config.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import type { MarketData } from '../data/load-market-data.js';
import { momentumState } from '../data/synth/momentum-state.js';
import { evaluate } from '../eval/evaluate.js';
import type { PpoConfig } from './ppo-config.js';
import { PpoTrainer } from './ppo.js';

/*
 * Does PPO learn what is there, and only that? Trains on the first half of a synthetic market and
 * evaluates the deterministic policy on the second half beside buy-and-hold. With a planted
 * momentum signal (generateSynthetic's `signal`: bar t's expected return follows the sign of the
 * last 5 bars' move) the policy should beat buy-and-hold's Sharpe; on a pure random walk with fees
 * there is nothing to learn, and it should not claim an edge. The learning test and
 * `tradelab bench learn` both run this.
 */

/** The planted signal's look-back in bars (featureMarket's default, the generator's k). */
const SIGNAL_LOOKBACK = 5;

/** Options of {@link learningCheck}. */
export interface LearningCheckOptions {
  /** Planted signal strength (0: a random walk). */
  signal: number;
  /** Seeds the market and the agent. */
  seed: number;
  /** Env steps of training. Default 100,000. */
  steps?: number;
  /** Bars generated; half train, half test. Default 12,000 (1h bars: ~8 months of test). */
  bars?: number;
  /** PPO settings over the check's own. */
  ppo?: Partial<PpoConfig>;
  /** How actions become trades and fill (the env's options of those names), in training and test. */
  trading?: Pick<
    TradingEnvOptions,
    'actionScaling' | 'noTradeBand' | 'executionPrice' | 'turnoverPenalty'
  >;
}

/** What one check measured on the held-out half. */
export interface LearningCheckResult {
  signal: number;
  seed: number;
  steps: number;
  /** Annualized Sharpe of the policy and of equal-weight buy-and-hold on the test half. */
  sharpe: number;
  benchmarkSharpe: number;
  totalReturn: number;
  benchmarkReturn: number;
  /**
   * The planted signal traded perfectly on the test half at the same fees and fills: long an asset
   * while its last 5 bars rose, flat otherwise (the generator's own state, as positions). Its
   * after-fee Sharpe, and the share of it the policy reached (NaN when the oracle's is not above 0).
   */
  oracleSharpe: number;
  shareCaptured: number;
  /** On the test half: the book traded per year (× its value), and fees as a share of the cash. */
  annualizedTurnover: number;
  feeShare: number;
  /** The critic's explained variance, mean of the last 5 updates. */
  explainedVariance: number;
  /** Mean training episode return over the last 5 updates. */
  finalTrainReturn: number | null;
  trainSeconds: number;
}

/** The check's PPO settings: a small network and short rollouts, so it runs in seconds. */
export const LEARNING_CHECK_PPO: Partial<PpoConfig> = {
  netDim: 64,
  nEnvs: 16,
  targetStep: 2048,
  batchSize: 256,
  repeatTimes: 4,
  learningRate: 1e-3,
  lambdaEntropy: 0,
  initLogStd: -1,
};

/**
 * The check's features: log returns over 1 and 5 bars and volatility. The planted signal is
 * readable from logret_5, and there is little else to overfit.
 */
export const LEARNING_CHECK_FEATURES: FeatureOptions = {
  logReturns: { horizons: [1, 5] },
  volatility: { window: 20 },
  rsi: false,
  macd: false,
  cci: false,
  adx: false,
  ultimateOscillator: false,
  obv: false,
  bollinger: false,
  atr: false,
  volumeZScore: false,
};

/** Trains and evaluates once; see the file header. */
export async function learningCheck(options: LearningCheckOptions): Promise<LearningCheckResult> {
  const steps = options.steps ?? 100_000;
  const data = featureMarket({
    assets: 2,
    bars: options.bars ?? 12_000,
    signal: options.signal,
    seed: options.seed,
    features: LEARNING_CHECK_FEATURES,
  });
  const bars = data.timestamps.length;
  const split = Math.floor(bars / 2);
  const normalizer = fitNormalizer(
    data.techArray,
    { assets: data.symbols.length, features: data.featureNames.length },
    [[0, split]],
  );
  const fees = { buyFeeBps: 5, sellFeeBps: 5, ...options.trading };
  const env = new VectorTradingEnv(data, normalizer, {
    ...fees,
    nEnvs: options.ppo?.nEnvs ?? LEARNING_CHECK_PPO.nEnvs ?? 16,
    episodeLength: 256,
    ranges: [[0, split]],
    seed: options.seed,
  });
  const trainer = new PpoTrainer(env, {
    ...LEARNING_CHECK_PPO,
    ...options.ppo,
    breakStep: steps,
    seed: options.seed,
  });
  try {
    const started = performance.now();
    const reports = await trainer.train();
    const trainSeconds = (performance.now() - started) / 1000;
    const [result] = await evaluate(data, normalizer, trainer.policy(), [[split, bars]], fees);
    const oracle = await oracleSharpe(data, [split, bars], fees);
    const sharpe = result?.metrics.sharpe ?? Number.NaN;
    const last = reports.slice(-5);
    const recent = last.map((r) => r.meanEpisodeReturn).filter((r): r is number => r !== null);
    return {
      signal: options.signal,
      seed: options.seed,
      steps,
      sharpe,
      oracleSharpe: oracle,
      shareCaptured: oracle > 0 ? sharpe / oracle : Number.NaN,
      benchmarkSharpe: result?.benchmarkMetrics.sharpe ?? Number.NaN,
      totalReturn: result?.metrics.totalReturn ?? Number.NaN,
      benchmarkReturn: result?.benchmarkMetrics.totalReturn ?? Number.NaN,
      annualizedTurnover: result?.metrics.annualizedTurnover ?? Number.NaN,
      feeShare: result === undefined ? Number.NaN : result.fees / (result.equity[0] ?? 1),
      explainedVariance:
        last.reduce((sum, r) => sum + r.explainedVariance, 0) / Math.max(1, last.length),
      finalTrainReturn:
        recent.length === 0 ? null : recent.reduce((s, r) => s + r, 0) / recent.length,
      trainSeconds,
    };
  } finally {
    trainer.dispose();
  }
}

/**
 * The after-fee Sharpe of trading the planted signal perfectly on `range`: each asset held in
 * full (target scaling, no band) while its close is above the close 5 bars before, flat otherwise,
 * with `trading`'s fees and fills.
 */
export async function oracleSharpe(
  data: MarketData,
  range: [number, number],
  trading: Omit<TradingEnvOptions, 'actionScaling' | 'noTradeBand'>,
): Promise<number> {
  const assets = data.symbols.length;
  const [start, end] = range;
  const states = Array.from({ length: assets }, (_, a) =>
    momentumState(
      Float64Array.from(
        { length: data.timestamps.length },
        (_, t) => data.priceArray[t * assets + a] as number,
      ),
      SIGNAL_LOOKBACK,
    ),
  );
  const steps = end - start - 1;
  const actions = new Float32Array(steps * assets);
  for (let s = 0; s < steps; s++)
    for (let a = 0; a < assets; a++)
      actions[s * assets + a] = (states[a]?.[start + s] ?? 0) > 0 ? 1 : -1;
  const [result] = await evaluate(data, undefined, [actions], [range], {
    ...trading,
    actionScaling: 'target',
    noTradeBand: 0,
  });
  return result?.metrics.sharpe ?? Number.NaN;
}

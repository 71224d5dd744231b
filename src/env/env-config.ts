import { TradelabError } from '../core/index.js';

/** Bars `[start, end)` of the market data an episode may trade on. */
export type EnvRange = readonly [start: number, end: number];

/** How an action in [-1, 1] becomes an order size. */
/** How an action becomes a trade (see TradingEnvOptions.actionScaling). */
export const ACTION_SCALINGS = ['fraction', 'units', 'target'] as const;
export type ActionScaling = (typeof ACTION_SCALINGS)[number];
/** Which price of bar t+1 an action chosen at bar t fills at. */
/** Where an action fills (see TradingEnvOptions.executionPrice). */
export const EXECUTION_PRICES = ['close', 'open'] as const;
export type ExecutionPrice = (typeof EXECUTION_PRICES)[number];
/** What the reward measures before scaling and penalties. */
export type RewardMode = 'value-change' | 'excess';

/** Options of {@link VectorTradingEnv}; every field is optional. */
export interface TradingEnvOptions {
  /** Environments stepped together. Default 1. */
  nEnvs?: number;
  /** Bars of features in each observation: t, t−1, …, t−lookback+1. Default 1. */
  lookback?: number;
  /**
   * Disjoint bar ranges `[start, end)` episodes trade on (e.g. a CV split's training folds); an
   * episode never crosses from one into another. Each needs `end − start ≥ 2` and
   * `start ≥ lookback − 1` (observations read the lookback − 1 bars before start). Default: one
   * range over the whole data, from bar lookback − 1.
   */
  ranges?: readonly EnvRange[];
  /** Cash at the start of every episode. Default 1,000,000. */
  initialCash?: number;
  /** Factor on cash in the observation. Default 1 / initialCash. */
  cashScale?: number;
  /** Factor on each asset's holding value (units × close) in the observation. Default 1 / initialCash. */
  holdingsScale?: number;
  /**
   * 'fraction': action a_i orders |a_i| × maxTradeFraction × portfolio value (at bar t) of asset i.
   * 'units': |a_i| × maxTradeFraction × initialCash / (assets × p_i) units, where p_i is asset i's
   * close at the first range's first bar, so one unit of action means the same money for cheap and dear
   * assets (FinRL_Crypto's price-level normalisation).
   * 'target': a_i is a position, not an order: asset i's target is (a_i + 1) / 2 × maxTradeFraction
   * / assets of the portfolio's value (a_i = 1 for every asset and maxTradeFraction 1 is the
   * equal-weight portfolio), and the env trades only the gap to it where that gap is more than
   * `noTradeBand` of the portfolio's value. A policy's noise then moves targets, not the book.
   * Default 'fraction'.
   */
  actionScaling?: ActionScaling;
  /**
   * With 'target' scaling: gaps between an asset's holding and its target of at most this share
   * of the portfolio's value are not traded (a band is cost-aware rebalancing's simplest form).
   * With 'fraction' scaling: orders of at most this share of the portfolio's value are not placed
   * (a minimum trade size, as FinRL's envs skip small actions), so an output near 0 is no trade.
   * Not with 'units'. In [0, 1). Default 0.
   */
  noTradeBand?: number;
  /** See `actionScaling`; in (0, 1] for 'fraction' and 'target', > 0 for 'units'. Default 1. */
  maxTradeFraction?: number;
  /** Orders worth less than this (at the fill price) are skipped. Default 0. */
  minOrderValue?: number;
  /** Fee on the notional of a buy, basis points. Default 10. */
  buyFeeBps?: number;
  /** Fee on the notional of a sell, basis points. Default 10. */
  sellFeeBps?: number;
  /** Buys fill at price × (1 + s), sells at price × (1 − s), in basis points. Default 0. */
  slippageBps?: number;
  /**
   * Where the action chosen at bar t fills: 'open', bar t+1's open (the first price after the bar
   * the agent saw); 'close', bar t+1's close (a bar of latency). Default 'open' where the data has
   * opens (every stored dataset does), else 'close'. At 'close' a signal is a bar stale when it is
   * traded: the planted momentum of `data synth --signal 0.05` traded perfectly earns Sharpe 2.8
   * after 5 bps fees at the open and 1.2 at the close.
   */
  executionPrice?: ExecutionPrice;
  /**
   * 'value-change': V_{t+1} − V_t; 'excess': that minus the change of an equal-weight buy-and-hold
   * benchmark over the same step. Default 'value-change'.
   */
  reward?: RewardMode;
  /** Factor on the reward (after penalties). Default 1 / initialCash (a return on initial cash). */
  rewardScale?: number;
  /** Subtracted: this × the increase of the drawdown (peak value − value, in cash) over the step. Default 0. */
  drawdownPenalty?: number;
  /** Subtracted: this × the notional traded in the step. Default 0. */
  turnoverPenalty?: number;
  /** Steps per episode at most; it is truncated sooner at its range's end. Default: to the range's end. */
  episodeLength?: number;
  /**
   * true: episodes start at a seeded random bar of a range chosen with probability proportional to
   * its possible starts (training). false: at the first bar of a range, each env cycling through
   * the ranges in order from range (env index mod ranges) (evaluation). Default true.
   */
  randomStart?: boolean;
  /** The episode terminates when the portfolio value falls below this × initialCash. Default 0.1. */
  terminationThreshold?: number;
  /** Append each asset's share of portfolio value to the observation. Default false. */
  includePositionWeights?: boolean;
  /** Append the episode's elapsed share (steps / planned steps) to the observation. Default false. */
  includeTimeFeature?: boolean;
  /** Seed used by `reset()` when none is given; env i gets seed + i. Default 0. */
  seed?: number;
  /** Short selling; not implemented yet, so only false is accepted. Default false. */
  allowShort?: boolean;
}

/** {@link TradingEnvOptions} with every default filled in. */
export interface ResolvedEnvOptions {
  nEnvs: number;
  lookback: number;
  ranges: EnvRange[];
  initialCash: number;
  cashScale: number;
  holdingsScale: number;
  actionScaling: ActionScaling;
  noTradeBand: number;
  maxTradeFraction: number;
  minOrderValue: number;
  buyFeeBps: number;
  sellFeeBps: number;
  slippageBps: number;
  executionPrice: ExecutionPrice;
  reward: RewardMode;
  rewardScale: number;
  drawdownPenalty: number;
  turnoverPenalty: number;
  /** 0: to the range's end. */
  episodeLength: number;
  randomStart: boolean;
  terminationThreshold: number;
  includePositionWeights: boolean;
  includeTimeFeature: boolean;
  seed: number;
  allowShort: boolean;
}

function invalid(message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `env: ${message}`, { hint });
}

/** What is wrong with one setting's value, and an example of a good one. */
export interface EnvValueProblem {
  message: string;
  hint: string;
}

/** A value as a message shows it: strings quoted, so `"1"` is not read as a number. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

type FieldCheck = (value: unknown, name: string) => EnvValueProblem | undefined;

const positiveInt: FieldCheck = (value, name) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
    ? undefined
    : { message: `must be a positive integer, got ${shown(value)}`, hint: `e.g. ${name}: 1` };

const nonNegative: FieldCheck = (value, name) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? undefined
    : { message: `must be a finite number ≥ 0, got ${shown(value)}`, hint: `e.g. ${name}: 0` };

const positive: FieldCheck = (value, name) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0
    ? undefined
    : { message: `must be a finite number > 0, got ${shown(value)}`, hint: `e.g. ${name}: 1` };

const boolean: FieldCheck = (value, name) =>
  typeof value === 'boolean'
    ? undefined
    : { message: `must be true or false, got ${shown(value)}`, hint: `e.g. ${name}: false` };

function oneOf(choices: readonly string[]): FieldCheck {
  return (value) =>
    typeof value === 'string' && choices.includes(value)
      ? undefined
      : { message: `unknown ${shown(value)}`, hint: `use ${choices.join(' or ')}` };
}

/**
 * The values each setting may take on its own: the one place the env's domains are written.
 * {@link resolveEnvOptions} checks options with it, and a study checks its fixed values, choices
 * and range bounds with {@link envValueProblem} before any trial runs. Rules between settings
 * (maxTradeFraction ≤ 1 with fraction scaling, ranges within the data) are resolveEnvOptions's.
 */
const FIELD_CHECKS: { [K in Exclude<keyof TradingEnvOptions, 'ranges'>]-?: FieldCheck } = {
  nEnvs: positiveInt,
  lookback: positiveInt,
  initialCash: positive,
  cashScale: nonNegative,
  holdingsScale: nonNegative,
  actionScaling: oneOf(ACTION_SCALINGS),
  noTradeBand: (value, name) =>
    typeof value === 'number' && value >= 0 && value < 1
      ? undefined
      : { message: `must be in [0, 1), got ${shown(value)}`, hint: `e.g. ${name}: 0.02` },
  maxTradeFraction: positive,
  minOrderValue: nonNegative,
  buyFeeBps: nonNegative,
  sellFeeBps: nonNegative,
  slippageBps: nonNegative,
  executionPrice: oneOf(EXECUTION_PRICES),
  reward: oneOf(['value-change', 'excess']),
  rewardScale: (value, name) =>
    typeof value === 'number' && Number.isFinite(value)
      ? undefined
      : { message: `must be finite, got ${shown(value)}`, hint: `e.g. ${name}: 1e-6` },
  drawdownPenalty: nonNegative,
  turnoverPenalty: nonNegative,
  episodeLength: positiveInt,
  randomStart: boolean,
  terminationThreshold: (value, name) =>
    nonNegative(value, name) ??
    ((value as number) < 1
      ? undefined
      : {
          message: `${shown(value)} would end every episode at once`,
          hint: 'use a fraction of the initial value below 1, e.g. 0.1',
        }),
  includePositionWeights: boolean,
  includeTimeFeature: boolean,
  seed: (value) =>
    typeof value === 'number' && Number.isSafeInteger(value)
      ? undefined
      : { message: `must be an integer, got ${shown(value)}`, hint: 'e.g. 42' },
  allowShort: (value) =>
    value === false
      ? undefined
      : { message: 'is not implemented yet', hint: 'leave allowShort false (the default)' },
};

/**
 * What is wrong with `value` for env setting `name` on its own, or undefined when it is allowed
 * (or `name` is not a setting checked one value at a time).
 */
export function envValueProblem(name: string, value: unknown): EnvValueProblem | undefined {
  const check = (FIELD_CHECKS as Record<string, FieldCheck | undefined>)[name];
  return check?.(value, name);
}

/** `options[name]`, or `fallback` when it is not given; checked against the setting's domain. */
function checked<K extends Exclude<keyof TradingEnvOptions, 'ranges'>>(
  options: TradingEnvOptions,
  name: K,
  fallback: NonNullable<TradingEnvOptions[K]>,
): NonNullable<TradingEnvOptions[K]> {
  const value = options[name] ?? fallback;
  const problem = envValueProblem(name, value);
  if (problem !== undefined) throw invalid(`${name} ${problem.message}`, problem.hint);
  return value;
}

/** Checks the options against a market of `bars` bars and fills in the defaults. */
export function resolveEnvOptions(
  options: TradingEnvOptions,
  bars: number,
  hasOpen: boolean,
): ResolvedEnvOptions {
  const nEnvs = checked(options, 'nEnvs', 1);
  const lookback = checked(options, 'lookback', 1);
  const initialCash = checked(options, 'initialCash', 1e6);
  const ranges = checkRanges(options.ranges ?? [[lookback - 1, bars]], bars, lookback);
  const actionScaling = checked(options, 'actionScaling', 'fraction');
  const maxTradeFraction = checked(options, 'maxTradeFraction', 1);
  if (actionScaling !== 'units' && maxTradeFraction > 1)
    throw invalid(
      `maxTradeFraction ${maxTradeFraction} is above 1 with ${actionScaling} scaling`,
      'use a share of portfolio value in (0, 1]',
    );
  const noTradeBand = checked(options, 'noTradeBand', 0);
  if (actionScaling === 'units' && noTradeBand > 0)
    throw invalid(
      `noTradeBand ${noTradeBand} is a share of the portfolio, and units scaling orders units`,
      "use actionScaling 'fraction' or 'target' with a band, or leave noTradeBand out",
    );
  const executionPrice = checked(options, 'executionPrice', hasOpen ? 'open' : 'close');
  if (executionPrice === 'open' && !hasOpen)
    throw invalid(
      'executionPrice "open" needs open prices, and the market data has none',
      'load the data with ohlcv (the default), or use executionPrice "close"',
    );
  // 0: to the range's end (the default, which a user cannot write).
  const episodeLength =
    options.episodeLength === undefined ? 0 : checked(options, 'episodeLength', 0);
  return {
    nEnvs,
    lookback,
    ranges,
    initialCash,
    cashScale: checked(options, 'cashScale', 1 / initialCash),
    holdingsScale: checked(options, 'holdingsScale', 1 / initialCash),
    actionScaling,
    noTradeBand,
    maxTradeFraction,
    minOrderValue: checked(options, 'minOrderValue', 0),
    buyFeeBps: checked(options, 'buyFeeBps', 10),
    sellFeeBps: checked(options, 'sellFeeBps', 10),
    slippageBps: checked(options, 'slippageBps', 0),
    executionPrice,
    reward: checked(options, 'reward', 'value-change'),
    rewardScale: checked(options, 'rewardScale', 1 / initialCash),
    drawdownPenalty: checked(options, 'drawdownPenalty', 0),
    turnoverPenalty: checked(options, 'turnoverPenalty', 0),
    episodeLength,
    randomStart: checked(options, 'randomStart', true),
    terminationThreshold: checked(options, 'terminationThreshold', 0.1),
    includePositionWeights: checked(options, 'includePositionWeights', false),
    includeTimeFeature: checked(options, 'includeTimeFeature', false),
    seed: checked(options, 'seed', 0),
    allowShort: checked(options, 'allowShort', false),
  };
}

function checkRanges(ranges: readonly EnvRange[], bars: number, lookback: number): EnvRange[] {
  if (ranges.length === 0)
    throw invalid('no ranges given', 'pass at least one [start, end) bar range, e.g. [[0, 1000]]');
  for (const [start, end] of ranges) {
    const text = `[${start}, ${end})`;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end))
      throw invalid(`range ${text} must have integer bounds`, 'ranges are bar indexes');
    if (end - start < 2)
      throw invalid(
        `range ${text} has fewer than 2 bars; an episode needs a bar to act on and one to fill at`,
        'widen the range or drop it',
      );
    if (start < lookback - 1 || end > bars)
      throw invalid(
        `range ${text} is out of bounds: with lookback ${lookback} it must lie in [${lookback - 1}, ${bars})`,
        'ranges are bar indexes of the market data; leave lookback − 1 bars of history before each',
      );
  }
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    if (previous !== undefined && current !== undefined && current[0] < previous[1])
      throw invalid(
        `ranges [${previous[0]}, ${previous[1]}) and [${current[0]}, ${current[1]}) overlap`,
        'pass disjoint ranges (merge them if they are one period)',
      );
  }
  return ranges.map(([start, end]) => [start, end] as const);
}

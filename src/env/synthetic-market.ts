import { computeFeaturesForAssets, type FeatureOptions } from '../data/features/index.js';
import type { MarketData } from '../data/load-market-data.js';
import type { Timeframe } from '../data/timeframe.js';
import { TradelabError } from '../core/index.js';
import { generateSynthetic, type SyntheticMarket } from '../data/synth/generate-synthetic.js';
import type { Bars } from '../data/bars.js';
import { Rng } from '../core/random.js';

type BarField = 'open' | 'high' | 'low' | 'close' | 'volume';

/** One field of every asset's bars from..from+rows, as MarketData's T × assets row-major array. */
function interleaveBars(
  bars: readonly Bars[],
  field: BarField,
  from: number,
  rows: number,
): Float64Array {
  const assets = bars.length;
  const out = new Float64Array(rows * assets);
  bars.forEach((b, a) => {
    for (let t = 0; t < rows; t++) out[t * assets + a] = b[field][from + t] ?? Number.NaN;
  });
  return out;
}

/**
 * A generated market as {@link MarketData} with its prices only (one zero feature): what a
 * strategy that reads no indicator, such as the planted signal's oracle, needs.
 */
export function pricesMarket(market: SyntheticMarket): MarketData {
  const rows = market.bars[0]?.timestamps.length ?? 0;
  const assets = market.bars.length;
  const interleave = (field: BarField): Float64Array => interleaveBars(market.bars, field, 0, rows);
  return {
    symbols: market.symbols,
    timeframe: market.timeframe,
    calendar: market.calendar,
    timestamps: market.bars[0]?.timestamps ?? new Float64Array(0),
    priceArray: interleave('close'),
    open: interleave('open'),
    high: interleave('high'),
    low: interleave('low'),
    volume: interleave('volume'),
    techArray: new Float32Array(rows * assets),
    featureNames: ['zero'],
    warmupDropped: 0,
    alignment: { bars: market.symbols.map(() => rows), dropped: market.symbols.map(() => 0) },
  };
}

/** Shape of {@link syntheticMarket}. */
export interface TestMarketOptions {
  /** Default 3. */
  assets?: number;
  /** Default 300. */
  bars?: number;
  /** Random features per asset (uniform in [−1, 1), not computed from prices). Default 4. */
  features?: number;
  /** Default 1. */
  seed?: number;
}

/**
 * A {@link MarketData} for env tests and benchmarks: synthetic 1h OHLCV bars (generateSynthetic)
 * and a seeded random techArray.
 */
export function syntheticMarket(options: TestMarketOptions = {}): MarketData {
  const assets = options.assets ?? 3;
  const bars = options.bars ?? 300;
  const width = options.features ?? 4;
  const seed = options.seed ?? 1;
  const market = generateSynthetic({ symbols: assets, bars, timeframe: '1h', seed });
  const interleave = (field: BarField): Float64Array => interleaveBars(market.bars, field, 0, bars);
  const rng = new Rng(seed, 99);
  const techArray = new Float32Array(bars * assets * width);
  for (let j = 0; j < techArray.length; j++) techArray[j] = rng.uniform() * 2 - 1;
  return {
    symbols: market.symbols,
    timeframe: '1h',
    calendar: market.calendar,
    timestamps: market.bars[0]?.timestamps ?? new Float64Array(bars),
    priceArray: interleave('close'),
    open: interleave('open'),
    high: interleave('high'),
    low: interleave('low'),
    volume: interleave('volume'),
    techArray,
    featureNames: Array.from({ length: width }, (_, f) => `f${f}`),
    warmupDropped: 0,
    alignment: { bars: market.symbols.map(() => bars), dropped: market.symbols.map(() => 0) },
  };
}

/** A {@link MarketData} with the given closes (bars × assets, row-major) and no features. */
export function scriptedMarket(closes: readonly (readonly number[])[]): MarketData {
  const bars = closes.length;
  const assets = closes[0]?.length ?? 0;
  return {
    symbols: Array.from({ length: assets }, (_, a) => `A${a}`),
    timeframe: '1h',
    calendar: '24/7',
    timestamps: Float64Array.from({ length: bars }, (_, t) => t * 3_600_000),
    priceArray: Float64Array.from(closes.flat()),
    techArray: new Float32Array(bars * assets),
    featureNames: ['zero'],
    warmupDropped: 0,
    alignment: { bars: [bars], dropped: [0] },
  };
}

/** Shape of {@link featureMarket}. */
export interface FeatureMarketOptions {
  /** Default 2. */
  assets?: number;
  /** Bars generated (the features' warm-up is dropped from the front). Default 4000. */
  bars?: number;
  /** The planted momentum signal's strength (generateSynthetic's `signal`). Default 0. */
  signal?: number;
  /** Its look-back in bars. Default 5. */
  signalLookback?: number;
  /** Default '1h'. */
  timeframe?: Timeframe;
  /** Indicators, as the data loader takes them. Default: every default indicator. */
  features?: FeatureOptions;
  /** Default 1. */
  seed?: number;
}

/**
 * A {@link MarketData} as `loadMarketData` would return it for synthetic datasets, without a
 * store: generateSynthetic's bars, the real indicators computed per asset, the warm-up dropped.
 * Learning tests and benchmarks train on it.
 */
export function featureMarket(options: FeatureMarketOptions = {}): MarketData {
  const timeframe = options.timeframe ?? '1h';
  const market = generateSynthetic({
    symbols: options.assets ?? 2,
    bars: options.bars ?? 4000,
    timeframe,
    seed: options.seed ?? 1,
    signal: options.signal ?? 0,
    signalLookback: options.signalLookback ?? 5,
  });
  const table = computeFeaturesForAssets(market.bars, options.features ?? {});
  const assets = market.bars.length;
  const from = table.warmup;
  const rows = (market.bars[0]?.timestamps.length ?? 0) - from;
  if (rows < 2)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `featureMarket: ${options.bars ?? 4000} bars leave ${Math.max(0, rows)} after the features' warm-up of ${from}`,
      { hint: 'generate more bars' },
    );
  const interleave = (field: BarField): Float64Array =>
    interleaveBars(market.bars, field, from, rows);
  const width = table.names.length;
  return {
    symbols: market.symbols,
    timeframe,
    calendar: market.calendar,
    timestamps: (market.bars[0]?.timestamps ?? new Float64Array(0)).slice(from),
    priceArray: interleave('close'),
    open: interleave('open'),
    high: interleave('high'),
    low: interleave('low'),
    volume: interleave('volume'),
    techArray: table.values.slice(from * assets * width),
    featureNames: table.names,
    warmupDropped: from,
    alignment: { bars: market.symbols.map(() => rows), dropped: market.symbols.map(() => 0) },
  };
}

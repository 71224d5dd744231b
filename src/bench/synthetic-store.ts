import {
  calendarFor,
  findGaps,
  generateSynthetic,
  parseSymbol,
  timeframeMs,
  type DatasetStore,
  type Timeframe,
} from '../data/index.js';

/** What {@link writeSyntheticMarket} writes. */
export interface SyntheticMarketOptions {
  symbols: readonly string[];
  bars: number;
  timeframe: Timeframe;
  seed: number;
  /** Planted momentum signal; default 0 (a random walk). */
  signal?: number;
  /** Where the datasets say they came from (`data show` prints it). */
  derivedFrom: string;
}

/**
 * Writes a synthetic 24/7 market into `store` as `data synth` would, one dataset per symbol: the
 * data a benchmark trains on, made in its own temporary project.
 */
export async function writeSyntheticMarket(
  store: DatasetStore,
  options: SyntheticMarketOptions,
): Promise<void> {
  const { timeframe } = options;
  const market = generateSynthetic({
    symbols: [...options.symbols],
    bars: options.bars,
    timeframe,
    seed: options.seed,
    signal: options.signal ?? 0,
  });
  for (const [i, symbol] of market.symbols.entries()) {
    const series = market.bars[i];
    if (series === undefined) continue;
    await store.write({ symbol: parseSymbol(symbol), timeframe }, series, {
      calendar: '24/7',
      gaps: findGaps(series, timeframeMs(timeframe), calendarFor('24/7')),
      adjusted: false,
      sources: [],
      derivedFrom: options.derivedFrom,
    });
  }
}

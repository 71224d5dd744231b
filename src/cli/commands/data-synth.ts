import {
  calendarFor,
  checkReplace,
  digestBars,
  findGaps,
  formatDatasetKey,
  generateSynthetic,
  parseCalendar,
  parseSymbol,
  parseTimeframe,
  timeframeMs,
} from '../../data/index.js';
import { oracleSharpe } from '../../agents/index.js';
import { TradelabError } from '../../core/index.js';
import { pricesMarket, resolveEnvOptions } from '../../env/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, isoTime, plural } from '../format.js';
import { intOption } from '../option-values.js';
import { openStore } from '../open-store.js';

/** `tradelab data synth`: synthetic correlated assets written into the store like an import. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const symbolsOption = typeof options.symbols === 'string' ? options.symbols : '3';
  const symbols = /^\d+$/.test(symbolsOption)
    ? Number(symbolsOption)
    : symbolsOption.split(',').map(parseSymbol);
  if (typeof symbols === 'number' && (symbols < 1 || symbols > 1000)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--symbols ${symbols} is not allowed: expected 1 to 1000, or a comma-separated list of names`,
      { hint: 'e.g. --symbols 5 or --symbols BTC,ETH' },
    );
  }
  const bars = intOption(options, 'bars') ?? 10_000;
  const timeframe = parseTimeframe(
    typeof options.timeframe === 'string' ? options.timeframe : '1h',
  );
  const seed = intOption(options, 'seed', 0) ?? 1;
  const signal = numberOption(options.signal, 'signal') ?? 0;
  const calendar = typeof options.calendar === 'string' ? parseCalendar(options.calendar) : '24/7';
  const start = typeof options.start === 'string' ? parseStart(options.start) : undefined;
  const started = performance.now();
  const market = generateSynthetic({
    symbols,
    bars,
    timeframe,
    seed,
    signal,
    calendar,
    ...(start === undefined ? {} : { start }),
  });
  const store = openStore(context);
  const describe = `synth --seed ${seed} --signal ${signal} --bars ${bars} --calendar ${calendar}`;
  const barMs = timeframeMs(timeframe);
  const force = options.force === true;
  const keys = market.symbols.map((symbol) => ({ symbol: parseSymbol(symbol), timeframe }));
  // Every symbol is checked before the first is written: a refusal leaves none of them half done.
  for (const key of keys)
    checkReplace(key, store.get(key), { sources: [], derivedFrom: describe }, force);
  for (const [i, key] of keys.entries()) {
    const series = market.bars[i];
    if (series === undefined) continue;
    await store.write(
      key,
      series,
      {
        calendar,
        gaps: findGaps(series, barMs, calendarFor(calendar)),
        adjusted: false,
        sources: [],
        derivedFrom: describe,
      },
      { force },
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const tradeable = signal === 0 ? undefined : await plantedSignalAfterFees(market);
  const digest = digestBars(market.symbols, market.bars);
  const first = market.bars[0]?.timestamps;
  const names = keys.map(formatDatasetKey);
  if (out.json) {
    out.record({
      type: 'synth',
      datasets: names,
      bars,
      seed,
      signal,
      calendar,
      sha256: digest,
      seconds,
      planted: market.meta.signal,
      ...(tradeable === undefined ? {} : { afterFees: tradeable }),
    });
    return;
  }
  out.line(
    `Wrote ${plural(names.length, 'synthetic dataset')} (${names.join(', ')}), ${count(bars)} bars each, in ${seconds.toFixed(2)} s.`,
  );
  out.line(
    `Range: ${isoTime(first?.[0] ?? Number.NaN)} → ${isoTime(first?.[(first.length || 1) - 1] ?? Number.NaN)}, calendar ${calendar}, seed ${seed}; sha256 ${digest}`,
  );
  out.line(`Planted signal: ${market.meta.signal.description}`);
  if (tradeable !== undefined) {
    out.line(
      `  ideal strategy: Sharpe ${market.meta.signal.perBarSharpe.toFixed(3)} per bar, ${market.meta.signal.annualizedSharpe.toFixed(1)} annualized, before fees, sized by each bar's volatility`,
    );
    out.line(
      `  traded perfectly in the env (long while the last 5 bars rose, flat otherwise) at its default fees of ${tradeable.feeBps} bps a side: Sharpe ${tradeable.open.toFixed(2)} filling at the next bar's open (the default), ${tradeable.close.toFixed(2)} at its close`,
    );
  }
}

/**
 * What the planted signal earns in the env at its default fees: the oracle (learning-check's)
 * over every bar, at open and at close fills. The ideal Sharpe above ignores fees and fills; an
 * agent can do no better than this, so a user sees whether the data holds anything to learn.
 */
async function plantedSignalAfterFees(
  market: Parameters<typeof pricesMarket>[0],
): Promise<{ feeBps: number; open: number; close: number }> {
  const data = pricesMarket(market);
  const bars = data.timestamps.length;
  const feeBps = resolveEnvOptions({}, bars, true).buyFeeBps;
  const range: [number, number] = [0, bars];
  return {
    feeBps,
    open: await oracleSharpe(data, range, { executionPrice: 'open' }),
    close: await oracleSharpe(data, range, { executionPrice: 'close' }),
  };
}

function numberOption(raw: string | boolean | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not a number`,
      { hint: `e.g. --${name} 0.05` },
    );
  }
  return value;
}

function parseStart(text: string): number {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(ms)) {
    throw new TradelabError('INVALID_ARGUMENT', `--start "${text}" is not a date`, {
      hint: 'e.g. --start 2021-01-01',
    });
  }
  return ms;
}

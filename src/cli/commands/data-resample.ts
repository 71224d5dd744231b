import {
  calendarFor,
  checkReplace,
  findGaps,
  formatDatasetKey,
  parseDatasetKey,
  parseTimeframe,
  resampleBars,
  timeframeMs,
  type DailyBoundary,
} from '../../data/index.js';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { count } from '../format.js';
import { choiceOption } from '../option-values.js';
import { openStore } from '../open-store.js';

/** `tradelab data resample SYM:TF --to 5m,15m,…`: writes one dataset per target timeframe. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const key = parseDatasetKey(context.positionals[0] ?? '');
  const to = context.options.to;
  if (typeof to !== 'string' || to === '') {
    throw new TradelabError('USAGE', '--to is required', { hint: 'e.g. --to 5m,15m,30m,1h,4h,1d' });
  }
  const targets = to.split(',').map((t) => parseTimeframe(t, '--to timeframe'));
  const daily: DailyBoundary | undefined = choiceOption(context.options, 'daily', [
    'utc',
    'session',
  ] as const);
  const store = openStore(context);
  const force = context.options.force === true;
  const from = formatDatasetKey(key);
  const { entry, bars } = await store.read(key, { raw: true });
  const calendar = calendarFor(entry.calendar);
  const done = targets.map((target) => {
    const started = performance.now();
    const result = resampleBars(bars, {
      from: key.timeframe,
      to: target,
      calendar,
      ...(daily === undefined ? {} : { daily }),
    });
    const seconds = (performance.now() - started) / 1000;
    return { key: { symbol: key.symbol, timeframe: target }, result, seconds };
  });
  // Every target is checked before the first is written: a refusal leaves none of them half done.
  for (const { key: target } of done)
    checkReplace(target, store.get(target), { sources: [], derivedFrom: from }, force);
  for (const { key: targetKey, result, seconds } of done) {
    const written = await store.write(
      targetKey,
      result.bars,
      {
        calendar: entry.calendar,
        gaps: findGaps(result.bars, timeframeMs(targetKey.timeframe), calendar),
        adjusted: entry.adjusted,
        sources: [],
        derivedFrom: from,
      },
      { force },
    );
    out.record({
      type: 'resampled',
      from,
      dataset: formatDatasetKey(targetKey),
      rows: written.rows,
      droppedIncomplete: result.droppedIncomplete,
      seconds,
    });
    out.line(
      `${formatDatasetKey(targetKey)}: ${count(written.rows)} bars from ${count(entry.rows)} in ${(seconds * 1000).toFixed(0)} ms (${count(entry.rows / Math.max(seconds, 1e-9))} rows/s)${result.droppedIncomplete ? '; incomplete last bar dropped' : ''}`,
    );
  }
}

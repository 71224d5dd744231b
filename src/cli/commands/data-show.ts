import { barCount, formatDatasetKey, parseDatasetKey, type Bars } from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, isoTime, num, shortTime } from '../format.js';
import { intOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';

/** `tradelab data show SYM:TF`: the catalog summary and the first and last bars. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const key = parseDatasetKey(context.positionals[0] ?? '');
  const rows = intOption(context.options, 'rows', 0) ?? 5;
  const { entry, bars } = await openStore(context).read(key);
  const n = barCount(bars);
  const head = Array.from({ length: Math.min(rows, n) }, (_, i) => i);
  const tail = Array.from(
    { length: Math.min(rows, Math.max(0, n - rows)) },
    (_, i) => n - Math.min(rows, Math.max(0, n - rows)) + i,
  );
  if (out.json) {
    out.record({ type: 'dataset', dataset: formatDatasetKey(key), ...entry });
    for (const i of [...head, ...tail]) out.record({ type: 'bar', ...bar(bars, i) });
    return;
  }
  out.line(
    `${formatDatasetKey(key)}: ${count(entry.rows)} bars, ${isoTime(entry.firstMs)} → ${isoTime(entry.lastMs)}`,
  );
  out.line(
    `calendar ${entry.calendar}${entry.adjusted ? '; close = adjusted close (OHLC scaled)' : ''}; columns ${entry.columns.join(', ')}`,
  );
  out.line(
    `gaps: ${entry.gaps.unexpected === 0 ? 'no missing bars' : `${count(entry.gaps.missingBars)} bars missing in ${count(entry.gaps.unexpected)} gaps`}; ${count(entry.gaps.closures)} market closures`,
  );
  out.line(
    entry.derivedFrom === undefined
      ? `sources: ${entry.sources.length === 0 ? 'none' : ''}`
      : `derived from ${entry.derivedFrom}`,
  );
  for (const s of entry.sources)
    out.line(
      `  ${s.path} (${s.format}, ${count(s.rows)} rows, sha256 ${s.sha256.slice(0, 12)}…, ${s.importedAt})`,
    );
  out.line(`file: ${entry.file}; updated ${entry.updatedAt}`);
  out.line();
  const intraday = entry.timeframe !== '1d';
  const table = (indexes: number[]): string[] =>
    renderTable(indexes, [
      { header: 'TIME (UTC)', value: (i) => shortTime(bars.timestamps[i] ?? Number.NaN, intraday) },
      { header: 'OPEN', value: (i) => num(bars.open[i] ?? Number.NaN), right: true },
      { header: 'HIGH', value: (i) => num(bars.high[i] ?? Number.NaN), right: true },
      { header: 'LOW', value: (i) => num(bars.low[i] ?? Number.NaN), right: true },
      { header: 'CLOSE', value: (i) => num(bars.close[i] ?? Number.NaN), right: true },
      { header: 'VOLUME', value: (i) => num(bars.volume[i] ?? Number.NaN), right: true },
    ]);
  const [header, ...first] = table([...head, ...tail]);
  out.line(header);
  first.forEach((line, k) => {
    if (k === head.length && tail.length > 0 && (tail[0] ?? 0) > (head.at(-1) ?? 0) + 1)
      out.line('  …');
    out.line(line);
  });
}

function bar(bars: Bars, i: number): Record<string, number | string> {
  return {
    time: isoTime(bars.timestamps[i] ?? Number.NaN),
    timestamp: bars.timestamps[i] ?? Number.NaN,
    open: bars.open[i] ?? Number.NaN,
    high: bars.high[i] ?? Number.NaN,
    low: bars.low[i] ?? Number.NaN,
    close: bars.close[i] ?? Number.NaN,
    volume: bars.volume[i] ?? Number.NaN,
  };
}

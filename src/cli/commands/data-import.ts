import {
  BAD_ROW_POLICIES,
  formatDatasetKey,
  IMPORT_FORMATS,
  importFiles,
  parseCalendar,
  parseSymbol,
  parseTimeframe,
  type ImportResult,
} from '../../data/index.js';
import { basename } from 'node:path';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, duration, isoTime, plural } from '../format.js';
import { choiceOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import type { Output } from '../output.js';
import { createProgress } from '../progress.js';

/** `tradelab data import FILE... --symbol SYM --timeframe TF`. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const symbol = required(options, 'symbol');
  const timeframe = required(options, 'timeframe');
  const key = { symbol: parseSymbol(symbol), timeframe: parseTimeframe(timeframe) };
  const calendar =
    typeof options.calendar === 'string' ? parseCalendar(options.calendar) : undefined;
  const format = choiceOption(options, 'format', IMPORT_FORMATS);
  const onBad = choiceOption(options, 'on-bad', BAD_ROW_POLICIES);
  const store = openStore(context);
  // Started before reading, so the rate counts the whole import; the total is known once files are listed.
  const progress = createProgress({ total: 0, unit: 'MB' });
  const result = await importFiles(store, {
    onProgress: (done, total, path) => {
      progress.update(done / 1e6, basename(path), total / 1e6);
    },
    inputs: context.positionals,
    baseDir: context.cwd,
    key,
    ...(format === undefined ? {} : { format }),
    ...(onBad === undefined ? {} : { onBad }),
    ...(calendar === undefined ? {} : { calendar }),
    ...(typeof options.tz === 'string' ? { timeZone: options.tz } : {}),
    ...(options.adjusted === true ? { adjusted: true } : {}),
  }).finally(() => {
    // Clear the line before any summary or error is printed.
    progress.done();
  });
  if (out.json) {
    out.record({ type: 'import', dataset: formatDatasetKey(key), ...result });
    return;
  }
  printSummary(out, formatDatasetKey(key), result);
}

function required(options: CommandContext['options'], name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') {
    throw new TradelabError('USAGE', `--${name} is required`, {
      hint: 'e.g. tradelab data import btc_1m.csv --symbol BTCUSDT --timeframe 1m',
    });
  }
  return value;
}

/** The import summary: files and formats, what the checks found and did, the gaps. */
export function printSummary(out: Output, name: string, result: ImportResult): void {
  const { report, entry } = result;
  for (const file of result.files) {
    const what = file.unchanged
      ? 'unchanged, skipped'
      : `${file.format} (${file.reason}), ${plural(file.rows, 'row')}`;
    out.line(`  ${file.path}: ${what}${file.notes.length > 0 ? `; ${file.notes.join('; ')}` : ''}`);
  }
  if (result.status === 'unchanged' || report === undefined || entry === undefined) {
    out.line(
      `Nothing to import: ${name} already holds these files (same SHA-256). The store is unchanged.`,
    );
    return;
  }
  if (result.rebuilt !== undefined)
    out.line(
      `Rebuilt ${name} from its files (${result.rebuilt}); the dataset now holds exactly these files' bars.`,
    );
  const rate = report.rowsRead / Math.max(result.seconds, 1e-9);
  out.line(
    `Imported ${plural(report.rowsRead, 'row')} into ${name} in ${result.seconds.toFixed(2)} s (${count(rate)} rows/s): ${count(entry.rows)} bars now${result.addedRows !== entry.rows ? ` (${result.addedRows >= 0 ? '+' : ''}${count(result.addedRows)})` : ''}.`,
  );
  out.line(
    `Range: ${isoTime(entry.firstMs)} → ${isoTime(entry.lastMs)}, calendar ${entry.calendar}${entry.adjusted ? ', close = adjusted close' : ''}`,
  );
  const fieldTotal = Object.values(report.fieldProblems).reduce((a, b) => a + b, 0);
  const valueTotal = Object.values(report.valueProblems).reduce((a, b) => a + b, 0);
  if (fieldTotal + valueTotal === 0) out.line('Values: all rows valid.');
  else {
    const parts = [
      ...Object.entries(report.fieldProblems)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${count(n)} ${k === 'timestamp' ? 'bad timestamp' : k}`),
      ...Object.entries(report.valueProblems)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${count(n)} ${k}`),
    ];
    const done =
      report.policy === 'drop'
        ? `dropped ${plural(report.dropped, 'row')}`
        : `repaired ${plural(report.repaired, 'field')} (forward fill), clamped ${plural(report.clamped, 'high/low', 'highs/lows')}, dropped ${plural(report.dropped, 'row')}`;
    out.line(`Values: ${parts.join(', ')} → ${done} (--on-bad ${report.policy}). First ones:`);
    for (const example of report.examples.slice(0, 5)) out.line(`    ${example}`);
  }
  if (report.duplicatesMerged > 0)
    out.line(`Duplicates: ${plural(report.duplicatesMerged, 'identical row')} merged.`);
  if (report.outOfOrder > 0)
    out.line(
      `Order: ${plural(report.outOfOrder, 'row')} came before an earlier one; sorted by time.`,
    );
  if (report.offGrid !== undefined) {
    const { offGrid } = report;
    const tf = entry.timeframe;
    out.line(
      `Grid: ${count(offGrid.bars)} of ${plural(entry.rows, 'bar')} do not start on a multiple of ${tf} in UTC (the first at ${isoTime(offGrid.firstMs)}); they were imported as they are, but \`data resample\` buckets and symbols loaded together line up on that grid. If the times are bar closes or local times, re-export bar open times in UTC, or pass --tz.`,
    );
  }
  const { gaps } = report;
  const closures =
    gaps.closures > 0
      ? `; ${plural(gaps.closures, 'gap')} where the ${entry.calendar} market was closed (nights, weekends, holidays: normal)`
      : '';
  if (gaps.unexpected === 0) out.line(`Gaps: no missing bars${closures}.`);
  else {
    const largest = gaps.largest;
    out.line(
      `Gaps: ${plural(gaps.unexpected, 'gap')} with missing data, ${plural(gaps.missingBars, 'bar')} missing in all${largest === undefined ? '' : `; the largest ${plural(largest.missingBars, 'bar')} (${duration(largest.toMs - largest.fromMs)}) from ${isoTime(largest.fromMs)} to ${isoTime(largest.toMs)}`}${closures}.`,
    );
  }
}

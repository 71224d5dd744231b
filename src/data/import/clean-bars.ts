import { shellQuote, TradelabError } from '../../core/index.js';
import { allocateBars, barCount, sliceBars, type Bars } from '../bars.js';
import { missingBarsBetween, type Calendar } from '../calendar.js';
import { timeframeMs, timeframeOfMs, type Timeframe } from '../timeframe.js';
import { FIELD_BITS, type FieldProblemKind, type ParsedRows } from './parse-bars-csv.js';
import { invisibleCharacters, visibleText } from './visible-text.js';

/** What happens to rows with bad values: fail the import, drop them, or repair them. */
export const BAD_ROW_POLICIES = ['error', 'drop', 'repair'] as const;
/** A bad-row policy. */
export type BadRowPolicy = (typeof BAD_ROW_POLICIES)[number];

/** Value checks on rows whose fields parsed. */
export type ValueProblemKind =
  'non-positive price' | 'high below open/close' | 'low above open/close' | 'negative volume';

/** Gaps between consecutive bars. */
export interface GapReport {
  /** Gaps where the calendar says the market was open: data is missing. */
  unexpected: number;
  /** Bars missing in those gaps, in all. */
  missingBars: number;
  /** The gap with the most missing bars. */
  largest: { missingBars: number; fromMs: number; toMs: number } | undefined;
  /** Gaps the calendar explains (weekends, nights, holidays): normal. */
  closures: number;
}

/** What cleaning found and did, for the import summary. */
export interface CleanReport {
  rowsRead: number;
  existingRows: number;
  fieldProblems: Record<FieldProblemKind, number>;
  valueProblems: Record<ValueProblemKind, number>;
  /** The first problems, located: "file:line:column (name): what". */
  examples: string[];
  policy: BadRowPolicy;
  dropped: number;
  /** Fields forward-filled from the previous bar. */
  repaired: number;
  /** High/low moved to cover open and close (repair). */
  clamped: number;
  duplicatesMerged: number;
  /** Rows that came before an earlier row (sorted). */
  outOfOrder: number;
  /** The most common spacing between bars, and the share of gaps that have it. */
  spacing: { commonMs: number; share: number };
  gaps: GapReport;
  /**
   * Bars whose time is not a multiple of the timeframe in UTC (10:30 in 1h data), which resampling
   * and aligning symbols assume: how many, and the first one's time. Undefined when every bar is
   * on that grid. They are imported as they are; the summary says so.
   */
  offGrid?: { bars: number; firstMs: number };
  rows: number;
  firstMs: number;
  lastMs: number;
}

/** Options for {@link cleanBars}. */
export interface CleanOptions {
  timeframe: Timeframe;
  calendar: Calendar;
  /** Default `error`. */
  onBad?: BadRowPolicy;
  /** Bars already in the store for this dataset; new rows merge with them. */
  existing?: Bars;
}

const EXAMPLES = 12;
const VALUE_BITS = {
  open: FIELD_BITS.open,
  high: FIELD_BITS.high,
  low: FIELD_BITS.low,
  close: FIELD_BITS.close,
  volume: FIELD_BITS.volume,
};

/**
 * Turns parsed files (and the dataset's existing bars) into one clean series: applies the bad-row
 * policy, sorts, merges identical duplicates, rejects conflicting ones, checks the timeframe against
 * the data, and reports gaps with the calendar. Throws a TradelabError that lists located problems
 * when the policy is `error` and there are any, and on conflicting duplicates or a wrong timeframe.
 */
export function cleanBars(
  files: readonly ParsedRows[],
  options: CleanOptions,
): { bars: Bars; report: CleanReport } {
  const policy = options.onBad ?? 'error';
  const existing = options.existing;
  const existingRows = existing === undefined ? 0 : barCount(existing);
  const total = existingRows + files.reduce((sum, f) => sum + f.timestamps.length, 0);
  const withAdj = files.some((f) => f.adjClose !== undefined) || existing?.adjClose !== undefined;
  // One new file and nothing stored (the usual import): work on its arrays, no copy.
  const only = files.length === 1 && existing === undefined ? files[0] : undefined;
  const all: Bars =
    only === undefined
      ? allocateBars(total, withAdj)
      : {
          timestamps: only.timestamps,
          open: only.open,
          high: only.high,
          low: only.low,
          close: only.close,
          volume: only.volume,
          ...(only.adjClose === undefined ? {} : { adjClose: only.adjClose }),
        };
  const bad = only?.badFields ?? new Uint8Array(total);
  const source = new Int32Array(total); // file index, -1 for existing rows
  const lines = only?.lines ?? new Int32Array(total);
  let n = only === undefined ? 0 : total;
  if (existing !== undefined) {
    copyInto(all, n, existing, 0, existingRows);
    source.fill(-1, 0, existingRows);
    n = existingRows;
  }
  // Files in the order of their first timestamp, so monthly dumps concatenate already sorted.
  const order = files.map((f, i) => i).sort((a, b) => firstValid(files[a]) - firstValid(files[b]));
  for (const fi of only === undefined ? order : []) {
    const f = files[fi];
    if (f === undefined) continue;
    const rows = f.timestamps.length;
    all.timestamps.set(f.timestamps, n);
    all.open.set(f.open, n);
    all.high.set(f.high, n);
    all.low.set(f.low, n);
    all.close.set(f.close, n);
    all.volume.set(f.volume, n);
    if (all.adjClose !== undefined) {
      if (f.adjClose !== undefined) all.adjClose.set(f.adjClose, n);
      else all.adjClose.set(f.close, n);
    }
    bad.set(f.badFields, n);
    source.fill(fi, n, n + rows);
    lines.set(f.lines, n);
    n += rows;
  }
  const where = (row: number, field?: keyof typeof VALUE_BITS): string => {
    const fi = source[row] ?? -1;
    if (fi < 0) return 'existing dataset';
    const at = `${files[fi]?.file ?? '?'}:${lines[row] ?? '?'}`;
    const column = field === undefined ? undefined : files[fi]?.columns[field];
    return column === undefined ? at : `${at}:${column.column} (${column.name})`;
  };

  const fieldProblems: Record<FieldProblemKind, number> = {
    timestamp: 0,
    empty: 0,
    unparsable: 0,
    nan: 0,
    infinite: 0,
    'timestamp out of range': 0,
  };
  const examples: string[] = [];
  for (const f of files) {
    for (const kind of Object.keys(fieldProblems) as FieldProblemKind[])
      fieldProblems[kind] += f.problemCounts[kind];
    for (const p of f.problems) {
      if (examples.length >= EXAMPLES) break;
      examples.push(
        `${p.file}:${p.line}:${p.column} (${p.columnName}): ${describeField(p.kind, p.text)}`,
      );
    }
  }

  // Value checks on rows whose fields all parsed.
  const valueProblems: Record<ValueProblemKind, number> = {
    'non-positive price': 0,
    'high below open/close': 0,
    'low above open/close': 0,
    'negative volume': 0,
  };
  const envelope = new Uint8Array(total); // 1: high too low, 2: low too high
  for (let i = 0; i < n; i++) {
    if (bad[i] !== 0) continue;
    const o = all.open[i] ?? 0;
    const h = all.high[i] ?? 0;
    const l = all.low[i] ?? 0;
    const c = all.close[i] ?? 0;
    let flags = 0;
    if (o <= 0 || h <= 0 || l <= 0 || c <= 0) {
      valueProblems['non-positive price']++;
      for (const [field, bit] of [
        ['open', VALUE_BITS.open],
        ['high', VALUE_BITS.high],
        ['low', VALUE_BITS.low],
        ['close', VALUE_BITS.close],
      ] as const) {
        if ((all[field][i] ?? 0) <= 0) flags |= bit;
      }
      const first = (['open', 'high', 'low', 'close'] as const).find((f) => (all[f][i] ?? 0) <= 0);
      note(
        examples,
        `${where(i, first)}: non-positive price (open ${o}, high ${h}, low ${l}, close ${c})`,
      );
    }
    if ((all.volume[i] ?? 0) < 0) {
      valueProblems['negative volume']++;
      flags |= VALUE_BITS.volume;
      note(examples, `${where(i, 'volume')}: negative volume ${all.volume[i] ?? 0}`);
    }
    if (flags === 0) {
      if (h < Math.max(o, c)) {
        valueProblems['high below open/close']++;
        envelope[i] = (envelope[i] ?? 0) | 1;
        note(examples, `${where(i, 'high')}: high ${h} is below max(open ${o}, close ${c})`);
      }
      if (l > Math.min(o, c)) {
        valueProblems['low above open/close']++;
        envelope[i] = (envelope[i] ?? 0) | 2;
        note(examples, `${where(i, 'low')}: low ${l} is above min(open ${o}, close ${c})`);
      }
    }
    bad[i] = flags;
  }
  const problemCount = sum(fieldProblems) + sum(valueProblems);
  if (policy === 'error' && problemCount > 0) {
    // A quoted "100,5" is a locale's decimal comma, not a bad value: say so, or every row "is bad".
    const comma = files
      .flatMap((f) => f.problems)
      .find((p) => p.kind === 'unparsable' && /^\s*[-+]?\d+,\d+\s*$/.test(p.text))
      ?.text.trim();
    // A byte-order mark inside the file (files joined with `cat`) spoils the row it starts.
    const marked = files.find((f) => f.problems.some((p) => p.text.includes('\ufeff')))?.file;
    throw new TradelabError(
      'DATA_INVALID',
      `${problemCount} bad value${problemCount === 1 ? '' : 's'} in the input:\n  ${examples.join('\n  ')}${problemCount > examples.length ? `\n  … and ${problemCount - examples.length} more` : ''}`,
      {
        hint: `${comma === undefined ? '' : `"${comma}" looks like a decimal comma: tradelab reads decimal points (${comma.replace(',', '.')}); convert the numbers, then import again. Otherwise `}${marked === undefined ? '' : `remove the byte-order marks inside the file (\`sed -i 's/\\xEF\\xBB\\xBF//g' ${shellQuote(marked)}\`), then import again. Otherwise `}fix the file, or rerun with --on-bad drop (skip bad rows) or --on-bad repair (forward-fill bad values, clamp high/low); nothing was imported`,
        details: { fieldProblems, valueProblems },
      },
    );
  }

  // Order by time (rows without a timestamp go last and are dropped below).
  // Count descents within one source only: stored bars followed by earlier new ones are not out of order.
  let outOfOrder = 0;
  let unsorted = false;
  let repeats = false;
  for (let i = 1; i < n; i++) {
    const d = (all.timestamps[i] ?? 0) - (all.timestamps[i - 1] ?? 0);
    if (d < 0) {
      unsorted = true;
      if (source[i] === source[i - 1]) outOfOrder++;
    } else if (d === 0) repeats = true;
  }
  let perm: Uint32Array | undefined;
  if (unsorted || hasNaN(all.timestamps, n)) {
    perm = new Uint32Array(n);
    for (let i = 0; i < n; i++) perm[i] = i;
    const ts = all.timestamps;
    perm.sort((a, b) => {
      const x = ts[a] ?? Number.NaN;
      const y = ts[b] ?? Number.NaN;
      if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1;
      if (Number.isNaN(y)) return -1;
      return x - y || a - b;
    });
  }
  const at = (k: number): number => (perm === undefined ? k : (perm[k] ?? 0));

  // Already clean, in order and without repeats: the rows are the output as they are.
  if (perm === undefined && !repeats && problemCount === 0) {
    return finish(all, n, options, {
      total,
      existingRows,
      fieldProblems,
      valueProblems,
      examples,
      policy,
      dropped: 0,
      repaired: 0,
      clamped: 0,
      duplicatesMerged: 0,
      outOfOrder,
    });
  }

  // Walk in time order: drop/repair, merge duplicates, write the output.
  const out = allocateBars(n, withAdj);
  let m = 0;
  let dropped = 0;
  let repaired = 0;
  let clamped = 0;
  let duplicatesMerged = 0;
  const conflicts: string[] = [];
  let lastSource = -1;
  for (let k = 0; k < n; k++) {
    const i = at(k);
    const t = all.timestamps[i] ?? Number.NaN;
    const flags = bad[i] ?? 0;
    if (Number.isNaN(t) || (flags & FIELD_BITS.timestamp) !== 0) {
      dropped++;
      continue;
    }
    if (flags !== 0 || (envelope[i] ?? 0) !== 0) {
      if (policy === 'drop' || m === 0) {
        dropped++;
        continue;
      }
      // repair: forward-fill bad fields from the previous output bar (prices from its close).
      const prevClose = out.close[m - 1] ?? 0;
      if (flags & FIELD_BITS.open) all.open[i] = prevClose;
      if (flags & FIELD_BITS.close) all.close[i] = prevClose;
      if (flags & FIELD_BITS.high) all.high[i] = Math.max(all.open[i] ?? 0, all.close[i] ?? 0);
      if (flags & FIELD_BITS.low) all.low[i] = Math.min(all.open[i] ?? 0, all.close[i] ?? 0);
      if (flags & FIELD_BITS.volume) all.volume[i] = out.volume[m - 1] ?? 0;
      if (flags & FIELD_BITS.adjClose && all.adjClose !== undefined)
        all.adjClose[i] = out.adjClose?.[m - 1] ?? 0;
      repaired += popcount(flags);
      const o = all.open[i] ?? 0;
      const c = all.close[i] ?? 0;
      if ((all.high[i] ?? 0) < Math.max(o, c) || (all.low[i] ?? 0) > Math.min(o, c)) {
        all.high[i] = Math.max(all.high[i] ?? 0, o, c);
        all.low[i] = Math.min(all.low[i] ?? 0, o, c);
        clamped++;
      }
    }
    if (m > 0 && out.timestamps[m - 1] === t) {
      if (sameRow(out, m - 1, all, i)) {
        duplicatesMerged++;
        continue;
      }
      if (conflicts.length < EXAMPLES) {
        conflicts.push(
          `${new Date(t).toISOString()}: ${where(lastSource)} has close ${out.close[m - 1] ?? '?'}, ${where(i)} has close ${all.close[i] ?? '?'}`,
        );
      } else conflicts.push('');
      continue;
    }
    copyInto(out, m, all, i, 1);
    lastSource = i;
    m++;
  }
  if (conflicts.length > 0) {
    const shown = conflicts.filter((c) => c !== '');
    throw new TradelabError(
      'DATA_INVALID',
      `${conflicts.length} conflicting duplicate timestamp${conflicts.length === 1 ? '' : 's'} (same time, different values):\n  ${shown.join('\n  ')}${conflicts.length > shown.length ? `\n  … and ${conflicts.length - shown.length} more` : ''}`,
      {
        hint: 'two sources disagree about the same bar; remove one of the files (or the overlapping rows) and import again; nothing was imported',
      },
    );
  }
  return finish(sliceBars(out, m), m, options, {
    total,
    existingRows,
    fieldProblems,
    valueProblems,
    examples,
    policy,
    dropped,
    repaired,
    clamped,
    duplicatesMerged,
    outOfOrder,
  });
}

type Counts = Pick<
  CleanReport,
  | 'existingRows'
  | 'fieldProblems'
  | 'valueProblems'
  | 'examples'
  | 'policy'
  | 'dropped'
  | 'repaired'
  | 'clamped'
  | 'duplicatesMerged'
  | 'outOfOrder'
> & { total: number };

/** Checks the spacing, measures the gaps and assembles the report. */
function finish(
  bars: Bars,
  m: number,
  options: CleanOptions,
  counts: Counts,
): { bars: Bars; report: CleanReport } {
  const { total, ...rest } = counts;
  const barMs = timeframeMs(options.timeframe);
  const spacing = checkSpacing(bars, barMs, options.timeframe);
  const gaps = findGaps(bars, barMs, options.calendar);
  const offGrid = offGridBars(bars, barMs);
  return {
    bars,
    report: {
      ...rest,
      rowsRead: total - counts.existingRows,
      spacing,
      gaps,
      ...(offGrid === undefined ? {} : { offGrid }),
      rows: m,
      firstMs: bars.timestamps[0] ?? Number.NaN,
      lastMs: bars.timestamps[m - 1] ?? Number.NaN,
    },
  };
}

function describeField(kind: FieldProblemKind, text: string): string {
  const shown = visibleText(text.length > 30 ? `${text.slice(0, 27)}...` : text);
  const invisible = invisibleCharacters(text);
  const why =
    invisible.length === 0
      ? ''
      : `: it holds ${invisible.join(' and ')}, which does not show on screen`;
  switch (kind) {
    case 'timestamp':
      return `timestamp ${shown} is not an ISO-8601 date-time or an epoch number${why}`;
    case 'empty':
      return 'empty field';
    case 'unparsable':
      return `${shown} is not a number${why}`;
    case 'nan':
      return `${shown} (NaN) is not a value`;
    case 'infinite':
      return `${shown} is infinite`;
    case 'timestamp out of range':
      return `timestamp ${shown} is outside the dates tradelab handles (years 0000 to 9999)`;
  }
}

function note(examples: string[], text: string): void {
  if (examples.length < EXAMPLES) examples.push(text);
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0);
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
}

function firstValid(f: ParsedRows | undefined): number {
  if (f === undefined) return Infinity;
  for (const t of f.timestamps) if (!Number.isNaN(t)) return t;
  return Infinity;
}

function hasNaN(a: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (Number.isNaN(a[i])) return true;
  return false;
}

function copyInto(to: Bars, at: number, from: Bars, start: number, count: number): void {
  for (let k = 0; k < count; k++) {
    const i = start + k;
    to.timestamps[at + k] = from.timestamps[i] ?? 0;
    to.open[at + k] = from.open[i] ?? 0;
    to.high[at + k] = from.high[i] ?? 0;
    to.low[at + k] = from.low[i] ?? 0;
    to.close[at + k] = from.close[i] ?? 0;
    to.volume[at + k] = from.volume[i] ?? 0;
    if (to.adjClose !== undefined) to.adjClose[at + k] = from.adjClose?.[i] ?? from.close[i] ?? 0;
  }
}

function sameRow(a: Bars, i: number, b: Bars, j: number): boolean {
  return (
    a.open[i] === b.open[j] &&
    a.high[i] === b.high[j] &&
    a.low[i] === b.low[j] &&
    a.close[i] === b.close[j] &&
    a.volume[i] === b.volume[j] &&
    (a.adjClose === undefined || b.adjClose === undefined || a.adjClose[i] === b.adjClose[j])
  );
}

/**
 * Checks that the most common spacing between bars is the declared timeframe (1m data declared as
 * 1h is an error), and that no two bars are closer than one bar.
 */
function checkSpacing(
  bars: Bars,
  barMs: number,
  timeframe: Timeframe,
): { commonMs: number; share: number } {
  const n = barCount(bars);
  if (n < 2) return { commonMs: barMs, share: 1 };
  const counts = new Map<number, number>();
  let closer = 0;
  let closerAt = -1;
  for (let i = 1; i < n; i++) {
    const d = (bars.timestamps[i] ?? 0) - (bars.timestamps[i - 1] ?? 0);
    counts.set(d, (counts.get(d) ?? 0) + 1);
    if (d < barMs) {
      closer++;
      if (closerAt < 0) closerAt = i;
    }
  }
  let commonMs = barMs;
  let best = 0;
  for (const [d, c] of counts) {
    if (c > best) {
      best = c;
      commonMs = d;
    }
  }
  const share = best / (n - 1);
  const name = (ms: number): string => timeframeOfMs(ms) ?? `${ms / 60_000} minutes`;
  // The closest two bars must be one bar apart: 5m data declared as 1m never is; sessions with few
  // bars a day make the most common spacing unreliable (4h bars: 4 h and overnight alike).
  let smallest = Infinity;
  for (const d of counts.keys()) if (d > 0 && d < smallest) smallest = d;
  if (closer === 0 && smallest > barMs) {
    throw new TradelabError(
      'DATA_MISMATCH',
      `no two bars are ${timeframe} apart: the closest are ${name(smallest)} apart (the most common spacing is ${name(commonMs)}, ${Math.round(share * 100)} % of bars)`,
      {
        hint: `import it with --timeframe ${timeframeOfMs(smallest) ?? '…'}, then \`tradelab data resample\` to other timeframes`,
      },
    );
  }
  if (closer > 0) {
    const t = bars.timestamps[closerAt] ?? 0;
    const finer = timeframeOfMs(smallest);
    throw new TradelabError(
      'DATA_MISMATCH',
      `${closer} of ${n - 1} bars are closer than ${timeframe} to the previous one (the closest ${name(smallest)} apart, first at ${new Date(t).toISOString()})`,
      {
        hint:
          closer * 2 > n && finer !== undefined
            ? `this looks like ${finer} data: import it with --timeframe ${finer}, then \`tradelab data resample\``
            : 'the file mixes timeframes or has misaligned bars; import the bars of one timeframe only',
      },
    );
  }
  return { commonMs, share };
}

/** How many bars are off the timeframe's UTC grid, and the first one's time (undefined: none). */
function offGridBars(bars: Bars, barMs: number): { bars: number; firstMs: number } | undefined {
  let count = 0;
  let firstMs = Number.NaN;
  for (const t of bars.timestamps) {
    // t − floor(t / barMs) · barMs, not t % barMs: times before 1970 are negative.
    if (t - Math.floor(t / barMs) * barMs === 0) continue;
    if (count === 0) firstMs = t;
    count++;
  }
  return count === 0 ? undefined : { bars: count, firstMs };
}

/** Gaps between consecutive bars, told apart by the calendar into missing data and closures. */
export function findGaps(bars: Bars, barMs: number, calendar: Calendar): GapReport {
  const report: GapReport = { unexpected: 0, missingBars: 0, largest: undefined, closures: 0 };
  for (let i = 1; i < bars.timestamps.length; i++) {
    const a = bars.timestamps[i - 1] ?? 0;
    const b = bars.timestamps[i] ?? 0;
    if (b - a <= barMs) continue;
    const missing = missingBarsBetween(calendar, a, b, barMs);
    if (missing === 0) {
      report.closures++;
      continue;
    }
    report.unexpected++;
    report.missingBars += missing;
    if (report.largest === undefined || missing > report.largest.missingBars) {
      report.largest = { missingBars: missing, fromMs: a, toMs: b };
    }
  }
  return report;
}

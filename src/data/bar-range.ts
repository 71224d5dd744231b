import { TradelabError } from '../core/index.js';
import { formatBarTime, type Timeframe } from './timeframe.js';

/*
 * `--train` / `--test` ranges: `FROM..TO` in dates (`2021-01-01..2022-06-30`, both days included)
 * or ISO times, or in bar indices (`0..5000`, the end excluded). Either side may be left out
 * (`..2022-06-30`, `5000..`). The result is a half-open range of bar indices [start, end).
 */

/** Bars `[start, end)`. */
export type BarRange = readonly [start: number, end: number];

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function invalid(label: string, text: string, message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `${label} ${JSON.stringify(text)}: ${message}`, {
    hint,
  });
}

/** The first index whose timestamp is ≥ `ms` (timestamps ascending). */
function lowerBound(timestamps: Float64Array, ms: number): number {
  let lo = 0;
  let hi = timestamps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((timestamps[mid] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One side of a range as a time in ms, or undefined when it is a bar index. */
function parseTime(side: string, end: boolean): number | undefined {
  if (/^\d+$/.test(side)) return undefined;
  const ms = Date.parse(DATE_ONLY.test(side) ? `${side}T00:00:00Z` : side);
  if (Number.isNaN(ms)) return Number.NaN;
  // A date alone as the end means through that whole day.
  return end && DATE_ONLY.test(side) ? ms + DAY_MS : ms;
}

/**
 * Parses a range against the bars' open times. `label` names the option in errors (`--train`).
 * The range must hold at least `minBars` bars.
 */
export function parseBarRange(
  text: string,
  timestamps: Float64Array,
  label: string,
  minBars = 2,
): BarRange {
  const parts = text.split('..');
  const example = `e.g. ${label} 2021-01-01..2022-06-30 (dates, both days included) or ${label} 0..5000 (bar indices)`;
  if (parts.length !== 2) throw invalid(label, text, 'expected FROM..TO', example);
  const bars = timestamps.length;
  const side = (raw: string, end: boolean): number => {
    const value = raw.trim();
    if (value === '') return end ? bars : 0;
    const ms = parseTime(value, end);
    if (ms === undefined) {
      const index = Number(value);
      if (index > bars)
        throw invalid(
          label,
          text,
          `bar ${index} is past the data's ${bars} bars`,
          `use at most ${bars}`,
        );
      return index;
    }
    if (Number.isNaN(ms))
      throw invalid(label, text, `"${value}" is neither a date nor a bar index`, example);
    return lowerBound(timestamps, ms);
  };
  const start = side(parts[0] ?? '', false);
  const end = side(parts[1] ?? '', true);
  if (end - start < minBars) {
    const first = timestamps[0];
    const last = timestamps[bars - 1];
    const span =
      first === undefined || last === undefined
        ? 'no bars'
        : `${bars} bars from ${new Date(first).toISOString()} to ${new Date(last).toISOString()}`;
    throw invalid(
      label,
      text,
      `holds ${Math.max(0, end - start)} bars, fewer than ${minBars} (the data has ${span})`,
      'widen the range, or check it against `tradelab data show`',
    );
  }
  return [start, end];
}

/**
 * `[start, end)` as dates, for messages and manifests: full ISO times, or with `timeframe` the
 * bars' own precision (`2000-02-18` for daily bars, `2020-01-03 14:30` for intraday ones).
 */
export function describeBarRange(
  range: BarRange,
  timestamps: Float64Array,
  timeframe?: Timeframe,
): string {
  const from = timestamps[range[0]];
  const to = timestamps[range[1] - 1];
  if (from === undefined || to === undefined) return `bars ${range[0]}..${range[1]}`;
  const time = (ms: number): string =>
    timeframe === undefined ? new Date(ms).toISOString() : formatBarTime(ms, timeframe);
  return `bars ${range[0]}..${range[1]} (${time(from)} → ${time(to)})`;
}

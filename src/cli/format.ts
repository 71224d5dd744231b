import { outsideDates, outsideDatesText } from '../core/index.js';

/** A timestamp as ISO-8601 UTC to the minute (seconds when not zero): `2024-01-02T09:30Z`. */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (outsideDates(ms)) return outsideDatesText(ms);
  const iso = new Date(ms).toISOString();
  if (iso.endsWith(':00.000Z')) return `${iso.slice(0, 16)}Z`;
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** A date (or date-time for intraday data) for tables: `2024-01-02` or `2024-01-02 09:30`. */
export function shortTime(ms: number, intraday: boolean): string {
  if (!Number.isFinite(ms)) return '-';
  if (outsideDates(ms)) return outsideDatesText(ms);
  const iso = new Date(ms).toISOString();
  return intraday ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** A duration in words: `45 s`, `18 h`, `3.5 days`. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${(s / 86_400).toFixed(1).replace(/\.0$/, '')} days`;
}

/** A count with thousands separators. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `x` to `decimals` decimals, never `-0.00`: a difference that rounds to zero is zero. */
export function fixed(x: number, decimals: number): string {
  const text = x.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** A number with `digits` significant decimals, for prices and statistics. */
export function num(x: number, digits = 6): string {
  if (!Number.isFinite(x)) return String(x);
  if (x !== 0 && Math.abs(x) < 1e-4) return x.toExponential(3);
  return Number(x.toPrecision(digits)).toString();
}

/** Hints in every layer quote paths and names the same way (`data/` and `cli/` both print them). */
export { shellQuote } from '../core/index.js';
/** Counts in sentences read the same in every layer (`bench/` and `campaign/` write them too). */
export { plural } from '../core/index.js';

import type { Bars } from '../bars.js';

/*
 * Bars read back from the store are checked against what an import lets in: times strictly
 * increasing within years 0000–9999, prices finite and positive with the high and low around open
 * and close, volumes finite and not negative. Every way into the store (import, synth, resample)
 * gives such bars, so one that fails here was damaged on disk since, or written by hand. It is
 * the only check for files written before the store kept checksums, and a cheap second one for
 * the others: one pass over the columns, a few milliseconds per million bars.
 */

/** The first and last instants a stored bar may have: years 0000 to 9999. */
const FIRST_MS = Date.parse('0000-01-01T00:00:00Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** The first bar no import would have stored, described ("row 18 (2024-01-01T00:17:00.000Z): …"); undefined when all pass. */
export function invalidStoredBar(bars: Bars): string | undefined {
  const { timestamps: ts, open, high, low, close, volume, adjClose } = bars;
  const n = ts.length;
  if (n === 0) return undefined;
  // Times only increase, so the first and last bound them all.
  if (!((ts[0] ?? Number.NaN) >= FIRST_MS && (ts[n - 1] ?? Number.NaN) <= LAST_MS))
    return describe(bars, (ts[0] ?? Number.NaN) >= FIRST_MS ? n - 1 : 0);
  let previous = Number.NEGATIVE_INFINITY;
  // One comparison chain per bar, written so that NaN fails it; the message is made apart. A low
  // above zero and at most open and close makes every price positive; a finite high bounds them.
  for (let i = 0; i < n; i++) {
    const t = ts[i] ?? Number.NaN;
    const o = open[i] ?? Number.NaN;
    const h = high[i] ?? Number.NaN;
    const l = low[i] ?? Number.NaN;
    const c = close[i] ?? Number.NaN;
    const v = volume[i] ?? Number.NaN;
    if (!(
      t > previous &&
      l > 0 &&
      l <= o &&
      l <= c &&
      h >= o &&
      h >= c &&
      h < Infinity &&
      v >= 0 &&
      v < Infinity
    ))
      return describe(bars, i);
    previous = t;
  }
  if (adjClose !== undefined)
    for (let i = 0; i < n; i++) {
      const a = adjClose[i] ?? Number.NaN;
      if (!(a > 0 && a < Infinity)) return describe(bars, i);
    }
  return undefined;
}

/** What is wrong with bar `i` (which failed the check). */
function describe(bars: Bars, i: number): string {
  const t = bars.timestamps[i] ?? Number.NaN;
  if (!(t >= FIRST_MS && t <= LAST_MS)) return `row ${i + 1}: time ${t} is not a date`;
  const previous = bars.timestamps[i - 1];
  if (previous !== undefined && !(t > previous))
    return `row ${i + 1} (${iso(t)}) is not after row ${i} (${iso(previous)})`;
  const o = bars.open[i] ?? Number.NaN;
  const h = bars.high[i] ?? Number.NaN;
  const l = bars.low[i] ?? Number.NaN;
  const c = bars.close[i] ?? Number.NaN;
  const v = bars.volume[i] ?? Number.NaN;
  const at = row(i, t);
  if (!(o > 0 && h > 0 && l > 0 && c > 0 && h < Infinity))
    return `${at}: a price that is not a positive number (open ${o}, high ${h}, low ${l}, close ${c})`;
  if (!(h >= o && h >= c)) return `${at}: high ${h} is below max(open ${o}, close ${c})`;
  if (!(l <= o && l <= c)) return `${at}: low ${l} is above min(open ${o}, close ${c})`;
  if (!(v >= 0 && v < Infinity)) return `${at}: volume ${v} is not a count`;
  return `${at}: adjusted close ${bars.adjClose?.[i] ?? Number.NaN} is not a positive number`;
}

/** "row 18 (2024-01-01T00:17:00.000Z)": made only for a message, never per bar. */
function row(i: number, t: number): string {
  return `row ${i + 1} (${iso(t)})`;
}

function iso(t: number): string {
  return new Date(t).toISOString();
}

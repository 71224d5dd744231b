import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import { allocateBars, type Bars } from './bars.js';
import { calendarFor, type Calendar } from './calendar.js';
import {
  annualizedVolatility,
  dailyRealizedVariance,
  forwardRealizedVariance,
} from './realized-vol.js';
import { DAY_MS } from './timeframe.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const dayNumber = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / DAY_MS;
const utc = (y: number, m: number, d: number, h = 0, min = 0): number =>
  Date.UTC(y, m - 1, d, h, min);

/** Bars from start times, opens and closes (high/low bracket them; volume 1). */
function makeBars(timestamps: number[], opens: number[], closes: number[]): Bars {
  const bars = allocateBars(timestamps.length);
  timestamps.forEach((t, i) => {
    const o = opens[i] ?? 0;
    const c = closes[i] ?? 0;
    bars.timestamps[i] = t;
    bars.open[i] = o;
    bars.close[i] = c;
    bars.high[i] = Math.max(o, c);
    bars.low[i] = Math.min(o, c);
    bars.volume[i] = 1;
  });
  return bars;
}

/** Deterministic uniform [0, 1) numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 1-minute random walk over [from, to), skipping minutes where `skip` says so. */
function randomWalk(
  from: number,
  to: number,
  seed: number,
  skip: (t: number) => boolean = () => false,
): Bars {
  const next = rng(seed);
  const ts: number[] = [];
  const opens: number[] = [];
  const closes: number[] = [];
  let price = 100;
  for (let t = from; t < to; t += MIN) {
    const open = price * Math.exp((next() - 0.5) * 0.0005); // small gap between close and next open
    price = open * Math.exp((next() - 0.5) * 0.004);
    if (skip(t)) continue;
    ts.push(t);
    opens.push(open);
    closes.push(price);
  }
  return makeBars(ts, opens, closes);
}

/** Brute-force resampling to `ms` buckets aligned to UTC: first open, last close; no empty buckets. */
function resample(bars: Bars, ms: number): Bars {
  const ts: number[] = [];
  const opens: number[] = [];
  const closes: number[] = [];
  for (let i = 0; i < bars.timestamps.length; i++) {
    const bucket = Math.floor((bars.timestamps[i] ?? 0) / ms) * ms;
    if (ts[ts.length - 1] !== bucket) {
      ts.push(bucket);
      opens.push(bars.open[i] ?? 0);
      closes.push(0);
    }
    closes[closes.length - 1] = bars.close[i] ?? 0;
  }
  return makeBars(ts, opens, closes);
}

/**
 * Per-session RV of bars taken as they are, written independently of the implementation: the
 * regular-hours bars of each session give the first open→close return, then close→close returns.
 */
function referenceRv(bars: Bars, cal: Calendar): [number, number][] {
  const out: [number, number][] = [];
  let session = Number.NaN;
  let last = 0;
  for (let i = 0; i < bars.timestamps.length; i++) {
    const t = bars.timestamps[i] ?? 0;
    if (!cal.isOpen(t)) continue;
    const s = cal.sessionOf(t);
    if (s !== session) {
      out.push([s, 0]);
      session = s;
      last = bars.open[i] ?? 0;
    }
    const entry = out[out.length - 1] ?? [0, 0];
    entry[1] += Math.log((bars.close[i] ?? 0) / last) ** 2;
    last = bars.close[i] ?? 0;
  }
  return out;
}

describe('dailyRealizedVariance', () => {
  it('sums squared 1-minute log returns per UTC day, without the overnight return (hand-computed)', () => {
    // Two 24/7 sessions sampled at 1 minute. Prices are built from chosen log returns, so
    // RV is plain arithmetic:
    //   day 1: open 100, then returns +0.01, -0.02, +0.015 → RV = 1e-4 + 4e-4 + 2.25e-4 = 7.25e-4
    //   day 2: opens 8% above day 1's last close (that overnight jump is NOT a return),
    //          then returns +0.03, -0.01 → RV = 9e-4 + 1e-4 = 1e-3
    const d1 = utc(2024, 1, 1);
    const d2 = utc(2024, 1, 2);
    const p = (logPrice: number): number => 100 * Math.exp(logPrice);
    const bars = makeBars(
      [d1, d1 + MIN, d1 + 2 * MIN, d2, d2 + MIN],
      [p(0), p(0.01), p(-0.01), p(0.085), p(0.115)],
      [p(0.01), p(-0.01), p(0.005), p(0.115), p(0.105)],
    );
    const result = dailyRealizedVariance(bars, calendarFor('24/7'), MIN, {
      samplingMs: MIN,
      minReturns: 1,
    });
    expect(Array.from(result.days)).toEqual([dayNumber(2024, 1, 1), dayNumber(2024, 1, 2)]);
    expect(Array.from(result.returnsPerDay)).toEqual([3, 2]);
    expect(result.rv[0]).toBeCloseTo(7.25e-4, 15);
    expect(result.rv[1]).toBeCloseTo(1e-3, 15);
    expect(result.samplingMs).toBe(MIN);
    expect(result.note).toBeUndefined();
  });

  it('samples 1-minute bars every 5 minutes exactly as 5-minute resampled bars give', () => {
    // US equities around the 2024 DST switch (Fri Mar 8 EST, Mon Mar 11 EDT) and an early close
    // (Jul 3), with extended hours in the data and holes in it (one at a session's open).
    const cal = calendarFor('us-equities');
    for (const [from, to, seed] of [
      [utc(2024, 3, 8), utc(2024, 3, 12), 1],
      [utc(2024, 7, 2), utc(2024, 7, 6), 2],
    ] as const) {
      const holes = (t: number): boolean =>
        (t >= utc(2024, 3, 8, 16, 2) && t < utc(2024, 3, 8, 16, 13)) || // mid-session, EST
        t === utc(2024, 3, 11, 13, 30) || // the 09:30 EDT bar
        (t >= utc(2024, 7, 3, 14, 0) && t < utc(2024, 7, 3, 14, 40));
      const oneMinute = randomWalk(from, to, seed, holes);
      const fiveMinute = resample(oneMinute, 5 * MIN);
      // Every session is kept (the Jul 3 hole leaves 34 returns, under the default 39).
      const a = dailyRealizedVariance(oneMinute, cal, MIN, { minReturns: 1 });
      const b = dailyRealizedVariance(fiveMinute, cal, 5 * MIN, { minReturns: 1 });
      const reference = referenceRv(fiveMinute, cal);
      expect(Array.from(a.days)).toEqual(reference.map(([d]) => d));
      for (const [i, v] of a.rv.entries())
        expect(v).toBeCloseTo(reference[i]?.[1] ?? Number.NaN, 14);
      expect(a.days.length).toBeGreaterThan(1);
      expect(Array.from(a.days)).toEqual(Array.from(b.days));
      expect(Array.from(a.returnsPerDay)).toEqual(Array.from(b.returnsPerDay));
      for (const [i, v] of a.rv.entries()) expect(v).toBeCloseTo(b.rv[i] ?? Number.NaN, 14);
      expect(a.samplingMs).toBe(5 * MIN);
      expect(b.note).toBeUndefined();
      if (seed === 2) expect(Array.from(a.returnsPerDay)).toEqual([78, 34, 78]); // Jul 2, 3, 5
    }
  });

  it('counts 78 five-minute returns in a full US equities session and 42 on a 13:00 early close', () => {
    const cal = calendarFor('us-equities');
    const bars = randomWalk(utc(2024, 7, 2), utc(2024, 7, 4), 3);
    const result = dailyRealizedVariance(bars, cal, MIN);
    expect(Array.from(result.days)).toEqual([dayNumber(2024, 7, 2), dayNumber(2024, 7, 3)]);
    expect(Array.from(result.returnsPerDay)).toEqual([78, 42]);
    expect(result.minReturns).toBe(39);
  });

  it('never lets pre-market or after-hours bars into a US equities session', () => {
    const cal = calendarFor('us-equities');
    // 24-hour 1m data for three sessions, and wild jumps outside 09:30-16:00 New York.
    const all = randomWalk(utc(2024, 11, 25), utc(2024, 11, 28), 4);
    for (let i = 0; i < all.timestamps.length; i++) {
      if (!cal.isOpen(all.timestamps[i] ?? 0)) {
        all.close[i] = (all.close[i] ?? 0) * (i % 2 === 0 ? 1.5 : 0.6);
      }
    }
    const rows: number[] = [];
    for (let i = 0; i < all.timestamps.length; i++)
      if (cal.isOpen(all.timestamps[i] ?? 0)) rows.push(i);
    const regular = makeBars(
      rows.map((r) => all.timestamps[r] ?? 0),
      rows.map((r) => all.open[r] ?? 0),
      rows.map((r) => all.close[r] ?? 0),
    );
    const withExtended = dailyRealizedVariance(all, cal, MIN);
    const regularOnly = dailyRealizedVariance(regular, cal, MIN);
    expect(Array.from(withExtended.days)).toEqual([25, 26, 27].map((d) => dayNumber(2024, 11, d)));
    expect(Array.from(withExtended.returnsPerDay)).toEqual([78, 78, 78]);
    expect(Array.from(withExtended.rv)).toEqual(Array.from(regularOnly.rv));
    // A jump of log(1.5) squared would be 0.16 on its own; the intraday walk gives far less.
    for (const v of withExtended.rv) expect(v).toBeLessThan(0.01);
  });

  it('gives the same RV from round-the-clock data as from the open bars alone', () => {
    // Long closures (September 2001, a weekend, a DST switch) exercise the skipping of closed bars.
    for (const [name, from, to] of [
      ['us-equities', utc(2001, 9, 7), utc(2001, 9, 19)],
      ['us-equities', utc(2024, 3, 7), utc(2024, 3, 13)],
      ['fx', utc(2024, 3, 6), utc(2024, 3, 13)],
      ['fx', utc(2024, 10, 30), utc(2024, 11, 6)],
    ] as const) {
      const cal = calendarFor(name);
      const all = randomWalk(from, to, 8);
      const rows = Array.from(all.timestamps.keys()).filter((i) =>
        cal.isOpen(all.timestamps[i] ?? 0),
      );
      const open = makeBars(
        rows.map((r) => all.timestamps[r] ?? 0),
        rows.map((r) => all.open[r] ?? 0),
        rows.map((r) => all.close[r] ?? 0),
      );
      const a = dailyRealizedVariance(all, cal, MIN);
      const b = dailyRealizedVariance(open, cal, MIN);
      expect(a.days.length, `${name} ${new Date(from).toISOString()}`).toBeGreaterThan(3);
      expect(Array.from(a.days)).toEqual(Array.from(b.days));
      expect(Array.from(a.returnsPerDay)).toEqual(Array.from(b.returnsPerDay));
      expect(Array.from(a.rv)).toEqual(Array.from(b.rv));
      // FX sessions are 24 h around the DST switches too (the first one here starts before the data).
      if (name === 'fx') expect(new Set(a.returnsPerDay.subarray(1))).toEqual(new Set([288]));
    }
  });

  it('makes 24/7 sessions UTC days of 288 five-minute returns', () => {
    const bars = randomWalk(utc(2024, 1, 1), utc(2024, 1, 4), 5);
    // A jump at midnight between one day's last close and the next day's first open is overnight.
    const midnight = Array.from(bars.timestamps).indexOf(utc(2024, 1, 2));
    for (let i = midnight; i < bars.timestamps.length; i++) {
      bars.open[i] = (bars.open[i] ?? 0) * 2;
      bars.close[i] = (bars.close[i] ?? 0) * 2;
    }
    const result = dailyRealizedVariance(bars, calendarFor('24/7'), MIN);
    expect(Array.from(result.days)).toEqual([1, 2, 3].map((d) => dayNumber(2024, 1, d)));
    expect(Array.from(result.returnsPerDay)).toEqual([288, 288, 288]);
    for (const v of result.rv) expect(v).toBeLessThan(0.01);
  });

  it('uses bars coarser than the sampling as they are, and says so', () => {
    // Hourly bars on UTC hours: 13:00 UTC is 09:00 New York in July, a bar holding 09:30-10:00.
    const cal = calendarFor('us-equities');
    const starts = [12, 13, 14, 15, 16, 17, 18, 19, 20].map((h) => utc(2024, 7, 1, h));
    const logs = [0, 0.01, 0.03, 0.02, -0.01, 0, 0.02, 0.05, 0.2, 0.4];
    const p = (x: number): number => 50 * Math.exp(x);
    const bars = makeBars(
      starts,
      starts.map((_, i) => p(logs[i] ?? 0)),
      starts.map((_, i) => p(logs[i + 1] ?? 0)),
    );
    const result = dailyRealizedVariance(bars, cal, HOUR);
    // Bars 09:00 … 15:00 New York count (7 returns: open→close, then close→close); the 08:00
    // and 16:00 bars do not.
    const expected = [0.02, -0.01, -0.03, 0.01, 0.02, 0.03, 0.15].reduce((s, r) => s + r * r, 0);
    expect(Array.from(result.returnsPerDay)).toEqual([7]);
    expect(result.rv[0]).toBeCloseTo(expected, 14);
    expect(result.samplingMs).toBe(HOUR);
    expect(result.note).toMatch(
      /bars of 1h are coarser than the requested 5m sampling: used as they are/,
    );
  });

  it('uses daily bars on session days only, one open→close return each', () => {
    const cal = calendarFor('us-equities');
    // Fri Nov 29, Sat Nov 30 (a stray weekend row), Mon Dec 2 2024, stamped at 00:00 UTC.
    const bars = makeBars(
      [utc(2024, 11, 29), utc(2024, 11, 30), utc(2024, 12, 2)],
      [100, 100, 100],
      [101, 150, 99],
    );
    const result = dailyRealizedVariance(bars, cal, DAY_MS);
    expect(Array.from(result.days)).toEqual([dayNumber(2024, 11, 29), dayNumber(2024, 12, 2)]);
    expect(result.rv[0]).toBeCloseTo(Math.log(1.01) ** 2, 15);
    expect(result.rv[1]).toBeCloseTo(Math.log(0.99) ** 2, 15);
    expect(result.note).toMatch(/1d/);
  });

  it('drops sessions with fewer returns than the minimum and lists them', () => {
    // Data starts at 12:05 on day 1 (143 returns < 144, the default minimum); day 2 is full.
    const bars = randomWalk(utc(2024, 1, 1, 12, 5), utc(2024, 1, 3), 6);
    const result = dailyRealizedVariance(bars, calendarFor('24/7'), MIN);
    expect(result.minReturns).toBe(144);
    expect(Array.from(result.days)).toEqual([dayNumber(2024, 1, 2)]);
    expect(Array.from(result.dropped.days)).toEqual([dayNumber(2024, 1, 1)]);
    expect(Array.from(result.dropped.returnsPerDay)).toEqual([143]);
    const lenient = dailyRealizedVariance(bars, calendarFor('24/7'), MIN, { minReturns: 100 });
    expect(Array.from(lenient.days)).toEqual([dayNumber(2024, 1, 1), dayNumber(2024, 1, 2)]);
    expect(lenient.dropped.days.length).toBe(0);
  });

  it('rejects unsorted bars, non-positive prices and bad options', () => {
    const cal = calendarFor('24/7');
    const t = utc(2024, 1, 1);
    expect(
      errorOf(() => dailyRealizedVariance(makeBars([t + MIN, t], [1, 1], [1, 1]), cal, MIN))
        .message,
    ).toMatch(/bar 1 at 2024-01-01T00:00:00.000Z does not come after/);
    expect(errorOf(() => dailyRealizedVariance(makeBars([t], [1], [0]), cal, MIN)).message).toMatch(
      /close 0/,
    );
    expect(
      errorOf(() => dailyRealizedVariance(makeBars([t], [1], [1]), cal, MIN, { samplingMs: 0 }))
        .code,
    ).toBe('INVALID_ARGUMENT');
    expect(
      errorOf(() => dailyRealizedVariance(makeBars([t], [1], [1]), cal, MIN, { minReturns: 0 }))
        .code,
    ).toBe('INVALID_ARGUMENT');
  });
});

describe('annualizedVolatility', () => {
  it('is sqrt(periods · RV), with the calendar giving the periods', () => {
    const rv = Float64Array.from([1e-4, 4e-4, 0]);
    const equities = annualizedVolatility(rv, calendarFor('us-equities'));
    expect(equities[0]).toBeCloseTo(Math.sqrt(0.0252), 15); // 0.15875 = 15.9% a year
    expect(equities[1]).toBeCloseTo(2 * Math.sqrt(0.0252), 15);
    expect(equities[2]).toBe(0);
    expect(annualizedVolatility(rv, calendarFor('24/7'))[0]).toBeCloseTo(Math.sqrt(0.0365), 15); // 0.19105
    expect(annualizedVolatility(rv, 260)[1]).toBeCloseTo(Math.sqrt(0.104), 15);
    expect(errorOf(() => annualizedVolatility(rv, 0)).code).toBe('INVALID_ARGUMENT');
  });
});

describe('forwardRealizedVariance', () => {
  it('averages days d+1 … d+h and leaves the last h days NaN', () => {
    const rv = Float64Array.from([1, 2, 3, 4, 5, 6]);
    const target = forwardRealizedVariance(rv, 2);
    expect(Array.from(target.subarray(0, 4))).toEqual([2.5, 3.5, 4.5, 5.5]);
    expect(Number.isNaN(target[4])).toBe(true);
    expect(Number.isNaN(target[5])).toBe(true);
    expect(forwardRealizedVariance(rv).every(Number.isNaN)).toBe(true); // 22 > 6 days
  });

  it('never depends on day d or earlier, and does depend on day d+1', () => {
    const next = rng(7);
    const rv = Float64Array.from({ length: 80 }, () => next() * 1e-4);
    const base = forwardRealizedVariance(rv, 22);
    for (let d = 0; d + 22 < rv.length; d++) {
      const past = Float64Array.from(rv);
      for (let j = 0; j <= d; j++) past[j] = next();
      expect(forwardRealizedVariance(past, 22)[d]).toBe(base[d]);
      const future = Float64Array.from(rv);
      future[d + 1] = (future[d + 1] ?? 0) + 1e-3;
      expect(forwardRealizedVariance(future, 22)[d]).not.toBe(base[d]);
      // Day d + 23 is past the horizon.
      if (d + 23 < rv.length) {
        const beyond = Float64Array.from(rv);
        beyond[d + 23] = 1;
        expect(forwardRealizedVariance(beyond, 22)[d]).toBe(base[d]);
      }
    }
  });

  it('rejects a horizon that is not a positive integer', () => {
    expect(errorOf(() => forwardRealizedVariance([1, 2], 0)).code).toBe('INVALID_ARGUMENT');
    expect(errorOf(() => forwardRealizedVariance([1, 2], 1.5)).code).toBe('INVALID_ARGUMENT');
  });
});

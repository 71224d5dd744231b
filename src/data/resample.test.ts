import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import { allocateBars, type Bars } from './bars.js';
import { calendarFor } from './calendar.js';
import { resampleBars } from './resample.js';
import { parseTimeframe, timeframeMs, type Timeframe } from './timeframe.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const crypto = calendarFor('24/7');
const equities = calendarFor('us-equities');

/** A seeded PRNG (mulberry32), uniform in [0, 1). */
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

/** Bars from plain rows [t, open, high, low, close, volume, adjClose?]. */
function barsOf(rows: readonly (readonly number[])[], withAdj = false): Bars {
  const bars = allocateBars(rows.length, withAdj);
  rows.forEach(([t, o, h, l, c, v, adj], i) => {
    bars.timestamps[i] = t ?? 0;
    bars.open[i] = o ?? 0;
    bars.high[i] = h ?? 0;
    bars.low[i] = l ?? 0;
    bars.close[i] = c ?? 0;
    bars.volume[i] = v ?? 0;
    if (bars.adjClose !== undefined) bars.adjClose[i] = adj ?? 0;
  });
  return bars;
}

/**
 * Random 1-minute bars over about three days: a random walk, random volumes, an adjusted close,
 * and holes (single bars, short runs, and a few hours at a time) so that some buckets are empty.
 */
function randomMinuteBars(seed: number): Bars {
  const random = rng(seed);
  const start = Date.UTC(2024, 2, 1) + Math.floor(random() * 240) * MIN;
  const slots = 3 * 1440 + Math.floor(random() * 600);
  const rows: number[][] = [];
  let price = 100;
  for (let s = 0; s < slots; s++) {
    const u = random();
    if (u < 0.05) continue; // a missing bar
    if (u < 0.052) {
      s += 1 + Math.floor(random() * 30); // a short run missing
      continue;
    }
    if (u < 0.0525) {
      s += 5 * 60 + Math.floor(random() * 300); // hours missing: whole buckets empty
      continue;
    }
    const open = price;
    const close = open * Math.exp((random() - 0.5) * 0.004);
    const high = Math.max(open, close) * (1 + random() * 0.001);
    const low = Math.min(open, close) * (1 - random() * 0.001);
    price = close;
    rows.push([
      start + s * MIN,
      open,
      high,
      low,
      close,
      Math.round(random() * 1000) / 10,
      close * 0.98,
    ]);
  }
  return barsOf(rows, true);
}

/** The obvious aggregation: group rows by bucket in a Map, then first/max/min/last/sum. */
function bruteForce(bars: Bars, fromMs: number, toMs: number, keepIncomplete: boolean): number[][] {
  const groups = new Map<number, number[]>();
  bars.timestamps.forEach((t, i) => {
    const bucket = Math.floor(t / toMs) * toMs;
    const rows = groups.get(bucket) ?? [];
    rows.push(i);
    groups.set(bucket, rows);
  });
  const at = (a: Float64Array | undefined, i: number | undefined): number => a?.[i ?? -1] ?? NaN;
  const out = [...groups.keys()]
    .sort((a, b) => a - b)
    .map((bucket) => {
      const rows = groups.get(bucket) ?? [];
      return [
        bucket,
        at(bars.open, rows[0]),
        Math.max(...rows.map((i) => at(bars.high, i))),
        Math.min(...rows.map((i) => at(bars.low, i))),
        at(bars.close, rows.at(-1)),
        rows.reduce((sum, i) => sum + at(bars.volume, i), 0),
        at(bars.adjClose, rows.at(-1)),
      ];
    });
  // 24/7: the last bucket is incomplete when a slot after the last bar is still inside it.
  const last = bars.timestamps.at(-1) ?? 0;
  if (!keepIncomplete && Math.floor((last + fromMs) / toMs) * toMs === out.at(-1)?.[0]) out.pop();
  return out;
}

/** Resampled bars as plain rows, like {@link bruteForce}'s. */
function rowsOf(bars: Bars): number[][] {
  return [...bars.timestamps].map((t, i) => [
    t,
    bars.open[i] ?? NaN,
    bars.high[i] ?? NaN,
    bars.low[i] ?? NaN,
    bars.close[i] ?? NaN,
    bars.volume[i] ?? NaN,
    bars.adjClose?.[i] ?? NaN,
  ]);
}

describe('resampleBars against a brute-force aggregation', () => {
  const targets: Timeframe[] = ['5m', '15m', '1h', '4h', '1d'];
  for (const seed of [1, 2, 3]) {
    const bars = randomMinuteBars(seed);
    for (const to of targets) {
      it(`seed ${seed}: 1m → ${to}`, () => {
        const toMs = timeframeMs(to);
        for (const keepIncomplete of [false, true]) {
          const result = resampleBars(bars, { from: '1m', to, calendar: crypto, keepIncomplete });
          const expected = bruteForce(bars, MIN, toMs, keepIncomplete);
          const actual = rowsOf(result.bars);
          expect(actual.map((r) => r[0])).toEqual(expected.map((r) => r[0]));
          actual.forEach((r, k) => {
            const e = expected[k] ?? [];
            // open, high, low, close and adjusted close are picked, so exact; volume is a sum.
            expect([r[1], r[2], r[3], r[4], r[6]]).toEqual([e[1], e[2], e[3], e[4], e[6]]);
            expect(r[5]).toBeCloseTo(e[5] ?? NaN, 9);
          });
          const incomplete = bruteForce(bars, MIN, toMs, true).length !== expected.length;
          expect(result.droppedIncomplete).toBe(!keepIncomplete && incomplete);
        }
      });
    }
  }

  it('skips empty buckets and never invents them', () => {
    // Bars at 00:00–01:59, then nothing until 05:00–05:59: no bars for 02:00, 03:00 or 04:00.
    const start = Date.UTC(2024, 0, 1);
    const offsets = [
      ...Array.from({ length: 120 }, (_, i) => i),
      ...Array.from({ length: 60 }, (_, i) => 300 + i),
    ];
    const bars = barsOf(offsets.map((m) => [start + m * MIN, 10, 11, 9, 10, 1]));
    const { bars: hourly } = resampleBars(bars, { from: '1m', to: '1h', calendar: crypto });
    expect([...hourly.timestamps]).toEqual([0, 1, 5].map((h) => start + h * HOUR));
    expect([...hourly.volume]).toEqual([60, 60, 60]);
  });
});

describe('resampleBars: alignment and the last bar', () => {
  /** 1-minute bars at the given minute offsets from `start`, each a unit above the last. */
  const minutes = (start: number, offsets: readonly number[]): Bars =>
    barsOf(offsets.map((m, i) => [start + m * MIN, 10 + i, 11 + i, 9 + i, 10.5 + i, 1]));
  const T0 = Date.UTC(2024, 0, 1);

  it('aligns buckets to UTC multiples of the target, whatever the first bar', () => {
    // 00:07 … 00:19: buckets 00:05, 00:10 and 00:15 (00:05 holds 00:07–00:09 only).
    const bars = minutes(T0, [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const { bars: out, droppedIncomplete } = resampleBars(bars, {
      from: '1m',
      to: '5m',
      calendar: crypto,
    });
    expect([...out.timestamps]).toEqual([T0 + 5 * MIN, T0 + 10 * MIN, T0 + 15 * MIN]);
    expect([...out.open]).toEqual([10, 13, 18]);
    expect([...out.high]).toEqual([13, 18, 23]);
    expect([...out.low]).toEqual([9, 12, 17]);
    expect([...out.close]).toEqual([12.5, 17.5, 22.5]);
    expect([...out.volume]).toEqual([3, 5, 5]);
    expect(droppedIncomplete).toBe(false);
  });

  it('drops an incomplete last bar, and keeps it when asked', () => {
    const bars = minutes(T0, [0, 1, 2, 3, 4, 5, 6]);
    const dropped = resampleBars(bars, { from: '1m', to: '5m', calendar: crypto });
    expect([...dropped.bars.timestamps]).toEqual([T0]);
    expect(dropped.droppedIncomplete).toBe(true);
    const kept = resampleBars(bars, {
      from: '1m',
      to: '5m',
      calendar: crypto,
      keepIncomplete: true,
    });
    expect([...kept.bars.timestamps]).toEqual([T0, T0 + 5 * MIN]);
    expect([...kept.bars.volume]).toEqual([5, 2]);
    expect(kept.droppedIncomplete).toBe(false);
  });

  it('keeps a last bucket whose final slot is there, even with holes inside it', () => {
    const bars = minutes(T0, [0, 1, 2, 3, 4, 5, 9]);
    const { bars: out, droppedIncomplete } = resampleBars(bars, {
      from: '1m',
      to: '5m',
      calendar: crypto,
    });
    expect([...out.timestamps]).toEqual([T0, T0 + 5 * MIN]);
    expect([...out.volume]).toEqual([5, 2]);
    expect(droppedIncomplete).toBe(false);
  });

  it('returns nothing for nothing', () => {
    const { bars, droppedIncomplete } = resampleBars(allocateBars(0), {
      from: '1m',
      to: '1h',
      calendar: crypto,
    });
    expect(bars.timestamps.length).toBe(0);
    expect(droppedIncomplete).toBe(false);
  });
});

describe('resampleBars: daily bars by trading session (us-equities)', () => {
  /** 30-minute bars of a NYSE session, 09:30–15:30 New York (January: UTC-5), plus extras. */
  function session(y: number, m: number, d: number, count = 13, base = 100): number[][] {
    const open = Date.UTC(y, m - 1, d, 14, 30);
    return Array.from({ length: count }, (_, i) => [
      open + i * 30 * MIN,
      base + i,
      base + i + 2,
      base + i - 1,
      base + i + 1,
      10,
    ]);
  }

  it('stamps each session at its date, 00:00 UTC, and aggregates it whole', () => {
    const bars = barsOf([...session(2024, 1, 4), ...session(2024, 1, 5, 13, 200)]);
    const { bars: daily, droppedIncomplete } = resampleBars(bars, {
      from: '30m',
      to: '1d',
      calendar: equities,
    });
    expect(rowsOf(daily).map((r) => r.slice(0, 6))).toEqual([
      [Date.UTC(2024, 0, 4), 100, 114, 99, 113, 130],
      [Date.UTC(2024, 0, 5), 200, 214, 199, 213, 130],
    ]);
    expect(droppedIncomplete).toBe(false);
  });

  it('puts after-hours bars past midnight UTC in their New York session (utc days split them)', () => {
    // 2024-01-04 19:30 New York is 00:30 UTC on the 5th.
    const late = [Date.UTC(2024, 0, 5, 0, 30), 120, 121, 119, 120.5, 3];
    const bars = barsOf([...session(2024, 1, 4), late, ...session(2024, 1, 5, 13, 200)]);
    const bySession = resampleBars(bars, { from: '30m', to: '1d', calendar: equities });
    expect([...bySession.bars.timestamps]).toEqual([Date.UTC(2024, 0, 4), Date.UTC(2024, 0, 5)]);
    expect([...bySession.bars.close]).toEqual([120.5, 213]);
    expect([...bySession.bars.volume]).toEqual([133, 130]);
    const byUtcDay = resampleBars(bars, {
      from: '30m',
      to: '1d',
      calendar: equities,
      daily: 'utc',
    });
    expect([...byUtcDay.bars.close]).toEqual([113, 213]);
    expect([...byUtcDay.bars.open]).toEqual([100, 120]);
  });

  it('keeps an after-hours bar stamped exactly at midnight UTC in its New York session', () => {
    // 2024-01-04 19:00 New York is 00:00 UTC on the 5th: still the session of the 4th.
    const late = [Date.UTC(2024, 0, 5, 0, 0), 120, 121, 119, 120.5, 3];
    const bars = barsOf([...session(2024, 1, 4), late, ...session(2024, 1, 5, 13, 200)]);
    const { bars: daily } = resampleBars(bars, { from: '30m', to: '1d', calendar: equities });
    expect([...daily.timestamps]).toEqual([Date.UTC(2024, 0, 4), Date.UTC(2024, 0, 5)]);
    expect([...daily.volume]).toEqual([133, 130]);
  });

  it('drops a session that is still trading, and keeps one closed early by the calendar', () => {
    const open = barsOf([...session(2024, 1, 4), ...session(2024, 1, 5, 6)]);
    const dropped = resampleBars(open, { from: '30m', to: '1d', calendar: equities });
    expect([...dropped.bars.timestamps]).toEqual([Date.UTC(2024, 0, 4)]);
    expect(dropped.droppedIncomplete).toBe(true);
    // 2024-11-29, the day after Thanksgiving, closes at 13:00: 09:30–12:30 is the whole session.
    const early = barsOf([...session(2024, 11, 29, 7)]);
    const kept = resampleBars(early, { from: '30m', to: '1d', calendar: equities });
    expect([...kept.bars.timestamps]).toEqual([Date.UTC(2024, 10, 29)]);
    expect(kept.droppedIncomplete).toBe(false);
  });

  it('resamples intraday equities bars on UTC boundaries, the session end complete', () => {
    const bars = barsOf(session(2024, 1, 4));
    const { bars: hourly, droppedIncomplete } = resampleBars(bars, {
      from: '30m',
      to: '1h',
      calendar: equities,
    });
    // 14:30 alone in the 14:00 bucket, then pairs; 20:30 (15:30 New York) closes the last one.
    expect([...hourly.timestamps]).toEqual(
      [14, 15, 16, 17, 18, 19, 20].map((h) => Date.UTC(2024, 0, 4, h)),
    );
    expect([...hourly.volume]).toEqual([10, 20, 20, 20, 20, 20, 20]);
    expect(droppedIncomplete).toBe(false);
  });
});

describe('resampleBars: targets', () => {
  const hourly = barsOf(
    Array.from({ length: 8 }, (_, i) => [Date.UTC(2024, 0, 1, i), 10, 11, 9, 10, 1]),
  );

  it('rejects a finer or equal target, with a hint', () => {
    const finer = errorOf(() => resampleBars(hourly, { from: '1h', to: '1m', calendar: crypto }));
    expect(finer.code).toBe('INVALID_ARGUMENT');
    expect(finer.message).toBe(
      'cannot resample 1h to 1m: the target must be a larger multiple of the source',
    );
    expect(finer.hint).toContain('--to 1d');
    expect(
      errorOf(() => resampleBars(hourly, { from: '1h', to: '1h', calendar: crypto })).message,
    ).toContain('cannot resample 1h to 1h');
  });

  it('has no 7m timeframe to resample to', () => {
    const error = errorOf(() => parseTimeframe('7m', '--to timeframe'));
    expect(error.message).toBe(
      '--to timeframe "7m" is not allowed: expected one of 1m, 5m, 15m, 30m, 1h, 4h, 1d',
    );
  });

  it('resamples 1h to 4h', () => {
    const { bars } = resampleBars(hourly, { from: '1h', to: '4h', calendar: crypto });
    expect([...bars.timestamps]).toEqual([Date.UTC(2024, 0, 1, 0), Date.UTC(2024, 0, 1, 4)]);
    expect([...bars.volume]).toEqual([4, 4]);
  });

  it('resamples 4h to 1d', () => {
    const fourHourly = barsOf(
      Array.from({ length: 12 }, (_, i) => [Date.UTC(2024, 0, 1, 4 * i), 10 + i, 11 + i, 9, 10, 1]),
    );
    const { bars } = resampleBars(fourHourly, { from: '4h', to: '1d', calendar: crypto });
    expect(rowsOf(bars).map((r) => r.slice(0, 6))).toEqual([
      [Date.UTC(2024, 0, 1), 10, 16, 9, 10, 6],
      [Date.UTC(2024, 0, 2), 16, 22, 9, 10, 6],
    ]);
  });

  it('leaves the input untouched', () => {
    const before = rowsOf(hourly);
    resampleBars(hourly, { from: '1h', to: '4h', calendar: crypto });
    expect(rowsOf(hourly)).toEqual(before);
  });
});

import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { directionalMovement } from './adx.js';
import { atrRatio, averageTrueRange, trueRange } from './atr.js';
import { bollinger } from './bollinger.js';
import { cci } from './cci.js';
import { macd, relativeMacd } from './macd.js';
import { obvRatio, onBalanceVolume } from './obv.js';
import { logReturns, rollingVolatility } from './returns.js';
import { rsi } from './rsi.js';
import { ultimateOscillator } from './ultimate-oscillator.js';
import { volumeZScore } from './volume-zscore.js';

/** mulberry32: a tiny seeded PRNG, so every run sees the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Ohlcv {
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** A random walk with wicks, some unchanged closes and some zero-volume bars. */
function randomOhlcv(n: number, seed: number, level = 100): Ohlcv {
  const random = prng(seed);
  const bars: Ohlcv = {
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
  let price = level;
  for (let t = 0; t < n; t++) {
    const open = price;
    if (random() > 0.1) price *= Math.exp((random() - 0.5) * 0.04);
    bars.close[t] = price;
    bars.high[t] = Math.max(open, price) * (1 + random() * 0.01);
    bars.low[t] = Math.min(open, price) * (1 - random() * 0.01);
    bars.volume[t] = random() < 0.05 ? 0 : 1000 * Math.exp(random() * 3);
  }
  return bars;
}

const f64 = (values: number[]): Float64Array => Float64Array.from(values);
const at = (x: Float64Array, t: number): number => x[t] ?? NaN;

/** Every value within 1e-9 relative of the reference (below `scale`, 1e-9 · scale absolute). */
function expectSeries(actual: Float64Array, expected: number[], scale: number, what: string): void {
  expect(actual.length, what).toBe(expected.length);
  expected.forEach((want, t) => {
    const got = at(actual, t);
    if (Number.isNaN(want)) {
      if (!Number.isNaN(got)) expect.fail(`${what} at ${t}: expected NaN, got ${got}`);
      return;
    }
    const tolerance = 1e-9 * Math.max(Math.abs(want), scale);
    if (!(Math.abs(got - want) <= tolerance)) {
      expect.fail(`${what} at ${t}: ${got} differs from ${want} by more than ${tolerance}`);
    }
  });
}

/*
 * A small fixed series for the hand-computed checks below.
 *   bar     0    1    2    3    4    5
 *   high   10   12   13   14   13   12
 *   low     8    9   11   10   11   10
 *   close   9   11   12   13   11   10
 *   volume 100 150  120  200  180  160
 */
const SMALL = {
  high: f64([10, 12, 13, 14, 13, 12]),
  low: f64([8, 9, 11, 10, 11, 10]),
  close: f64([9, 11, 12, 13, 11, 10]),
  volume: f64([100, 150, 120, 200, 180, 160]),
};

describe('indicators against published and hand-computed values', () => {
  it("RSI(14) on Wilder's worked example", () => {
    // Source: the closing prices of Wilder's RSI example as reproduced on StockCharts' ChartSchool
    // "Relative Strength Index (RSI)" page (and its spreadsheet). Its published RSI column reads
    // 70.53, 66.32, 66.55 for bars 14–16; the page rounds the averages to two decimals, so the exact
    // values differ slightly. By hand: the 14 changes of bars 1–14 are
    //   −0.25 +0.06 −0.54 +0.72 +0.50 +0.27 +0.32 +0.42 +0.24 −0.19 +0.14 −0.42 +0.67 0.00
    // gains sum 3.34, losses 1.40, so RSI[14] = 100 · 3.34 / (3.34 + 1.40) = 70.4641350…
    // Bar 15 changes by −0.28: avgGain = (3.34/14 · 13 + 0) / 14 = 0.2215306…,
    // avgLoss = (1.40/14 · 13 + 0.28) / 14 = 0.1128571…, RSI = 100 · 0.22153 / 0.33439 = 66.2496185…
    const close = f64([
      44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.1, 45.42, 45.84, 46.08, 45.89, 46.03, 45.61,
      46.28, 46.28, 46.0, 46.03,
    ]);
    const values = rsi(close, { period: 14 });
    expect(at(values, 13)).toBeNaN();
    expect(at(values, 14)).toBeCloseTo(100 * (3.34 / 4.74), 9);
    expect(at(values, 15)).toBeCloseTo(66.24961855355508, 9);
    // Bar 16 (+0.03), exact: 66.4809418…; the published, rounded figures agree within 0.1.
    expect(at(values, 16)).toBeCloseTo(66.48094183471267, 9);
    expect(Math.abs(at(values, 14) - 70.53)).toBeLessThan(0.1);
    expect(Math.abs(at(values, 15) - 66.32)).toBeLessThan(0.1);
    expect(Math.abs(at(values, 16) - 66.55)).toBeLessThan(0.1);
  });

  it('RSI is 100 on a steady rise, 0 on a steady fall, and 50 when nothing moves', () => {
    const rise = f64([1, 2, 3, 4, 5]);
    expect(at(rsi(rise, { period: 3 }), 4)).toBe(100);
    expect(at(rsi(rise.reverse(), { period: 3 }), 4)).toBe(0);
    expect(at(rsi(f64([7, 7, 7, 7, 7]), { period: 3 }), 4)).toBe(50);
  });

  it('true range and ATR(3)', () => {
    // TR: bar 0 has no previous close, so high − low = 2; then max(high, prevClose) − min(low, prevClose):
    //   bar 1: 12 − min(9, 9) = 3; bar 2: 13 − 11 = 2; bar 3: max(14, 12) − min(10, 12) = 4;
    //   bar 4: 13 − 11 = 2; bar 5: 12 − 10 = 2.
    // ATR: bar 2 = (2 + 3 + 2) / 3 = 7/3; bar 3 = (7/3 · 2 + 4) / 3 = 26/9; bar 4 = (26/9 · 2 + 2) / 3
    // = 70/27; bar 5 = (70/27 · 2 + 2) / 3 = 194/81.
    expect(Array.from(trueRange(SMALL.high, SMALL.low, SMALL.close))).toEqual([2, 3, 2, 4, 2, 2]);
    const atr = averageTrueRange(SMALL.high, SMALL.low, SMALL.close, { period: 3 });
    expectSeries(atr, [NaN, NaN, 7 / 3, 26 / 9, 70 / 27, 194 / 81], 1, 'atr');
    // As a fraction of the close: 26/9 / 13 = 2/9.
    const ratio = atrRatio(SMALL.high, SMALL.low, SMALL.close, { period: 3 });
    expect(at(ratio, 3)).toBeCloseTo(2 / 9, 12);
  });

  it('DX and ADX(2)', () => {
    // +DM / −DM (up = high − prevHigh, down = prevLow − low; only the larger counts, if positive):
    //   bar 1: up 2, down −1 → +2; bar 2: up 1, down −2 → +1; bar 3: up 1 = down 1 → neither;
    //   bar 4: both −1 → neither; bar 5: up −1, down 1 → −DM 1.
    // Wilder(2) from bar 1 of TR (3, 2, 4, 2, 2): 2.5, 3.25, 2.625, 2.3125 at bars 2–5;
    // of +DM (2, 1, 0, 0, 0): 1.5, 0.75, 0.375, 0.1875; of −DM (0, 0, 0, 0, 1): 0, 0, 0, 0.5.
    // +DI = 60, 23.08, 14.29, 8.11 and −DI = 0, 0, 0, 21.62, so DX = 100, 100, 100 and at bar 5
    // 100 · (50 − 18.75) / (50 + 18.75) = 500/11. ADX(2) seeds at bar 3 with (100 + 100) / 2 = 100,
    // bar 4: 100, bar 5: 100 + (500/11 − 100) / 2 = 800/11.
    const dmi = directionalMovement(SMALL.high, SMALL.low, SMALL.close, { period: 2 });
    expectSeries(dmi.plusDi, [NaN, NaN, 60, 75 / 3.25, 37.5 / 2.625, 18.75 / 2.3125], 1, '+DI');
    expectSeries(dmi.minusDi, [NaN, NaN, 0, 0, 0, 50 / 2.3125], 1, '−DI');
    expectSeries(dmi.dx, [NaN, NaN, 100, 100, 100, 500 / 11], 1, 'dx');
    expectSeries(dmi.adx, [NaN, NaN, NaN, 100, 100, 800 / 11], 1, 'adx');
  });

  it('CCI(3)', () => {
    // Typical prices (h + l + c) / 3 in ninths: 81, 96, 108, 111, 105, 96.
    //   bar 2: mean 95/9, deviations 14, 1, 13 (/9) → MD 28/27; CCI = (13/9) / (0.015 · 28/27) = 92.857…
    //   bar 3: mean 105/9, deviations 9, 3, 6 → MD 2/3; CCI = (6/9) / 0.01 = 66.67
    //   bar 4: mean 12, deviations 0, 3, 3 → MD 2/9; CCI = (−3/9) / (0.03/9) = −100
    //   bar 5: mean 104/9, deviations 7, 1, 8 → MD 16/27; CCI = (−8/9) / (0.015 · 16/27) = −100
    const values = cci(SMALL.high, SMALL.low, SMALL.close, { period: 3 });
    expectSeries(values, [NaN, NaN, 13 / 9 / (0.015 * (28 / 27)), 200 / 3, -100, -100], 1, 'cci');
  });

  it('Bollinger %B and bandwidth (3, 2)', () => {
    // bar 2: closes 9, 11, 12: mean 32/3, population variance (25 + 1 + 16) / 27 = 14/9, σ = √14 / 3;
    //   %B = (12 − (mean − 2σ)) / 4σ = 0.5 + (4/3) / 4σ = 0.5 + 1/√14; width = 4σ / mean = √14 / 8.
    // bar 3: 11, 12, 13: mean 12, σ = √(2/3); %B = 0.5 + 1 / 4σ = 0.5 + √6 / 8; width = σ / 3.
    // bar 4: 12, 13, 11: same σ, %B = 0.5 − √6 / 8.
    const { percentB, bandwidth } = bollinger(SMALL.close, { period: 3, stdDevs: 2 });
    const sigma = Math.sqrt(2 / 3);
    expectSeries(
      percentB.subarray(0, 5),
      [NaN, NaN, 0.5 + 1 / Math.sqrt(14), 0.5 + Math.sqrt(6) / 8, 0.5 - Math.sqrt(6) / 8],
      1,
      '%B',
    );
    expectSeries(
      bandwidth.subarray(0, 5),
      [NaN, NaN, Math.sqrt(14) / 8, sigma / 3, sigma / 3],
      1,
      'bandwidth',
    );
  });

  it('a flat window reads %B 0.5, bandwidth 0, CCI 0 and volume z-score 0', () => {
    const flat = f64([3, 3, 3, 3]);
    const bands = bollinger(flat, { period: 3 });
    expect(at(bands.percentB, 3)).toBe(0.5);
    expect(at(bands.bandwidth, 3)).toBe(0);
    expect(at(cci(flat, flat, flat, { period: 3 }), 3)).toBe(0);
    expect(at(volumeZScore(f64([0, 0, 0, 0]), { window: 3 }), 3)).toBe(0);
  });

  it('Ultimate Oscillator (1, 2, 3)', () => {
    // From bar 1: BP = close − min(low, prevClose), TR = max(high, prevClose) − min(low, prevClose):
    //   BP 2, 1, 3, 0, 0 and TR 3, 2, 4, 2, 2 for bars 1–5.
    // bar 3: A1 = 3/4, A2 = (1 + 3) / (2 + 4) = 2/3, A3 = (2 + 1 + 3) / (3 + 2 + 4) = 2/3;
    //   UO = 100 · (4 · 3/4 + 2 · 2/3 + 2/3) / 7 = 500/7.
    // bar 4: A1 = 0, A2 = 3/6, A3 = 4/8 → 100 · (0 + 1 + 0.5) / 7 = 150/7.
    // bar 5: A1 = 0, A2 = 0, A3 = 3/8 → 100 · 0.375 / 7 = 37.5/7.
    const values = ultimateOscillator(SMALL.high, SMALL.low, SMALL.close, {
      short: 1,
      medium: 2,
      long: 3,
    });
    expectSeries(values, [NaN, NaN, NaN, 500 / 7, 150 / 7, 37.5 / 7], 1, 'uo');
  });

  it('OBV and the OBV ratio (2)', () => {
    // Signed volume from bar 1: +150, +120, +200, −180, −160, so OBV = 0, 150, 270, 470, 290, 130.
    // Ratio over 2 bars: bar 2: 270 / 270 = 1; bar 3: 320 / 320 = 1; bar 4: (200 − 180) / 380;
    // bar 5: −340 / 340 = −1.
    expect(Array.from(onBalanceVolume(SMALL.close, SMALL.volume))).toEqual([
      0, 150, 270, 470, 290, 130,
    ]);
    const ratio = obvRatio(SMALL.close, SMALL.volume, { window: 2 });
    expectSeries(ratio, [NaN, NaN, 1, 1, 20 / 380, -1], 1, 'obv ratio');
  });

  it('MACD (2, 3, 2)', () => {
    // EMA(2), alpha 2/3, seeded at bar 1 with (9 + 11) / 2 = 10: 34/3, 112/9, 310/27, 850/81.
    // EMA(3), alpha 1/2, seeded at bar 2 with (9 + 11 + 12) / 3 = 32/3: 71/6, 137/12, 257/24.
    // Line (bars 2–5): 2/3, 11/18, 7/108, −139/648.
    // Signal EMA(2) of the line, seeded at bar 3 with (2/3 + 11/18) / 2 = 23/36:
    //   bar 4: 23/36 + 2/3 · (7/108 − 23/36) = 83/324; bar 5: 83/324 + 2/3 · (−139/648 − 83/324) = −14/243.
    const series = macd(SMALL.close, { fast: 2, slow: 3, signal: 2 });
    expectSeries(series.line, [NaN, NaN, 2 / 3, 11 / 18, 7 / 108, -139 / 648], 1, 'line');
    expectSeries(series.signal, [NaN, NaN, NaN, 23 / 36, 83 / 324, -14 / 243], 1, 'signal');
    const hist = [NaN, NaN, NaN, 11 / 18 - 23 / 36, 7 / 108 - 83 / 324, -139 / 648 + 14 / 243];
    expectSeries(series.histogram, hist, 1, 'histogram');
    // Scale-free: each divided by the bar's close.
    const relative = relativeMacd(SMALL.close, { fast: 2, slow: 3, signal: 2 });
    expectSeries(
      relative.histogram,
      hist.map((h, t) => h / at(SMALL.close, t)),
      1,
      'relative histogram',
    );
  });

  it('volume z-score (3)', () => {
    // bar 2: volumes 100, 150, 120: mean 370/3, deviations −70/3, 80/3, −10/3, population variance
    // (4900 + 6400 + 100) / 27 = 3800/9, so z = (−10/3) / √(3800/9) = −10 / √3800 · … = −0.16222…
    const z = volumeZScore(SMALL.volume, { window: 3 });
    expect(at(z, 2)).toBeCloseTo(-10 / 3 / Math.sqrt(3800 / 9), 12);
    // bar 5: 200, 180, 160 → mean 180, variance 800/3, z = −20 / √(800/3) = −√1.5.
    expect(at(z, 5)).toBeCloseTo(-Math.sqrt(1.5), 12);
  });

  it('log returns and volatility', () => {
    // ln(12/9) over 2 bars at bar 2; volatility(2) at bar 2 = sample std of ln(11/9), ln(12/11).
    expect(at(logReturns(SMALL.close, 2), 2)).toBeCloseTo(Math.log(12 / 9), 14);
    const r1 = Math.log(11 / 9);
    const r2 = Math.log(12 / 11);
    const vol = rollingVolatility(SMALL.close, { window: 2 });
    expect(at(vol, 1)).toBeNaN();
    expect(at(vol, 2)).toBeCloseTo(Math.abs(r1 - r2) / Math.sqrt(2), 12);
  });
});

/* Naive references: the textbook definitions, written as directly as possible. */

const range = (from: number, to: number): number[] =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
const windowOf = (x: Float64Array, t: number, w: number): number[] =>
  range(t - w + 1, t + 1).map((i) => at(x, i));
/** All values equal: the definitions' "no spread" case, which a computed std (≈ 1e-18) would miss. */
const isFlat = (values: number[]): boolean => values.every((v) => v === values[0]);
const std = (values: number[], ddof: number): number => {
  const m = sum(values) / values.length;
  return Math.sqrt(sum(values.map((v) => (v - m) ** 2)) / (values.length - ddof));
};

function naiveTrueRange(b: Ohlcv, t: number): number {
  if (t === 0) return at(b.high, 0) - at(b.low, 0);
  const pc = at(b.close, t - 1);
  return Math.max(
    at(b.high, t) - at(b.low, t),
    Math.abs(at(b.high, t) - pc),
    Math.abs(at(b.low, t) - pc),
  );
}

/** Wilder's average in its textbook form: (previous · (n − 1) + value) / n, seeded with a mean. */
function naiveWilder(
  values: (t: number) => number,
  n: number,
  first: number,
  length: number,
): number[] {
  const out = new Array<number>(length).fill(NaN);
  const seedAt = first + n - 1;
  if (seedAt >= length) return out;
  let average = sum(range(first, seedAt + 1).map(values)) / n;
  out[seedAt] = average;
  for (let t = seedAt + 1; t < length; t++) {
    average = (average * (n - 1) + values(t)) / n;
    out[t] = average;
  }
  return out;
}

function naiveEma(values: number[], n: number, first: number): number[] {
  const out = new Array<number>(values.length).fill(NaN);
  const seedAt = first + n - 1;
  if (seedAt >= values.length) return out;
  const k = 2 / (n + 1);
  let average = sum(values.slice(first, seedAt + 1)) / n;
  out[seedAt] = average;
  for (let t = seedAt + 1; t < values.length; t++) {
    average = (values[t] ?? NaN) * k + average * (1 - k);
    out[t] = average;
  }
  return out;
}

const references = {
  logReturns: (b: Ohlcv, h: number) =>
    range(0, b.close.length).map((t) =>
      t < h ? NaN : Math.log(at(b.close, t) / at(b.close, t - h)),
    ),
  volatility: (b: Ohlcv, w: number) => {
    const r = f64(
      range(0, b.close.length).map((t) =>
        t < 1 ? NaN : Math.log(at(b.close, t) / at(b.close, t - 1)),
      ),
    );
    return range(0, r.length).map((t) => (t < w ? NaN : std(windowOf(r, t, w), 1)));
  },
  rsi: (b: Ohlcv, n: number) => {
    const change = (t: number) => at(b.close, t) - at(b.close, t - 1);
    const gains = naiveWilder((t) => Math.max(change(t), 0), n, 1, b.close.length);
    const losses = naiveWilder((t) => Math.max(-change(t), 0), n, 1, b.close.length);
    return gains.map((g, t) => {
      const l = losses[t] ?? NaN;
      if (g + l === 0) return 50;
      return 100 - 100 / (1 + g / l);
    });
  },
  macdHistogram: (b: Ohlcv, fast: number, slow: number, signal: number) => {
    const close = Array.from(b.close);
    const fastEma = naiveEma(close, fast, 0);
    const slowEma = naiveEma(close, slow, 0);
    const line = close.map((_, t) => (fastEma[t] ?? NaN) - (slowEma[t] ?? NaN));
    const signalLine = naiveEma(line, signal, slow - 1);
    return line.map((value, t) => (value - (signalLine[t] ?? NaN)) / (close[t] ?? NaN));
  },
  cci: (b: Ohlcv, n: number) => {
    const tp = f64(
      range(0, b.close.length).map((t) => (at(b.high, t) + at(b.low, t) + at(b.close, t)) / 3),
    );
    return range(0, tp.length).map((t) => {
      if (t < n - 1) return NaN;
      const w = windowOf(tp, t, n);
      const mean = sum(w) / n;
      const md = sum(w.map((v) => Math.abs(v - mean))) / n;
      return isFlat(w) ? 0 : (at(tp, t) - mean) / (0.015 * md);
    });
  },
  adx: (b: Ohlcv, n: number) => {
    // Wilder's own form: running sums TR14 = TR14 − TR14 / 14 + TR (the ratios equal the averages').
    const length = b.close.length;
    const dx = new Array<number>(length).fill(NaN);
    let tr = 0;
    let plus = 0;
    let minus = 0;
    for (let t = 1; t < length; t++) {
      const up = at(b.high, t) - at(b.high, t - 1);
      const down = at(b.low, t - 1) - at(b.low, t);
      const pdm = up > down && up > 0 ? up : 0;
      const mdm = down > up && down > 0 ? down : 0;
      if (t <= n) {
        tr += naiveTrueRange(b, t);
        plus += pdm;
        minus += mdm;
      } else {
        tr = tr - tr / n + naiveTrueRange(b, t);
        plus = plus - plus / n + pdm;
        minus = minus - minus / n + mdm;
      }
      if (t >= n) {
        const pdi = (100 * plus) / tr;
        const mdi = (100 * minus) / tr;
        dx[t] = pdi + mdi === 0 ? 0 : (100 * Math.abs(pdi - mdi)) / (pdi + mdi);
      }
    }
    return { dx, adx: naiveWilder((t) => dx[t] ?? NaN, n, n, length) };
  },
  ultimateOscillator: (b: Ohlcv, s: number, m: number, l: number) => {
    const bp = (t: number) => at(b.close, t) - Math.min(at(b.low, t), at(b.close, t - 1));
    const average = (t: number, w: number) =>
      sum(range(t - w + 1, t + 1).map(bp)) /
      sum(range(t - w + 1, t + 1).map((i) => naiveTrueRange(b, i)));
    return range(0, b.close.length).map((t) =>
      t < l ? NaN : (100 * (4 * average(t, s) + 2 * average(t, m) + average(t, l))) / 7,
    );
  },
  obvRatio: (b: Ohlcv, w: number) => {
    const obv = onBalanceVolume(b.close, b.volume);
    return range(0, b.close.length).map((t) => {
      if (t < w) return NaN;
      const traded = sum(windowOf(b.volume, t, w));
      return traded === 0 ? 0 : (at(obv, t) - at(obv, t - w)) / traded;
    });
  },
  bollingerPercentB: (b: Ohlcv, n: number, k: number) =>
    range(0, b.close.length).map((t) => {
      if (t < n - 1) return NaN;
      const w = windowOf(b.close, t, n);
      const middle = sum(w) / n;
      const sd = std(w, 0);
      return isFlat(w) ? 0.5 : (at(b.close, t) - (middle - k * sd)) / (2 * k * sd);
    }),
  bollingerWidth: (b: Ohlcv, n: number, k: number) =>
    range(0, b.close.length).map((t) => {
      if (t < n - 1) return NaN;
      const w = windowOf(b.close, t, n);
      return (2 * k * std(w, 0)) / (sum(w) / n);
    }),
  atrRatio: (b: Ohlcv, n: number) =>
    naiveWilder((t) => naiveTrueRange(b, t), n, 0, b.close.length).map(
      (v, t) => v / at(b.close, t),
    ),
  volumeZ: (b: Ohlcv, w: number) =>
    range(0, b.volume.length).map((t) => {
      if (t < w - 1) return NaN;
      const values = windowOf(b.volume, t, w);
      const sd = std(values, 0);
      return isFlat(values) ? 0 : (at(b.volume, t) - sum(values) / w) / sd;
    }),
};

describe('indicators against naive references on random data', () => {
  const parameterSets = [
    { seed: 1, level: 100, p: 14, w: 20 },
    { seed: 2, level: 60_000, p: 5, w: 7 },
    { seed: 3, level: 0.02, p: 2, w: 3 },
  ];
  for (const { seed, level, p, w } of parameterSets) {
    describe(`seed ${seed}, price level ${level}, period ${p}, window ${w}`, () => {
      const b = randomOhlcv(600, seed, level);
      it('log returns and volatility', () => {
        for (const h of [1, 5, w])
          expectSeries(logReturns(b.close, h), references.logReturns(b, h), 1e-3, `logret ${h}`);
        expectSeries(
          rollingVolatility(b.close, { window: w }),
          references.volatility(b, w),
          1e-3,
          'vol',
        );
      });
      it('RSI', () => {
        expectSeries(rsi(b.close, { period: p }), references.rsi(b, p), 1, 'rsi');
      });
      it('MACD histogram (relative)', () => {
        const series = relativeMacd(b.close, { fast: p, slow: 2 * p, signal: w });
        expectSeries(series.histogram, references.macdHistogram(b, p, 2 * p, w), 1e-4, 'macd');
      });
      it('CCI', () => {
        expectSeries(cci(b.high, b.low, b.close, { period: w }), references.cci(b, w), 1, 'cci');
      });
      it('DX and ADX', () => {
        const dmi = directionalMovement(b.high, b.low, b.close, { period: p });
        const reference = references.adx(b, p);
        expectSeries(dmi.dx, reference.dx, 1, 'dx');
        expectSeries(dmi.adx, reference.adx, 1, 'adx');
      });
      it('Ultimate Oscillator', () => {
        const values = ultimateOscillator(b.high, b.low, b.close, {
          short: p,
          medium: p + w,
          long: 2 * (p + w),
        });
        expectSeries(values, references.ultimateOscillator(b, p, p + w, 2 * (p + w)), 1, 'uo');
      });
      it('OBV ratio', () => {
        expectSeries(
          obvRatio(b.close, b.volume, { window: w }),
          references.obvRatio(b, w),
          1,
          'obv',
        );
      });
      it('Bollinger', () => {
        const bands = bollinger(b.close, { period: w, stdDevs: 2.5 });
        expectSeries(bands.percentB, references.bollingerPercentB(b, w, 2.5), 1, '%B');
        expectSeries(bands.bandwidth, references.bollingerWidth(b, w, 2.5), 1e-3, 'width');
      });
      it('ATR ratio', () => {
        expectSeries(
          atrRatio(b.high, b.low, b.close, { period: p }),
          references.atrRatio(b, p),
          1e-3,
          'atr',
        );
      });
      it('volume z-score', () => {
        expectSeries(
          volumeZScore(b.volume, { window: w }),
          references.volumeZ(b, w),
          1,
          'volume z',
        );
      });
    });
  }
});

describe('indicator parameters', () => {
  const close = f64([1, 2, 3]);
  it('rejects bad periods with the option path and the default', () => {
    const error = errorOf(() => rsi(close, { period: 0 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('rsi.period must be an integer from 1 to 1000000, got 0');
    expect(error.hint).toBe('leave rsi.period out for the default, 14');
    expect(errorOf(() => macd(close, { fast: 26, slow: 12 })).message).toMatch(
      /fast \(26\) must be less than macd.slow \(12\)/,
    );
    expect(errorOf(() => bollinger(close, { stdDevs: -1 })).message).toMatch(
      /bollinger.stdDevs must be a finite number greater than 0/,
    );
    expect(
      errorOf(() => ultimateOscillator(close, close, close, { short: 14, medium: 7 })).message,
    ).toMatch(/must grow/);
    expect(
      errorOf(() => ultimateOscillator(close, close, close, { weights: [1, 2] })).message,
    ).toMatch(/3 numbers/);
    expect(errorOf(() => rollingVolatility(close, { window: 1 })).message).toMatch(
      /volatility.window must be an integer from 2/,
    );
  });
  it('rejects columns of different lengths', () => {
    expect(errorOf(() => cci(close, f64([1, 2]), close)).message).toMatch(
      /low has 2 values but high has 3/,
    );
  });
  it('returns all NaN for a series shorter than the warm-up', () => {
    expect(Array.from(rsi(close, { period: 14 }))).toEqual([NaN, NaN, NaN]);
    expect(Array.from(directionalMovement(close, close, close).adx)).toEqual([NaN, NaN, NaN]);
    expect(rsi(new Float64Array(0)).length).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import type { Bars } from '../bars.js';
import { calendarFor } from '../calendar.js';
import { DAY_MS, timeframeMs } from '../timeframe.js';
import {
  DEFAULT_REGIMES,
  generateSynthetic,
  type SynthOptions,
  type SyntheticMarket,
} from './generate-synthetic.js';
import { momentumState } from './momentum-state.js';
import { digestBars } from './synthetic-digest.js';

const FIELDS = ['timestamps', 'open', 'high', 'low', 'close', 'volume'] as const;

function logReturns(close: Float64Array): Float64Array {
  const r = new Float64Array(close.length - 1);
  for (let t = 1; t < close.length; t++) r[t - 1] = Math.log((close[t] ?? 1) / (close[t - 1] ?? 1));
  return r;
}

function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] ?? 0;
  return s / xs.length;
}

function correlation(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const a = (x[i] ?? 0) - mx;
    const b = (y[i] ?? 0) - my;
    sxy += a * b;
    sxx += a * a;
    syy += b * b;
  }
  return sxy / Math.sqrt(sxx * syy);
}

function autocorrelation(x: Float64Array, lag: number): number {
  return correlation(x.subarray(0, x.length - lag), x.subarray(lag));
}

function excessKurtosis(x: Float64Array): number {
  const m = mean(x);
  let m2 = 0;
  let m4 = 0;
  for (const v of x) {
    const d = (v - m) ** 2;
    m2 += d;
    m4 += d * d;
  }
  m2 /= x.length;
  m4 /= x.length;
  return m4 / (m2 * m2) - 3;
}

/**
 * t-statistic of E[x_t · r_{t+1}] = 0 with a heteroskedasticity-robust standard error: under a
 * martingale difference r, the products are a martingale difference sequence too, so |t| stays
 * within a few units whatever the volatility clustering.
 */
function predictabilityT(x: ArrayLike<number>, nextReturn: ArrayLike<number>): number {
  const n = x.length;
  const products = new Float64Array(n);
  for (let i = 0; i < n; i++) products[i] = (x[i] ?? 0) * (nextReturn[i] ?? 0);
  const m = mean(products);
  let v = 0;
  for (const p of products) v += (p - m) ** 2;
  return m / Math.sqrt(v / (n - 1) / n);
}

function bytesOf(array: Float64Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

function expectSameBars(a: Bars, b: Bars, n = a.timestamps.length): void {
  for (const field of FIELDS) {
    expect(bytesOf(a[field].subarray(0, n)).equals(bytesOf(b[field].subarray(0, n)))).toBe(true);
  }
}

function market(options: Partial<SynthOptions> = {}): SyntheticMarket {
  return generateSynthetic({ symbols: 3, bars: 2000, timeframe: '1h', seed: 11, ...options });
}

describe('generateSynthetic: determinism', () => {
  it('gives bit-identical arrays for the same options, and different ones for another seed', () => {
    const options: SynthOptions = {
      symbols: 4,
      bars: 3000,
      timeframe: '5m',
      seed: 123,
      signal: 0.05,
    };
    const a = generateSynthetic(options);
    const b = generateSynthetic(options);
    a.bars.forEach((bars, i) => {
      const other = b.bars[i];
      if (other === undefined) throw new Error('missing symbol');
      expectSameBars(bars, other);
    });
    expect(digestBars(a.symbols, a.bars)).toBe(digestBars(b.symbols, b.bars));
    const c = generateSynthetic({ ...options, seed: 124 });
    expect(digestBars(c.symbols, c.bars)).not.toBe(digestBars(a.symbols, a.bars));
    expect(c.bars[0]?.close[10]).not.toBe(a.bars[0]?.close[10]);
  });

  it('has a stable digest: a change here means the generated data changed', () => {
    const m = generateSynthetic({
      symbols: 3,
      bars: 500,
      timeframe: '1h',
      seed: 2024,
      signal: 0.1,
    });
    expect(digestBars(m.symbols, m.bars)).toBe(
      '21f7b2fcfe208921b83b65f57f57b232920372e49f28dc5f902e722378e9eccb',
    );
  });

  it('extends, never reshuffles: more bars or symbols keep the shorter market as a prefix', () => {
    const short = market({ bars: 700 });
    const long = market({ bars: 1500, symbols: 5 });
    short.bars.forEach((bars, i) => {
      const other = long.bars[i];
      if (other === undefined) throw new Error('missing symbol');
      expectSameBars(bars, other, 700);
    });
  });

  it('plants the signal on the same innovations: only the planted mean differs', () => {
    const base = market({ timeframe: '15m', includeVolatility: true });
    const k = 5;
    const planted = market({
      timeframe: '15m',
      signal: 0.2,
      signalLookback: k,
      includeVolatility: true,
    });
    for (let i = 0; i < 3; i++) {
      const close = planted.bars[i]?.close ?? new Float64Array();
      const sigma = planted.meta.volatility?.[i] ?? new Float64Array();
      const state = momentumState(close, k);
      const r0 = logReturns(base.bars[i]?.close ?? new Float64Array());
      const r1 = logReturns(close);
      for (let t = 1; t < close.length; t++) {
        const plantedMean = 0.2 * (sigma[t] ?? 0) * (state[t - 1] ?? 0);
        expect(Math.abs((r1[t - 1] ?? 0) - plantedMean - (r0[t - 1] ?? 0))).toBeLessThan(1e-12);
      }
    }
  });
});

describe('generateSynthetic: shape and bars', () => {
  it('names symbols, shares one timestamp axis and aligns 24/7 bars consecutively', () => {
    const m = market({
      symbols: 12,
      bars: 100,
      timeframe: '4h',
      start: Date.UTC(2021, 5, 3, 1, 30),
    });
    expect(m.symbols[0]).toBe('SYN00');
    expect(m.symbols[11]).toBe('SYN11');
    expect(m.bars).toHaveLength(12);
    expect(m.calendar).toBe('24/7');
    expect(m.timeframe).toBe('4h');
    const ts = m.bars[0]?.timestamps ?? new Float64Array();
    expect(ts[0]).toBe(Date.UTC(2021, 5, 3, 4));
    for (let t = 1; t < ts.length; t++) expect((ts[t] ?? 0) - (ts[t - 1] ?? 0)).toBe(4 * 3_600_000);
    for (const bars of m.bars) expect(bytesOf(bars.timestamps).equals(bytesOf(ts))).toBe(true);
    expect(market({ symbols: ['BTC', 'ETH'] }).symbols).toEqual(['BTC', 'ETH']);
    expect(market().bars[0]?.timestamps[0]).toBe(Date.UTC(2020, 0, 1));
  });

  it('keeps every bar consistent: high ≥ max(o, c), low ≤ min(o, c), all positive', () => {
    for (const options of [
      { timeframe: '1m', bars: 20_000 },
      { timeframe: '5m', bars: 5000, calendar: 'us-equities' },
      { timeframe: '1d', bars: 2000, signal: 0.2 },
      { timeframe: '1h', bars: 3000, calendar: 'fx', startPrice: [0.001, 5, 1e6] },
    ] as const) {
      const m = market(options);
      for (const bars of m.bars) {
        for (let t = 0; t < bars.close.length; t++) {
          const o = bars.open[t] ?? 0;
          const c = bars.close[t] ?? 0;
          const h = bars.high[t] ?? 0;
          const l = bars.low[t] ?? 0;
          const v = bars.volume[t] ?? 0;
          if (!(
            h >= Math.max(o, c) &&
            l <= Math.min(o, c) &&
            l > 0 &&
            v > 0 &&
            Number.isFinite(h + v)
          )) {
            throw new Error(
              `bad bar ${t} in ${JSON.stringify(options)}: ${[o, h, l, c, v].join(', ')}`,
            );
          }
        }
      }
    }
  });

  it('opens each 24/7 bar at the previous close, the first at the start price', () => {
    const m = market({ startPrice: [10, 20, 30] });
    m.bars.forEach((bars, i) => {
      expect(bars.open[0]).toBe([10, 20, 30][i]);
      for (let t = 1; t < bars.open.length; t++) expect(bars.open[t]).toBe(bars.close[t - 1]);
    });
  });

  it('gaps US-equities sessions overnight, and only there', () => {
    const m = market({ timeframe: '30m', bars: 500, calendar: 'us-equities' });
    const bars = m.bars[0];
    if (bars === undefined) throw new Error('no bars');
    let gaps = 0;
    for (let t = 1; t < bars.open.length; t++) {
      const newSession = (bars.timestamps[t] ?? 0) - (bars.timestamps[t - 1] ?? 0) > 30 * 60_000;
      if (newSession) gaps += bars.open[t] === bars.close[t - 1] ? 0 : 1;
      else expect(bars.open[t]).toBe(bars.close[t - 1]);
    }
    expect(gaps).toBeGreaterThan(30); // 500 bars of 13 per session: 38 overnight gaps
  });
});

describe('generateSynthetic: stylized facts', () => {
  const m = generateSynthetic({ symbols: 6, bars: 40_000, timeframe: '1h', seed: 7 });
  const returns = m.bars.map((b) => logReturns(b.close));

  it('correlates assets realistically (0.3–0.8 on average, no pair outside 0.2–0.9)', () => {
    const pairs: number[] = [];
    for (let i = 0; i < returns.length; i++) {
      for (let j = i + 1; j < returns.length; j++) {
        pairs.push(correlation(returns[i] ?? [], returns[j] ?? []));
      }
    }
    for (const c of pairs) {
      expect(c).toBeGreaterThan(0.2);
      expect(c).toBeLessThan(0.9);
    }
    const average = mean(pairs);
    expect(average).toBeGreaterThan(0.3);
    expect(average).toBeLessThan(0.8);
  });

  it('clusters volatility, has fat tails, and returns that do not predict themselves', () => {
    for (const r of returns) {
      expect(
        autocorrelation(
          r.map((x) => x * x),
          1,
        ),
      ).toBeGreaterThan(0.05);
      expect(excessKurtosis(r)).toBeGreaterThan(1);
      expect(Math.abs(predictabilityT(r.subarray(0, -1), r.subarray(1)))).toBeLessThan(4);
    }
  });

  it('hits the target annual volatility on a long sample', () => {
    // Regimes make realized volatility wander; a single regime pins it to the target.
    const calm = generateSynthetic({
      symbols: 2,
      bars: 50_000,
      timeframe: '1h',
      seed: 3,
      annualVol: 0.7,
      regimes: [{ name: 'only', volScale: 1, factorScale: 1, drift: 0, meanDays: 1, exits: [1] }],
    });
    for (const bars of calm.bars) {
      const r = logReturns(bars.close);
      const vol = Math.sqrt(mean(r.map((x) => x * x)) * calm.meta.barsPerYear);
      expect(vol).toBeGreaterThan(0.66);
      expect(vol).toBeLessThan(0.74);
    }
    expect(calm.meta.regimePath.every((s) => s === 0)).toBe(true);
  });

  it('raises volume with absolute returns', () => {
    m.bars.forEach((bars, i) => {
      const absR = (returns[i] ?? new Float64Array()).map(Math.abs);
      expect(correlation(bars.volume.subarray(1), absR)).toBeGreaterThan(0.3);
    });
  });

  it('switches between all regimes, spending most time out of turbulence', () => {
    const daily = generateSynthetic({ symbols: 1, bars: 5000, timeframe: '1d', seed: 5 });
    const counts = [0, 0, 0];
    for (const s of daily.meta.regimePath) counts[s] = (counts[s] ?? 0) + 1;
    for (const c of counts) expect(c).toBeGreaterThan(0);
    expect((counts[2] ?? 0) / 5000).toBeLessThan(0.25);
    expect(daily.meta.regimes).toBe(DEFAULT_REGIMES);
    expect(daily.meta.regimeShare.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
});

describe('generateSynthetic: planted signal', () => {
  const bars = 30_000;
  const symbols = 3;
  const k = 5;
  /** Pooled over symbols: the momentum state at t and the log return of bar t + 1. */
  function statePairs(m: SyntheticMarket, lookback: number): { x: Float64Array; y: Float64Array } {
    const xs: number[] = [];
    const ys: number[] = [];
    for (const b of m.bars) {
      const state = momentumState(b.close, lookback);
      const r = logReturns(b.close);
      for (let t = lookback; t < b.close.length - 1; t++) {
        xs.push(state[t] ?? 0);
        ys.push(r[t] ?? 0);
      }
    }
    return { x: Float64Array.from(xs), y: Float64Array.from(ys) };
  }

  it('is absent with signal 0: no past-return predictor has an edge (martingale)', () => {
    const m = generateSynthetic({ symbols, bars, timeframe: '1h', seed: 99 });
    expect(m.meta.signal.perBarSharpe).toBe(0);
    for (const lookback of [1, 2, 5, 10, 20]) {
      const { x, y } = statePairs(m, lookback);
      expect(Math.abs(predictabilityT(x, y))).toBeLessThan(4);
      expect(Math.abs(correlation(x, y))).toBeLessThan(4 / Math.sqrt(x.length));
    }
    for (const b of m.bars) {
      const r = logReturns(b.close);
      const last = r.subarray(0, -1);
      const next = r.subarray(1);
      expect(
        Math.abs(
          predictabilityT(
            last.map((v) => v * Math.abs(v)),
            next,
          ),
        ),
      ).toBeLessThan(4);
      expect(
        Math.abs(
          predictabilityT(
            last.map((v) => v * v),
            next,
          ),
        ),
      ).toBeLessThan(4);
    }
  });

  it('is clearly there with signal > 0, as strong as documented', () => {
    const signal = 0.1;
    const m = generateSynthetic({
      symbols,
      bars,
      timeframe: '1h',
      seed: 99,
      signal,
      includeVolatility: true,
    });
    const { x, y } = statePairs(m, k);
    expect(predictabilityT(x, y)).toBeGreaterThan(10);
    const c = correlation(x, y);
    expect(c).toBeGreaterThan(0.05);
    expect(c).toBeLessThan(0.12);
    // The vol-scaled oracle's per-bar Sharpe ratio is `signal` (its return has unit variance).
    const pnl: number[] = [];
    m.bars.forEach((b, i) => {
      const state = momentumState(b.close, k);
      const sigma = m.meta.volatility?.[i] ?? new Float64Array();
      const r = logReturns(b.close);
      for (let t = k; t < b.close.length - 1; t++)
        pnl.push(((state[t] ?? 0) * (r[t] ?? 0)) / (sigma[t + 1] ?? 1));
    });
    const sharpe = mean(pnl) / Math.sqrt(mean(pnl.map((p) => p * p)) - mean(pnl) ** 2);
    expect(Math.abs(sharpe - signal)).toBeLessThan(4 / Math.sqrt(pnl.length));
    expect(m.meta.signal.perBarSharpe).toBe(signal);
    expect(m.meta.signal.annualizedSharpe).toBeCloseTo(signal * Math.sqrt(8760), 9);
    expect(m.meta.barsPerYear).toBe(8760);
  });

  it('plants mean reversion with a negative strength', () => {
    const m = generateSynthetic({ symbols, bars, timeframe: '1h', seed: 99, signal: -0.1 });
    const { x, y } = statePairs(m, k);
    expect(predictabilityT(x, y)).toBeLessThan(-10);
  });
});

describe('generateSynthetic: calendars', () => {
  it('stamps US-equities intraday bars at open slots only, with a U-shaped volume', () => {
    const m = generateSynthetic({
      symbols: 2,
      bars: 78 * 60,
      timeframe: '5m',
      seed: 1,
      calendar: 'us-equities',
      start: Date.UTC(2023, 0, 1),
    });
    const calendar = calendarFor('us-equities');
    const ts = m.bars[0]?.timestamps ?? new Float64Array();
    for (let t = 0; t < ts.length; t++) {
      expect(calendar.isOpen(ts[t] ?? 0)).toBe(true);
      expect((ts[t] ?? 0) % timeframeMs('5m')).toBe(0);
      if (t > 0) expect(ts[t] ?? 0).toBeGreaterThan(ts[t - 1] ?? 0);
    }
    expect(m.meta.barsPerYear).toBe(252 * 78);
    // Mean volume by slot of the session: the first and last half hours beat midday.
    const bySlot = new Float64Array(78);
    for (const bars of m.bars) {
      for (let t = 0; t < ts.length; t++) {
        const slot = t % 78;
        bySlot[slot] = (bySlot[slot] ?? 0) + (bars.volume[t] ?? 0);
      }
    }
    const edges = mean([...bySlot.subarray(0, 6), ...bySlot.subarray(72)]);
    const midday = mean(bySlot.subarray(30, 48));
    expect(edges).toBeGreaterThan(1.8 * midday);
  });

  it('keeps every open 1m slot across a DST switch, a holiday and an early close', () => {
    // November 2023: DST ends on the 5th, Thanksgiving on the 23rd, a 13:00 close on the 24th.
    const start = Date.UTC(2023, 10, 1);
    const calendar = calendarFor('us-equities');
    const expected: number[] = [];
    for (let t = start; expected.length < 390 * 20; t += 60_000) {
      if (calendar.isOpen(t)) expected.push(t);
    }
    const m = generateSynthetic({
      symbols: 1,
      bars: expected.length,
      timeframe: '1m',
      seed: 1,
      calendar: 'us-equities',
      start,
    });
    expect(Array.from(m.bars[0]?.timestamps ?? [])).toEqual(expected);
  });

  it('stamps daily session bars at 00:00 UTC on session days', () => {
    const m = generateSynthetic({
      symbols: 1,
      bars: 300,
      timeframe: '1d',
      seed: 1,
      calendar: 'us-equities',
    });
    const calendar = calendarFor('us-equities');
    for (const t of m.bars[0]?.timestamps ?? []) {
      expect(t % DAY_MS).toBe(0);
      expect(calendar.isSessionDay(t / DAY_MS)).toBe(true);
    }
    expect(m.meta.barsPerYear).toBe(252);
  });

  it('skips the FX weekend', () => {
    const m = generateSynthetic({
      symbols: 1,
      bars: 2000,
      timeframe: '15m',
      seed: 1,
      calendar: 'fx',
    });
    const calendar = calendarFor('fx');
    for (const t of m.bars[0]?.timestamps ?? []) expect(calendar.isOpen(t)).toBe(true);
  });
});

describe('generateSynthetic: options', () => {
  it.each([
    [{ bars: 0 }, /bars 0 is not allowed/],
    [{ symbols: 0 }, /symbols 0 is not allowed/],
    [{ symbols: ['A', 'A'] }, /symbol "A" is not allowed: expected unique/],
    [{ timeframe: '2h' as '1h' }, /timeframe "2h" is not allowed: expected one of 1m, 5m/],
    [{ seed: 0.5 }, /seed 0.5 is not allowed/],
    [{ signal: 2 }, /signal 2 is not allowed/],
    [
      { garchAlpha: 0.2, garchBeta: 0.85 },
      /garchAlpha \+ garchBeta 1.05 is not allowed: expected less than 1/,
    ],
    [{ tailNu: 2 }, /tailNu 2 is not allowed: expected a number > 2/],
    [
      { startPrice: [1, 2] },
      /startPrice \[1,2\] is not allowed: expected one price or one per symbol \(3\)/,
    ],
    [{ annualVol: [0.8, 0.6] as const }, /annualVol \[0.8,0.6\] is not allowed/],
    [{ calendar: 'lse' as 'fx' }, /calendar "lse" is not allowed/],
  ] as const)('rejects %o', (bad, message) => {
    const error = errorOf(() => market(bad));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
  });
});

import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { type Bars, allocateBars, truncateBars } from '../bars.js';
import {
  DEFAULT_FEATURE_NAMES,
  DEFAULT_FEATURE_WARMUP,
  type FeatureOptions,
  computeFeatures,
  computeFeaturesForAssets,
  featureNames,
  featureWarmup,
} from './compute-features.js';

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

/**
 * Random valid bars from bar `from` on (earlier bars are kept as they are): a random walk with
 * wicks, some unchanged closes and some zero-volume bars.
 */
function randomizeBars(bars: Bars, seed: number, from = 0): Bars {
  const random = prng(seed);
  let price = from > 0 ? (bars.close[from - 1] ?? 100) : 100 * (0.5 + random());
  for (let t = from; t < bars.close.length; t++) {
    const open = price;
    if (random() > 0.1) price *= Math.exp((random() - 0.5) * 0.05);
    bars.timestamps[t] = t * 60_000;
    bars.open[t] = open;
    bars.close[t] = price;
    bars.high[t] = Math.max(open, price) * (1 + random() * 0.01);
    bars.low[t] = Math.min(open, price) * (1 - random() * 0.01);
    bars.volume[t] = random() < 0.05 ? 0 : 1000 * Math.exp(random() * 3);
  }
  return bars;
}

const randomBars = (n: number, seed: number): Bars => randomizeBars(allocateBars(n), seed);

function copyBars(bars: Bars): Bars {
  return {
    timestamps: bars.timestamps.slice(),
    open: bars.open.slice(),
    high: bars.high.slice(),
    low: bars.low.slice(),
    close: bars.close.slice(),
    volume: bars.volume.slice(),
  };
}

/** The bit patterns of rows [0, rows) of a T × F table, so NaN, −0 and every last bit count. */
function rowBits(values: Float32Array, rows: number, width: number): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, rows * width);
}

/** Whether row t of a T × F table holds a NaN. */
function rowHasNaN(values: Float32Array, t: number, width: number): boolean {
  return values.subarray(t * width, (t + 1) * width).some(Number.isNaN);
}

describe('feature names and warm-up', () => {
  it('lists the default features without computing them', () => {
    expect(DEFAULT_FEATURE_NAMES).toEqual([
      'logret_1',
      'logret_5',
      'logret_20',
      'vol_20',
      'rsi_14',
      'macd_line_12_26_9',
      'macd_signal_12_26_9',
      'macd_hist_12_26_9',
      'cci_20',
      'dx_14',
      'adx_14',
      'uo_7_14_28',
      'obv_ratio_20',
      'bb_pctb_20_2',
      'bb_width_20_2',
      'atr_ratio_14',
      'volume_z_20',
    ]);
    // MACD's signal line: the slow EMA starts at bar 25, the 9-bar signal EMA of it at bar 33.
    expect(DEFAULT_FEATURE_WARMUP).toBe(33);
    expect(featureNames()).toEqual(DEFAULT_FEATURE_NAMES);
  });

  it('names features after their parameters', () => {
    const options: FeatureOptions = {
      logReturns: { horizons: [1, 3] },
      volatility: false,
      rsi: { period: 7 },
      macd: false,
      cci: { period: 10, constant: 0.02 },
      adx: false,
      ultimateOscillator: { short: 5, medium: 10, long: 20, weights: [3, 2, 1] },
      obv: { window: 10 },
      bollinger: { stdDevs: 2.5 },
      atr: false,
      volumeZScore: false,
    };
    expect(featureNames(options)).toEqual([
      'logret_1',
      'logret_3',
      'rsi_7',
      'cci_10_c0.02',
      'uo_5_10_20_w3-2-1',
      'obv_ratio_10',
      'bb_pctb_20_2.5',
      'bb_width_20_2.5',
    ]);
    expect(featureWarmup(options)).toBe(20);
  });

  it('agrees with the NaN rows of computed features, indicator by indicator', () => {
    const bars = randomBars(300, 11);
    const keys = Object.keys(DEFAULT_OFF) as (keyof FeatureOptions)[];
    for (const key of keys) {
      const options: FeatureOptions = { ...DEFAULT_OFF, [key]: {} };
      const table = computeFeatures(bars, options);
      const width = table.names.length;
      expect(table.warmup, key).toBe(featureWarmup(options));
      for (let t = 0; t < 300; t++) {
        expect(rowHasNaN(table.values, t, width), `${key} row ${t}`).toBe(t < table.warmup);
      }
      // Each column switches from NaN to finite once.
      for (let f = 0; f < width; f++) {
        const column = Array.from({ length: 300 }, (_, t) => table.values[t * width + f] ?? NaN);
        const firstDefined = column.findIndex((v) => !Number.isNaN(v));
        expect(column.slice(firstDefined).every(Number.isFinite), table.names[f]).toBe(true);
      }
    }
  });
});

/** Every indicator off: switch one on to look at it alone. */
const DEFAULT_OFF: Required<FeatureOptions> = {
  logReturns: false,
  volatility: false,
  rsi: false,
  macd: false,
  cci: false,
  adx: false,
  ultimateOscillator: false,
  obv: false,
  bollinger: false,
  atr: false,
  volumeZScore: false,
};

describe('computeFeatures', () => {
  it('is causal: changing every bar after t leaves every feature at <= t bit-identical', () => {
    const n = 400;
    const bars = randomBars(n, 1);
    const width = DEFAULT_FEATURE_NAMES.length;
    const reference = computeFeatures(bars);
    const random = prng(99);
    for (let trial = 0; trial < 12; trial++) {
      const t = Math.floor(random() * (n - 1));
      // A different random future, shifted so that every price and volume after t differs.
      const changed = randomizeBars(copyBars(bars), 1000 + trial, t + 1);
      for (let u = t + 1; u < n; u++) {
        for (const field of ['open', 'high', 'low', 'close'] as const) {
          changed[field][u] = (changed[field][u] ?? 0) * 1.5;
        }
        changed.volume[u] = (changed.volume[u] ?? 0) * 2 + 1;
      }
      const table = computeFeatures(changed);
      expect(rowBits(table.values, t + 1, width), `t = ${t}`).toEqual(
        rowBits(reference.values, t + 1, width),
      );
      // The test can fail: some feature at t + 1 does see the change.
      expect(rowBits(table.values, t + 2, width)).not.toEqual(
        rowBits(reference.values, t + 2, width),
      );
    }
  });

  it('gives the same rows for a prefix of the bars as for the whole series', () => {
    const bars = randomBars(300, 2);
    const width = DEFAULT_FEATURE_NAMES.length;
    const whole = computeFeatures(bars);
    for (const length of [1, 20, 34, 35, 150]) {
      const prefix = computeFeatures(truncateBars(bars, length));
      expect(rowBits(prefix.values, length, width)).toEqual(rowBits(whole.values, length, width));
    }
  });

  it('has NaN in every warm-up row and none after it', () => {
    for (const seed of [3, 4, 5]) {
      const table = computeFeatures(randomBars(500, seed));
      const width = table.names.length;
      expect(table.warmup).toBe(DEFAULT_FEATURE_WARMUP);
      expect(table.values.length).toBe(500 * width);
      for (let t = 0; t < table.warmup; t++) expect(rowHasNaN(table.values, t, width)).toBe(true);
      expect(table.values.subarray(table.warmup * width).every(Number.isFinite)).toBe(true);
    }
  });

  it('stays finite on flat prices and zero volume (a closed market)', () => {
    const bars = allocateBars(100);
    bars.timestamps.forEach((_, t) => (bars.timestamps[t] = t));
    bars.open.fill(5);
    bars.high.fill(5);
    bars.low.fill(5);
    bars.close.fill(5);
    const table = computeFeatures(bars);
    const width = table.names.length;
    expect(table.values.subarray(table.warmup * width).every(Number.isFinite)).toBe(true);
    const row = Array.from(table.values.subarray(99 * width, 100 * width));
    // Returns 0, RSI 50, DX/ADX 0, UO 50, %B 0.5, width 0, volume z 0: "nothing happens", not NaN.
    expect(Object.fromEntries(table.names.map((name, f) => [name, row[f]]))).toEqual({
      logret_1: 0,
      logret_5: 0,
      logret_20: 0,
      vol_20: 0,
      rsi_14: 50,
      macd_line_12_26_9: 0,
      macd_signal_12_26_9: 0,
      macd_hist_12_26_9: 0,
      cci_20: 0,
      dx_14: 0,
      adx_14: 0,
      uo_7_14_28: 50,
      obv_ratio_20: 0,
      bb_pctb_20_2: 0.5,
      bb_width_20_2: 0,
      atr_ratio_14: 0,
      volume_z_20: 0,
    });
  });

  it('reports a series shorter than the warm-up as all warm-up', () => {
    const table = computeFeatures(randomBars(10, 6));
    expect(table.warmup).toBe(10);
    expect(computeFeatures(allocateBars(0)).values.length).toBe(0);
  });

  it('rejects bars it cannot use, naming the field and the bar', () => {
    const bars = randomBars(50, 7);
    const nan = copyBars(bars);
    nan.close[12] = NaN;
    expect(errorOf(() => computeFeatures(nan)).message).toBe(
      'bars: close at bar 12 is NaN; features need finite positive prices',
    );
    const zero = copyBars(bars);
    zero.low[3] = 0;
    expect(errorOf(() => computeFeatures(zero)).message).toMatch(/low at bar 3 is 0/);
    const negative = copyBars(bars);
    negative.volume[40] = -1;
    expect(errorOf(() => computeFeatures(negative)).message).toMatch(
      /volume at bar 40 is -1; features need finite non-negative volumes/,
    );
    const short = { ...bars, high: bars.high.subarray(0, 49) };
    expect(errorOf(() => computeFeatures(short)).message).toMatch(
      /high has 49 values but timestamps has 50/,
    );
  });

  it('checks its options', () => {
    const bars = randomBars(50, 8);
    const unknown = errorOf(() => computeFeatures(bars, { rsii: {} } as FeatureOptions));
    expect(unknown.code).toBe('INVALID_ARGUMENT');
    expect(unknown.message).toMatch(
      /^unknown feature option "rsii"; known: logReturns, volatility, rsi/,
    );
    expect(unknown.hint).toBe('did you mean "rsi"?');
    expect(
      errorOf(() => computeFeatures(bars, { rsi: true } as unknown as FeatureOptions)).message,
    ).toMatch(/"rsi" must be an options object or false/);
    expect(errorOf(() => computeFeatures(bars, DEFAULT_OFF)).message).toBe(
      'every feature is switched off',
    );
    expect(errorOf(() => featureNames({ logReturns: { horizons: [] } })).message).toBe(
      'logReturns.horizons is empty',
    );
    expect(errorOf(() => featureNames({ logReturns: { horizons: [5, 5] } })).message).toMatch(
      /repeated/,
    );
    expect(errorOf(() => featureNames({ macd: { signal: 1.5 } })).message).toMatch(
      /macd.signal must be an integer/,
    );
  });
});

describe('computeFeaturesForAssets', () => {
  it('lays out T × assets × F with the largest warm-up', () => {
    const a = randomBars(120, 21);
    const b = randomizeBars(copyBars(a), 22);
    const options: FeatureOptions = { ...DEFAULT_OFF, rsi: {}, logReturns: { horizons: [1, 30] } };
    const table = computeFeaturesForAssets([a, b], options);
    const single = [computeFeatures(a, options), computeFeatures(b, options)];
    const width = table.names.length;
    expect(table.names).toEqual(['logret_1', 'logret_30', 'rsi_14']);
    expect(table.assets).toBe(2);
    expect(table.warmup).toBe(30);
    expect(table.values.length).toBe(120 * 2 * width);
    for (let t = 0; t < 120; t++) {
      for (let asset = 0; asset < 2; asset++) {
        const row = table.values.subarray((t * 2 + asset) * width, (t * 2 + asset + 1) * width);
        expect(row).toEqual(single[asset]?.values.subarray(t * width, (t + 1) * width));
      }
    }
  });

  it('rejects assets that are not aligned', () => {
    const a = randomBars(60, 31);
    const late = copyBars(a);
    late.timestamps[17] = (late.timestamps[17] ?? 0) + 1;
    expect(errorOf(() => computeFeaturesForAssets([a, late])).message).toMatch(
      /asset 1's bar 17 is at 1020001 but asset 0's is at 1020000; the assets are not aligned/,
    );
    expect(errorOf(() => computeFeaturesForAssets([a, truncateBars(a, 59)])).message).toMatch(
      /asset 1 has 59 bars but asset 0 has 60/,
    );
    expect(errorOf(() => computeFeaturesForAssets([])).message).toMatch(/no assets/);
  });
});

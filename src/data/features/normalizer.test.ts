import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { Normalizer, fitNormalizer } from './normalizer.js';

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

/** A T × assets × F techArray whose value at (t, a, f) is drawn from `draw(a, f)`. */
function techArray(
  rows: number,
  assets: number,
  features: number,
  draw: (asset: number, feature: number) => number,
): Float32Array {
  const values = new Float32Array(rows * assets * features);
  for (let t = 0; t < rows; t++) {
    for (let a = 0; a < assets; a++) {
      for (let f = 0; f < features; f++) values[(t * assets + a) * features + f] = draw(a, f);
    }
  }
  return values;
}

describe('fitNormalizer', () => {
  it('z-scores each feature, pooled over assets, by default', () => {
    // Feature 0 of 2 assets over 2 rows: 1, 3 | 5, 7 → mean 4, population std √5.
    const values = Float32Array.from([1, 10, 3, 10, 5, 10, 7, 10]);
    const normalizer = fitNormalizer(values, { assets: 2, features: 2 }, [[0, 2]]);
    expect(normalizer.method).toBe('zscore');
    expect(normalizer.pooling).toBe('feature');
    expect(Array.from(normalizer.center)).toEqual([4, 10]);
    expect(normalizer.scale[0]).toBeCloseTo(Math.sqrt(5), 12);
    // Feature 1 is constant: no spread, scale 1, flagged; it is centered to 0, not divided by 0.
    expect(normalizer.scale[1]).toBe(1);
    expect(normalizer.zeroSpread).toEqual([1]);
    expect(normalizer.samples).toBe(4);
    const out = normalizer.apply(values);
    expect(out[0]).toBeCloseTo(-3 / Math.sqrt(5), 6);
    expect(out[6]).toBeCloseTo(3 / Math.sqrt(5), 6);
    expect(out[1]).toBe(0);
  });

  it('fits one center and scale per asset and feature with column pooling', () => {
    // Asset 0 feature 0: 1, 3 → mean 2, std 1; asset 1 feature 0: 5, 9 → mean 7, std 2.
    const values = Float32Array.from([1, 10, 5, 20, 3, 12, 9, 20]);
    const normalizer = fitNormalizer(values, { assets: 2, features: 2 }, [[0, 2]], {
      pooling: 'column',
    });
    expect(Array.from(normalizer.center)).toEqual([2, 11, 7, 20]);
    expect(Array.from(normalizer.scale)).toEqual([1, 1, 2, 1]);
    expect(normalizer.zeroSpread).toEqual([3]);
    expect(Array.from(normalizer.apply(values))).toEqual([-1, -1, -1, 0, 1, 1, 1, 0]);
  });

  it('robust: median and IQR / 1.349, unmoved by an outlier', () => {
    // 1 … 9 and one outlier 1000: median 5.5; quartiles (linear interpolation at 0.25 · 9 = 2.25
    // and 0.75 · 9 = 6.75): 3.25 and 7.75, IQR 4.5, scale 4.5 / 1.3489795 = 3.33585…
    const data = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1000];
    const values = Float32Array.from(data);
    const robust = fitNormalizer(values, { assets: 1, features: 1 }, [[0, 10]], {
      method: 'robust',
    });
    expect(robust.center[0]).toBe(5.5);
    expect(robust.scale[0]).toBeCloseTo(4.5 / 1.3489795003921634, 12);
    const zscore = fitNormalizer(values, { assets: 1, features: 1 }, [[0, 10]]);
    // The mean is dragged to 104.5 and the std to ~298 by the one outlier.
    expect(zscore.center[0]).toBeCloseTo(104.5, 12);
    expect(zscore.scale[0]).toBeGreaterThan(290);
    // On normal data both agree: median ≈ mean, IQR / 1.349 ≈ std.
    const random = prng(5);
    const normal = techArray(20_000, 1, 1, () => {
      const u = 1 - random();
      return 3 + 2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    });
    const a = fitNormalizer(normal, { assets: 1, features: 1 }, [[0, 20_000]], {
      method: 'robust',
    });
    const b = fitNormalizer(normal, { assets: 1, features: 1 }, [[0, 20_000]]);
    expect(Math.abs((a.center[0] ?? 0) - 3)).toBeLessThan(0.05);
    expect(Math.abs((b.center[0] ?? 0) - 3)).toBeLessThan(0.05);
    expect(Math.abs((a.scale[0] ?? 0) - 2)).toBeLessThan(0.06);
    expect(Math.abs((b.scale[0] ?? 0) - 2)).toBeLessThan(0.06);
  });

  it('flags a robust column whose IQR is 0', () => {
    const values = Float32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 50]);
    const robust = fitNormalizer(values, { assets: 1, features: 1 }, [[0, 10]], {
      method: 'robust',
    });
    expect(robust.zeroSpread).toEqual([0]);
    expect(robust.scale[0]).toBe(1);
  });

  it('reads only the fit ranges', () => {
    const random = prng(9);
    const values = techArray(300, 3, 4, (a, f) => a + f * random());
    const ranges = [
      [10, 60],
      [120, 200],
    ] as const;
    for (const method of ['zscore', 'robust'] as const) {
      const before = fitNormalizer(values, { assets: 3, features: 4 }, ranges, { method });
      const changed = values.slice();
      const outside = [
        [0, 10],
        [60, 120],
        [200, 300],
      ];
      for (const [start, end] of outside) {
        for (let i = (start ?? 0) * 12; i < (end ?? 0) * 12; i++) changed[i] = 1e6 * random() - 5e5;
      }
      const after = fitNormalizer(changed, { assets: 3, features: 4 }, ranges, { method });
      expect(after.toJSON()).toEqual(before.toJSON());
      // …while a change inside a range does move the stats.
      for (let i = 15 * 12; i < 40 * 12; i++) changed[i] = 1e6 * random();
      const moved = fitNormalizer(changed, { assets: 3, features: 4 }, ranges, { method });
      expect(moved.toJSON()).not.toEqual(before.toJSON());
    }
  });

  it('applies into a given array without allocating, in place, and clips', () => {
    const values = Float32Array.from([0, 1, 2, 3, 4, 100]);
    const normalizer = fitNormalizer(values, { assets: 1, features: 1 }, [[0, 5]], { clip: 2 });
    // mean 2, std √2 over the first five rows; 100 would be 69.3, clipped to 2.
    const out = new Float32Array(6);
    expect(normalizer.apply(values, out)).toBe(out);
    expect(out[5]).toBe(2);
    expect(out[0]).toBe(-Math.fround(Math.SQRT2));
    const unclipped = fitNormalizer(values, { assets: 1, features: 1 }, [[0, 5]], { clip: false });
    expect(unclipped.apply(values)[5]).toBeCloseTo(98 / Math.SQRT2, 4);
    const inPlace = values.slice();
    expect(normalizer.apply(inPlace, inPlace)).toBe(inPlace);
    expect(Array.from(inPlace)).toEqual(Array.from(out));
    // Default clip: ±10.
    expect(fitNormalizer(values, { assets: 1, features: 1 }, [[0, 5]]).apply(values)[5]).toBe(10);
  });

  it('applies feature-pooled stats to any number of assets', () => {
    const values = Float32Array.from([1, 3, 5, 7]);
    const normalizer = fitNormalizer(values, { assets: 2, features: 1 }, [[0, 2]]);
    expect(normalizer.apply(Float32Array.from([4, 4, 4]))).toEqual(new Float32Array(3));
  });
});

describe('Normalizer JSON', () => {
  it('round-trips through JSON text exactly', () => {
    const random = prng(3);
    const values = techArray(50, 2, 3, () => random() * 7 - 1);
    for (const method of ['zscore', 'robust'] as const) {
      for (const pooling of ['feature', 'column'] as const) {
        const original = fitNormalizer(values, { assets: 2, features: 3 }, [[5, 45]], {
          method,
          pooling,
          featureNames: ['a', 'b', 'c'],
        });
        const restored = Normalizer.fromJSON(JSON.parse(JSON.stringify(original)));
        expect(restored.toJSON()).toEqual(original.toJSON());
        expect(restored.apply(values)).toEqual(original.apply(values));
      }
    }
  });

  it('rejects stats that are not whole, saying where', () => {
    const json = fitNormalizer(Float32Array.from([1, 2, 3, 6]), { assets: 1, features: 2 }, [
      [0, 2],
    ]).toJSON();
    const invalid = (patch: Record<string, unknown>) =>
      errorOf(() => Normalizer.fromJSON({ ...json, ...patch }));
    expect(invalid({ center: [1] }).message).toMatch(
      /center: must hold 2 numbers \(feature pooling\), not 1/,
    );
    expect(invalid({ scale: [1, 0] }).message).toMatch(/scale\.1: must be > 0/);
    expect(invalid({ method: 'minmax' }).message).toMatch(/^normalizer stats are invalid: method/);
    expect(invalid({ format: 'other' }).message).toMatch(/format/);
    expect(invalid({ extra: 1 }).message).toMatch(/extra/);
    expect(invalid({ zeroSpread: [1] }).message).toMatch(
      /zeroSpread\.0: column 1 must be below 2 and have scale 1/,
    );
    expect(invalid({ ranges: [[3, 3]] }).message).toMatch(/ranges\.0: \[3, 3\) is empty/);
    expect(errorOf(() => Normalizer.fromJSON('nope')).code).toBe('INVALID_ARGUMENT');
  });

  it('checks feature names when it was fitted with them', () => {
    const normalizer = fitNormalizer(
      Float32Array.from([1, 2, 3, 4]),
      { assets: 1, features: 2 },
      [[0, 2]],
      {
        featureNames: ['rsi_14', 'cci_20'],
      },
    );
    expect(() => {
      normalizer.checkFeatureNames(['rsi_14', 'cci_20']);
    }).not.toThrow();
    expect(
      errorOf(() => {
        normalizer.checkFeatureNames(['rsi_14']);
      }).message,
    ).toBe('normalizer was fitted on features [rsi_14, cci_20] but got [rsi_14]');
  });
});

describe('fitNormalizer errors', () => {
  const values = new Float32Array(20);
  const shape = { assets: 2, features: 2 };
  it('rejects empty, out-of-bounds and overlapping ranges', () => {
    expect(errorOf(() => fitNormalizer(values, shape, [])).message).toBe(
      'normalizer: no fit ranges given',
    );
    expect(errorOf(() => fitNormalizer(values, shape, [[3, 3]])).message).toBe(
      'normalizer: fit range [3, 3) is empty',
    );
    expect(errorOf(() => fitNormalizer(values, shape, [[2, 6]])).message).toBe(
      'normalizer: fit range [2, 6) is out of bounds: the techArray has rows [0, 5)',
    );
    expect(errorOf(() => fitNormalizer(values, shape, [[-1, 2]])).message).toMatch(/out of bounds/);
    expect(errorOf(() => fitNormalizer(values, shape, [[0.5, 2]])).message).toMatch(
      /integer bounds/,
    );
    expect(
      errorOf(() =>
        fitNormalizer(values, shape, [
          [3, 5],
          [0, 4],
        ]),
      ).message,
    ).toBe('normalizer: fit ranges [0, 4) and [3, 5) overlap');
  });

  it('rejects NaN inside the fit range, a bad shape and bad options', () => {
    const withNaN = values.slice();
    withNaN[4 * 4 + 3] = NaN;
    expect(errorOf(() => fitNormalizer(withNaN, shape, [[0, 5]])).message).toBe(
      'normalizer: value NaN at row 4, asset 1, feature 1 is inside the fit range',
    );
    expect(() => fitNormalizer(withNaN, shape, [[0, 4]])).not.toThrow();
    expect(
      errorOf(() => fitNormalizer(values, { assets: 3, features: 2 }, [[0, 1]])).message,
    ).toMatch(/20 values are not whole rows of 3 assets × 2 features/);
    expect(
      errorOf(() => fitNormalizer(values, { assets: 0, features: 2 }, [[0, 1]])).message,
    ).toMatch(/assets must be a positive integer/);
    expect(errorOf(() => fitNormalizer(values, shape, [[0, 1]], { clip: 0 })).message).toMatch(
      /clip must be/,
    );
    expect(
      errorOf(() => fitNormalizer(values, shape, [[0, 1]], { clip: Infinity })).message,
    ).toMatch(/clip must be a finite number/);
    expect(
      errorOf(() => fitNormalizer(values, shape, [[0, 1]], { featureNames: ['x'] })).message,
    ).toMatch(/1 feature names for 2 features/);
  });

  it('rejects arrays apply cannot use', () => {
    const normalizer = fitNormalizer(values, shape, [[0, 5]], { pooling: 'column' });
    expect(errorOf(() => normalizer.apply(new Float32Array(6))).message).toMatch(
      /6 values are not whole rows of 4 \(2 assets × 2 features\)/,
    );
    expect(errorOf(() => normalizer.apply(values, new Float32Array(4))).message).toMatch(
      /out has 4 values but the input has 20/,
    );
  });
});

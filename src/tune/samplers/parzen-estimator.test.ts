import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.js';
import {
  erf,
  erfc,
  gaussMass,
  logGaussMass,
  logNdtr,
  ndtr,
  ndtri,
  ndtriExp,
  sampleTruncatedStandardNormal,
} from './normal-distribution.js';
import {
  ParzenEstimator,
  argsort,
  parzenDimension,
  type ParzenDimension,
  type ParzenEstimatorOptions,
} from './parzen-estimator.js';

/** Relative closeness (absolute near zero). */
function expectClose(actual: number, expected: number, rel = 1e-13): void {
  const scale = Math.max(Math.abs(expected), 1e-300);
  expect(Math.abs(actual - expected) / scale).toBeLessThan(rel);
}

// Reference values from SciPy 1.17 (scipy.special).
describe('normal special functions', () => {
  it('erf and erfc match reference values', () => {
    const erfs: [number, number][] = [
      [0.1, 0.1124629160182849],
      [0.5, 0.5204998778130465],
      [1, 0.8427007929497148],
      [1.5, 0.9661051464753108],
      [2, 0.9953222650189527],
      [3, 0.9999779095030014],
      [5, 0.9999999999984626],
    ];
    for (const [x, v] of erfs) {
      expectClose(erf(x), v);
      expectClose(erf(-x), -v);
    }
    const erfcs: [number, number][] = [
      [-3, 1.9999779095030015],
      [-1, 1.8427007929497148],
      [0.3, 0.6713732405408726],
      [1, 0.15729920705028516],
      [2, 0.004677734981047266],
      [5, 1.5374597944280347e-12],
      [10, 2.0884875837625446e-45],
      [20, 5.395865611607901e-176],
      [26, 5.663192408856145e-296],
    ];
    for (const [x, v] of erfcs) expectClose(erfc(x), v, 1e-12);
    expect(erf(0)).toBe(0);
    expect(erfc(0)).toBe(1);
    expect(erfc(40)).toBe(0);
    expect(erfc(-40)).toBe(2);
    expect(Number.isNaN(erf(Number.NaN))).toBe(true);
  });

  it('log Φ is accurate far into both tails', () => {
    const cases: [number, number][] = [
      [-40, -804.6084420137539],
      [-20, -203.9171553710973],
      [-5, -15.064998393988727],
      [-1, -1.8410216450092634],
      [0, -0.6931471805599453],
      [2, -0.023012909328963476],
      [10, -7.61985302416047e-24],
    ];
    for (const [x, v] of cases) expectClose(logNdtr(x), v, 1e-12);
    expect(Number.isFinite(logNdtr(-1e4))).toBe(true);
  });

  it('Φ⁻¹ matches reference values and inverts Φ', () => {
    const cases: [number, number][] = [
      [1e-300, -37.0470962993612],
      [1e-10, -6.361340902404056],
      [0.001, -3.090232306167813],
      [0.025, -1.9599639845400545],
      [0.3, -0.5244005127080409],
      [0.975, 1.959963984540054],
      [0.999999, 4.753424308817087],
    ];
    for (const [p, v] of cases) expectClose(ndtri(p), v, 1e-12);
    expect(Math.abs(ndtri(0.5))).toBeLessThan(1e-16);
    expect(ndtri(0)).toBe(-Infinity);
    expect(ndtri(1)).toBe(Infinity);
    // Round trips (right of ~3, Φ(x) itself carries too few digits of 1 − Φ(x) to invert).
    for (let x = -8; x <= 3; x += 0.37) expect(ndtri(ndtr(x))).toBeCloseTo(x, 10);
    // Quantiles of probabilities far below the smallest double, from their logarithm.
    expectClose(ndtriExp(-1000), -44.61574773196941, 1e-12);
    expectClose(logNdtr(ndtriExp(-5000)), -5000, 1e-12);
  });

  it('the log Gaussian mass of an interval is stable in the tails', () => {
    expectClose(logGaussMass(-31, -30), -454.3212439563433, 1e-12);
    expectClose(logGaussMass(30, 31), -454.3212439563433, 1e-12);
    expectClose(logGaussMass(-1, 2), Math.log(ndtr(2) - ndtr(-1)), 1e-14);
    expectClose(gaussMass(-1, 2), ndtr(2) - ndtr(-1), 1e-14);
    expect(logGaussMass(-1e-9, 1e-9)).toBeCloseTo(Math.log(2e-9 / Math.sqrt(2 * Math.PI)), 6);
  });

  it('truncated normal draws stay inside their interval and follow it', () => {
    const rng = new Rng(3);
    for (const [a, b] of [
      [-1, 1],
      [2, 3],
      [-40, -39],
      [35, 60],
      [-0.5, 50],
    ] as const) {
      let sum = 0;
      const n = 2000;
      for (let i = 0; i < n; i++) {
        const x = sampleTruncatedStandardNormal(a, b, rng.uniform());
        expect(x).toBeGreaterThanOrEqual(a);
        expect(x).toBeLessThanOrEqual(b);
        sum += x;
      }
      // The truncated normal's mean is (φ(a) − φ(b)) / (Φ(b) − Φ(a)), in log space here.
      const logPhi = (x: number): number => -0.5 * x * x - 0.5 * Math.log(2 * Math.PI);
      const lm = logGaussMass(a, b);
      const mean = Math.exp(logPhi(a) - lm) - Math.exp(logPhi(b) - lm);
      expect(Math.abs(sum / n - mean)).toBeLessThan(0.05);
    }
  });
});

const UNIVARIATE: ParzenEstimatorOptions = {
  priorWeight: 1,
  considerMagicClip: true,
  considerEndpoints: false,
  multivariate: false,
};

function estimator(
  dims: ParzenDimension[],
  obs: number[][],
  options: ParzenEstimatorOptions = UNIVARIATE,
): ParzenEstimator {
  const n = obs[0]?.length ?? 0;
  const weights = new Float64Array(n).fill(1);
  return new ParzenEstimator(
    dims,
    obs.map((o) => Float64Array.from(o)),
    weights,
    options,
  );
}

function density(pe: ParzenEstimator, ...xs: number[]): number {
  const out = new Float64Array(1);
  pe.logPdf(
    xs.map((x) => Float64Array.of(x)),
    out,
  );
  return Math.exp(out[0] ?? Number.NaN);
}

describe('ParzenEstimator', () => {
  const continuous: ParzenDimension = { kind: 'numeric', low: -2, high: 3, step: null };

  it('a continuous density integrates to 1 over its bounds', () => {
    const rng = new Rng(11);
    for (const nObs of [0, 1, 5, 40]) {
      const obs = Array.from({ length: nObs }, () => -2 + 5 * rng.uniform());
      const pe = estimator([continuous], [obs]);
      // Simpson's rule on a fine grid.
      const m = 20_000;
      const h = 5 / m;
      let s = 0;
      for (let i = 0; i <= m; i++) {
        const w = i === 0 || i === m ? 1 : i % 2 === 1 ? 4 : 2;
        s += w * density(pe, -2 + i * h);
      }
      expect((s * h) / 3).toBeCloseTo(1, 6);
    }
  });

  it('a discrete density sums to 1 over its grid points', () => {
    const dim: ParzenDimension = { kind: 'numeric', low: 0, high: 10, step: 0.5 };
    const pe = estimator([dim], [[0, 0.5, 3, 3, 9.5, 10]]);
    let s = 0;
    for (let k = 0; k <= 20; k++) s += density(pe, k * 0.5);
    expect(s).toBeCloseTo(1, 12);
  });

  it('a categorical distribution sums to 1 and favours observed choices', () => {
    const pe = estimator([{ kind: 'categorical', nChoices: 4 }], [[2, 2, 1]]);
    const p = [0, 1, 2, 3].map((c) => density(pe, c));
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p[2]).toBeGreaterThan(p[1] ?? 1);
    expect(p[1]).toBeGreaterThan(p[0] ?? 1);
    expect(p[0]).toBeCloseTo(p[3] ?? 0, 15);
  });

  it('a joint (multivariate) density integrates to 1 over its box', () => {
    const dims: ParzenDimension[] = [
      { kind: 'numeric', low: 0, high: 1, step: null },
      { kind: 'categorical', nChoices: 3 },
    ];
    const pe = estimator(
      dims,
      [
        [0.2, 0.25, 0.9],
        [0, 2, 2],
      ],
      { ...UNIVARIATE, multivariate: true },
    );
    let total = 0;
    const m = 4000;
    for (let c = 0; c < 3; c++) {
      let s = 0;
      for (let i = 0; i <= m; i++) {
        const w = i === 0 || i === m ? 1 : i % 2 === 1 ? 4 : 2;
        s += w * density(pe, i / m, c);
      }
      total += s / m / 3;
    }
    expect(total).toBeCloseTo(1, 6);
  });

  it('samples lie in the bounds, on the grid for discrete dimensions', () => {
    const rng = new Rng(5);
    const dims: ParzenDimension[] = [
      continuous,
      { kind: 'numeric', low: 1, high: 4, step: 0.25 },
      { kind: 'categorical', nChoices: 5 },
    ];
    const pe = estimator(
      dims,
      [
        [-2, 3, 0.1],
        [1, 4, 2.25],
        [0, 4, 4],
      ],
      { ...UNIVARIATE, multivariate: true },
    );
    const [xs, ys, cs] = pe.sample(rng, 500);
    for (let i = 0; i < 500; i++) {
      const x = xs?.[i] ?? Number.NaN;
      const y = ys?.[i] ?? Number.NaN;
      const c = cs?.[i] ?? Number.NaN;
      expect(x >= -2 && x <= 3).toBe(true);
      expect(Number.isInteger((y - 1) / 0.25) && y >= 1 && y <= 4).toBe(true);
      expect(Number.isInteger(c) && c >= 0 && c < 5).toBe(true);
    }
  });

  it('stays finite where the direct sum would underflow', () => {
    // Kernels far narrower than the range, evaluated far from all of them and from the prior's
    // bulk: the log density must come from the log-space path, not log(0).
    const pe = estimator([{ kind: 'numeric', low: 0, high: 1e6, step: null }], [[0, 1, 2]], {
      ...UNIVARIATE,
      considerMagicClip: false,
    });
    const out = new Float64Array(1);
    pe.logPdf([Float64Array.of(1e6)], out);
    expect(Number.isFinite(out[0])).toBe(true);
  });

  it('models a log-int range as a continuous one widened by half a step', () => {
    expect(parzenDimension({ type: 'int', low: 1, high: 100, log: true, step: 1 })).toEqual({
      kind: 'numeric',
      low: Math.log(0.5),
      high: Math.log(100.5),
      step: null,
    });
    expect(parzenDimension({ type: 'int', low: 0, high: 10, log: false, step: 2 })).toEqual({
      kind: 'numeric',
      low: 0,
      high: 10,
      step: 2,
    });
    expect(parzenDimension({ type: 'categorical', choices: ['a', 'b'] })).toEqual({
      kind: 'categorical',
      nChoices: 2,
    });
  });
});

describe('argsort', () => {
  it('orders any finite doubles, ties in input order', () => {
    const values = Float64Array.of(3, -1, 0, -0, 2.5, -1e300, 1e-310, 3, -2.5, 0.1);
    const order = argsort(values);
    const sorted = [...order].map((i) => values[i]);
    expect(sorted).toEqual([...values].sort((a, b) => a - b));
    // Stable: the first 3 (index 0) before the second (index 7).
    expect(order.indexOf(0)).toBeLessThan(order.indexOf(7));
    expect([...argsort(new Float64Array(0))]).toEqual([]);
  });
  it('matches a comparison sort on random data', () => {
    const rng = new Rng(2);
    const values = Float64Array.from({ length: 3000 }, () => (rng.uniform() - 0.3) * 1e3);
    const order = [...argsort(values)];
    const expected = [...values.keys()].sort(
      (a, b) => (values[a] ?? 0) - (values[b] ?? 0) || a - b,
    );
    expect(order).toEqual(expected);
  });
});

/*
 * Standard optimisation test functions with known global minima, for judging samplers: Branin
 * (2-D, three minima), Hartmann 6-D (one narrow basin among several) and a 10-D shifted quadratic.
 */

/** A test function to minimise over a box, with its known optimum. */
export interface BenchmarkFunction {
  /** A short name, e.g. "branin". */
  readonly name: string;
  /** [low, high] of each dimension. */
  readonly bounds: readonly (readonly [number, number])[];
  /** The global minimum value. */
  readonly minimum: number;
  /** A point where the minimum is attained. */
  readonly argmin: readonly number[];
  /** The function's value at `x` (one coordinate per dimension). */
  evaluate(x: ArrayLike<number>): number;
}

const BRANIN_B = 5.1 / (4 * Math.PI * Math.PI);
const BRANIN_C = 5 / Math.PI;
const BRANIN_T = 1 / (8 * Math.PI);

/** Branin–Hoo on [−5, 10] × [0, 15]: minimum 0.397887 at (−π, 12.275), (π, 2.275), (9.42478, 2.475). */
export const branin: BenchmarkFunction = {
  name: 'branin',
  bounds: [
    [-5, 10],
    [0, 15],
  ],
  minimum: 0.397887357729738,
  argmin: [Math.PI, 2.275],
  evaluate(x) {
    const x1 = x[0] ?? 0;
    const x2 = x[1] ?? 0;
    const q = x2 - BRANIN_B * x1 * x1 + BRANIN_C * x1 - 6;
    return q * q + 10 * (1 - BRANIN_T) * Math.cos(x1) + 10;
  },
};

const H6_ALPHA = [1.0, 1.2, 3.0, 3.2];
const H6_A = [
  [10, 3, 17, 3.5, 1.7, 8],
  [0.05, 10, 17, 0.1, 8, 14],
  [3, 3.5, 1.7, 10, 17, 8],
  [17, 8, 0.05, 10, 0.1, 14],
];
const H6_P = [
  [1312, 1696, 5569, 124, 8283, 5886],
  [2329, 4135, 8307, 3736, 1004, 9991],
  [2348, 1451, 3522, 2883, 3047, 6650],
  [4047, 8828, 8732, 5743, 1091, 381],
].map((row) => row.map((v) => v * 1e-4));

/** Hartmann 6-D on [0, 1]⁶: minimum −3.32237 near (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573). */
export const hartmann6: BenchmarkFunction = {
  name: 'hartmann6',
  bounds: Array.from({ length: 6 }, () => [0, 1] as const),
  minimum: -3.322368011415511,
  argmin: [0.20168952, 0.15001069, 0.47687398, 0.27533243, 0.31165162, 0.65730054],
  evaluate(x) {
    let sum = 0;
    for (let i = 0; i < 4; i++) {
      const a = H6_A[i] ?? [];
      const p = H6_P[i] ?? [];
      let inner = 0;
      for (let j = 0; j < 6; j++) {
        const d = (x[j] ?? 0) - (p[j] ?? 0);
        inner += (a[j] ?? 0) * d * d;
      }
      sum += (H6_ALPHA[i] ?? 0) * Math.exp(-inner);
    }
    return -sum;
  },
};

const QUADRATIC_CENTRE = [1.5, -2, 0.5, 3, -1, 2.5, -3.5, 0.25, 1, -0.5];

/** Σ (xᵢ − cᵢ)² on [−5, 5]¹⁰ with fixed offsets c: minimum 0 at c. */
export const quadratic10: BenchmarkFunction = {
  name: 'quadratic10',
  bounds: Array.from({ length: 10 }, () => [-5, 5] as const),
  minimum: 0,
  argmin: QUADRATIC_CENTRE,
  evaluate(x) {
    let sum = 0;
    for (let i = 0; i < 10; i++) {
      const d = (x[i] ?? 0) - (QUADRATIC_CENTRE[i] ?? 0);
      sum += d * d;
    }
    return sum;
  },
};

/** All benchmark functions, by name. */
export const BENCHMARK_FUNCTIONS: readonly BenchmarkFunction[] = [branin, hartmann6, quadratic10];

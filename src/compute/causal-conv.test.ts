import * as tf from './tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { Rng } from '../core/random.js';
import { applyDropout, causalConv1d, nativeConvActive, receptiveField } from './causal-conv.js';
import { loadNativeGemm } from './native-gemm.js';
import { setNativeTrainingKernelsEnabled } from './native-training-kernels.js';

beforeAll(async () => {
  await useBackend('wasm');
});

function values(length: number, seed: number): Float64Array {
  const rng = new Rng(seed, 5);
  return Float64Array.from({ length }, () => rng.uniform() * 2 - 1);
}

/** The convolution by its definition, in float64: y[b,t,o] = bias[o] + Σ_j Σ_i x[b, t−(k−1−j)d, i]·w[j,i,o]. */
function directConv(
  x: Float64Array,
  w: Float64Array,
  bias: Float64Array,
  [batch, time, inputs]: readonly [number, number, number],
  taps: number,
  outputs: number,
  d: number,
): Float64Array {
  const y = new Float64Array(batch * time * outputs);
  for (let b = 0; b < batch; b++)
    for (let t = 0; t < time; t++)
      for (let o = 0; o < outputs; o++) {
        let s = bias[o] ?? 0;
        for (let j = 0; j < taps; j++) {
          const src = t - (taps - 1 - j) * d;
          if (src < 0) continue;
          for (let i = 0; i < inputs; i++)
            s += (x[(b * time + src) * inputs + i] ?? 0) * (w[(j * inputs + i) * outputs + o] ?? 0);
        }
        y[(b * time + t) * outputs + o] = s;
      }
  return y;
}

/**
 * The gradients by their definitions, in float64: ∂L/∂w[j,i,o] = Σ_b,t x[b, t−(k−1−j)d, i]·dz[b,t,o];
 * ∂L/∂x[b,s,i] = Σ_j,o dz[b, s+(k−1−j)d, o]·w[j,i,o]; ∂L/∂bias[o] = Σ_b,t dz[b,t,o].
 */
function referenceGradients(
  x: Float64Array,
  w: Float64Array,
  dz: ArrayLike<number>,
  [batch, time, inputs]: readonly [number, number, number],
  taps: number,
  outputs: number,
  d: number,
): [Float64Array, Float64Array, Float64Array] {
  const dw = new Float64Array(w.length);
  const dx = new Float64Array(x.length);
  const db = new Float64Array(outputs);
  for (let b = 0; b < batch; b++)
    for (let t = 0; t < time; t++)
      for (let o = 0; o < outputs; o++) {
        const g = dz[(b * time + t) * outputs + o] ?? 0;
        db[o] = (db[o] ?? 0) + g;
        for (let j = 0; j < taps; j++) {
          const src = t - (taps - 1 - j) * d;
          if (src < 0) continue;
          for (let i = 0; i < inputs; i++) {
            const wi = (j * inputs + i) * outputs + o;
            const xi = (b * time + src) * inputs + i;
            dw[wi] = (dw[wi] ?? 0) + (x[xi] ?? 0) * g;
            dx[xi] = (dx[xi] ?? 0) + (w[wi] ?? 0) * g;
          }
        }
      }
  return [dx, dw, db];
}

function expectClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: number,
): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < expected.length; i++)
    worst = Math.max(worst, Math.abs((actual[i] ?? Number.NaN) - (expected[i] ?? 0)));
  expect(worst).toBeLessThan(tolerance);
}

describe.each(['native', 'ops'] as const)('causalConv1d (%s path)', (path) => {
  beforeAll(() => {
    setNativeTrainingKernelsEnabled(path === 'native');
    expect(nativeConvActive()).toBe(path === 'native');
    return () => {
      setNativeTrainingKernelsEnabled(true);
    };
  });
  const shape: [number, number, number] = [3, 17, 4];
  const [batch, time, inputs] = shape;
  const outputs = 5;

  for (const [taps, d] of [
    [3, 1],
    [3, 4],
    [2, 8],
    [1, 1],
    [3, 20],
  ] as const) {
    it(`matches the float64 definition and its gradients (k=${taps}, dilation ${d})`, () => {
      const x = values(batch * time * inputs, 1);
      const w = values(taps * inputs * outputs, 2);
      const bias = values(outputs, 3);
      const dy = values(batch * time * outputs, 4);
      const expected = directConv(x, w, bias, shape, taps, outputs, d);
      const xt = tf.tensor3d(Float32Array.from(x), [batch, time, inputs]);
      const wt = tf.tensor3d(Float32Array.from(w), [taps, inputs, outputs]);
      const bt = tf.tensor1d(Float32Array.from(bias));
      const dyt = tf.tensor3d(Float32Array.from(dy), [batch, time, outputs]);
      const y = causalConv1d(xt, wt, bt, d);
      expectClose(y.dataSync(), expected, 1e-5);
      const [gx, gw, gb] = tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
        causalConv1d(a as tf.Tensor3D, b as tf.Tensor3D, c as tf.Tensor1D, d),
      )([xt, wt, bt], dyt);
      const [dx, dw, db] = referenceGradients(x, w, dy, shape, taps, outputs, d);
      expectClose(gx?.dataSync() ?? [], dx, 1e-4);
      expectClose(gw?.dataSync() ?? [], dw, 1e-4);
      expectClose(gb?.dataSync() ?? [], db, 1e-4);
      tf.dispose([xt, wt, bt, dyt, y, gx, gw, gb] as tf.Tensor[]);
    });
  }

  it('fuses ReLU and inverted dropout: seeded masks, and gradients through both', () => {
    const [taps, d, rate] = [3, 2, 0.5];
    const x = values(batch * time * inputs, 7);
    const w = values(taps * inputs * outputs, 8);
    const bias = values(outputs, 9);
    const dy = values(batch * time * outputs, 10);
    const z = directConv(x, w, bias, shape, taps, outputs, d);
    const xt = tf.tensor3d(Float32Array.from(x), [batch, time, inputs]);
    const wt = tf.tensor3d(Float32Array.from(w), [taps, inputs, outputs]);
    const bt = tf.tensor1d(Float32Array.from(bias));
    const conv = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor, seed = 3): tf.Tensor3D =>
      causalConv1d(a as tf.Tensor3D, b as tf.Tensor3D, c as tf.Tensor1D, d, {
        relu: true,
        dropout: rate,
        dropoutSeed: seed,
      });
    const y = conv(xt, wt, bt).dataSync();
    expect(conv(xt, wt, bt).dataSync()).toEqual(y);
    expect(conv(xt, wt, bt, 4).dataSync()).not.toEqual(y);
    let positive = 0;
    let kept = 0;
    for (let i = 0; i < z.length; i++) {
      const zi = z[i] ?? 0;
      const yi = y[i] ?? 0;
      if (zi <= 0) expect(yi).toBe(0);
      else {
        positive++;
        if (yi !== 0) {
          kept++;
          expect(Math.abs(yi - zi / (1 - rate))).toBeLessThan(1e-5);
        }
      }
    }
    expect(kept / positive).toBeGreaterThan(0.35);
    expect(kept / positive).toBeLessThan(0.65);
    // ∂y/∂z = [y > 0]/(1 − rate).
    const dz = Float64Array.from(dy, (g, i) => ((y[i] ?? 0) > 0 ? g / (1 - rate) : 0));
    const [dx, dw, db] = referenceGradients(x, w, dz, shape, taps, outputs, d);
    const dyt = tf.tensor3d(Float32Array.from(dy), [batch, time, outputs]);
    const grads = tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => conv(a, b, c))(
      [xt, wt, bt],
      dyt,
    );
    expectClose(grads[0]?.dataSync() ?? [], dx, 1e-4);
    expectClose(grads[1]?.dataSync() ?? [], dw, 1e-4);
    expectClose(grads[2]?.dataSync() ?? [], db, 1e-4);
    tf.dispose([xt, wt, bt, dyt, ...grads]);
  });

  it('is causal: a change at step s moves no output before s', () => {
    const x = values(batch * time * inputs, 5);
    const wt = tf.tensor3d(Float32Array.from(values(3 * inputs * outputs, 6)), [
      3,
      inputs,
      outputs,
    ]);
    const bt = tf.zeros<tf.Rank.R1>([outputs]);
    const run = (input: Float64Array): Float32Array =>
      tf.tidy(
        () =>
          causalConv1d(
            tf.tensor3d(Float32Array.from(input), [batch, time, inputs]),
            wt,
            bt,
            2,
          ).dataSync() as Float32Array,
      );
    const base = run(x);
    const s = 9;
    const changed = x.slice();
    for (let i = 0; i < inputs; i++) changed[(1 * time + s) * inputs + i] = 7;
    const after = run(changed);
    for (let t = 0; t < time; t++)
      for (let o = 0; o < outputs; o++) {
        const at = (1 * time + t) * outputs + o;
        if (t < s) expect(after[at]).toBe(base[at]);
      }
    // Step s itself and s + 2, s + 4 (the taps) do move.
    expect(after[(1 * time + s) * outputs]).not.toBe(base[(1 * time + s) * outputs]);
    tf.dispose([wt, bt]);
  });

  it('reports the receptive field of a stack', () => {
    expect(receptiveField(3, [1, 1, 2, 2, 4, 4])).toBe(1 + 2 * 14);
    expect(receptiveField(2, [1])).toBe(2);
  });
});

const addon = loadNativeGemm();

describe.skipIf(addon === undefined)('the native dropout', () => {
  it("draws the native dropout's mask bit for bit as the JavaScript loop", () => {
    expect(typeof addon?.dropout, 'an addon built from this tree has the native dropout').toBe(
      'function',
    );
    const params = new Float64Array(5);
    // Rates whose threshold passes 2^31 (a uint32 compare) and seeds past 2^31 (a uint32 state).
    for (const [rate, seed] of [
      [0.1, 0],
      [0.5, 3],
      [0.9, 4_000_000_000],
      [0.25, 2 ** 31 + 5],
    ] as const) {
      const values = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i) * 3 + 0.1);
      const expected = values.slice();
      applyDropout(expected, 3, 990, rate, seed);
      const actual = values.slice();
      params.set([3, 990, Math.floor(rate * 4294967296), Math.fround(1 / (1 - rate))]);
      params[4] = (seed ^ 0x9e3779b9) >>> 0;
      addon?.dropout?.(actual, params);
      expect(Array.from(actual), `rate ${rate}, seed ${seed}`).toEqual(Array.from(expected));
      expect(actual.filter((v) => v === 0).length / 990).toBeCloseTo(rate, 1);
    }
  });
});

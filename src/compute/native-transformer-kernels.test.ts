import * as tf from './tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { nativeGemmStatus, setNativeThreads, useNativeKernel } from './native-gemm.js';
import { setNativeTrainingKernelsEnabled } from './native-training-kernels.js';
import {
  firstTokenRows,
  layerNorm,
  multiHeadAttention,
  multiHeadCrossAttention,
  nativeTransformerKernelsActive,
  tokenize,
} from './native-transformer-kernels.js';

/*
 * The native transformer kernels against the tfjs ops they replace: outputs and the gradients of
 * every input, to float32 rounding (they sum in another order); attention on every instruction
 * set this CPU runs (it follows the GEMM's). Skipped when the native addon is not built, except
 * in CI.
 */

const native = nativeGemmStatus();
const skip = !native.available && process.env.CI !== 'true';

/** Runs `fn` with the native kernels on, then off; returns both results. */
function bothWays<T>(fn: () => T): [T, T] {
  setNativeTrainingKernelsEnabled(true);
  expect(nativeTransformerKernelsActive()).toBe(true);
  const fused = fn();
  setNativeTrainingKernelsEnabled(false);
  try {
    expect(nativeTransformerKernelsActive()).toBe(false);
    return [fused, fn()];
  } finally {
    setNativeTrainingKernelsEnabled(true);
  }
}

/**
 * The largest |a − b| over the largest |b|: an error relative to the tensor's scale, which an
 * element near 0 cannot inflate.
 */
function relativeError(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
    scale = Math.max(scale, Math.abs(b[i] ?? 0));
  }
  return diff / scale;
}

/** Each value of `fn`'s result and the gradients of Σ result·weights with respect to `inputs`. */
function valueAndGradients(
  fn: (...inputs: tf.Tensor[]) => tf.Tensor,
  inputs: tf.Tensor[],
  seed: number,
): Float32Array[] {
  return tf.tidy(() => {
    const y = fn(...inputs);
    const weights = tf.randomNormal(y.shape, 0, 1, 'float32', seed);
    const grads = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(fn(...xs), weights)))(inputs);
    return [y, ...grads].map((t) => t.dataSync() as Float32Array);
  });
}

function expectClose(fused: Float32Array[], plain: Float32Array[], names: string[]): void {
  expect(fused).toHaveLength(names.length);
  names.forEach((name, i) => {
    const [a, b] = [fused[i], plain[i]];
    if (a === undefined || b === undefined) throw new Error(`no ${name}`);
    expect(relativeError(a, b), name).toBeLessThan(1e-4);
  });
}

describe.skipIf(skip)('native transformer kernels match the tfjs ops', () => {
  beforeAll(async () => {
    await useBackend('wasm', { matmul: 'native' });
  });
  afterAll(() => {
    setNativeTrainingKernelsEnabled(true);
  });

  // 37 tokens (partial tiles of keys and queries), dHead 8 (attention-fast.h) and 6 (the generic
  // loops), on each instruction set; self-attention (qkv), and 1 or 3 queries per sample (q, kv).
  for (const isa of native.kernels ?? ['avx512'])
    for (const [heads, d] of [
      [4, 32],
      [2, 12],
    ] as const)
      for (const queries of ['all', 1, 3] as const)
        it(`attention on ${isa}, ${heads} heads of ${d / heads}, queries ${queries}: output and gradients`, () => {
          const tokens = 37;
          const batch = 5;
          const kv = tf.randomNormal<tf.Rank.R2>([batch * tokens, 2 * d], 0, 1.5, 'float32', 1);
          const rows = batch * (queries === 'all' ? tokens : queries);
          const q = tf.randomNormal<tf.Rank.R2>([rows, d], 0, 1.5, 'float32', 2);
          // Self-attention reads q, k and v from one [batch·tokens, 3d] projection.
          const inputs = queries === 'all' ? [tf.concat([q, kv], 1)] : [q, kv];
          const attend = (...xs: tf.Tensor[]): tf.Tensor =>
            queries === 'all'
              ? multiHeadAttention(xs[0] as tf.Tensor2D, { tokens, heads })
              : multiHeadCrossAttention(xs[0] as tf.Tensor2D, xs[1] as tf.Tensor2D, {
                  tokens,
                  heads,
                });
          const before = tf.memory().numTensors;
          useNativeKernel(isa);
          let fused: Float32Array[];
          let plain: Float32Array[];
          try {
            [fused, plain] = bothWays(() => valueAndGradients(attend, inputs, 3));
          } finally {
            useNativeKernel(native.kernel ?? 'own');
          }
          expect(tf.memory().numTensors).toBe(before);
          expect(fused[0]).toHaveLength(rows * d);
          expectClose(
            fused,
            plain,
            queries === 'all' ? ['output', 'dqkv'] : ['output', 'dq', 'dkv'],
          );
          tf.dispose([q, kv, ...inputs]);
        });

  it('attention weighs every key: a key far above the rest takes all the weight', () => {
    const [tokens, d] = [3, 4];
    // One head; token 2's key lines up with every query, 40× more than the others.
    const rows = [
      [1, 0, 0, 0, 0.1, 0, 0, 0, 1, 1, 1, 1],
      [1, 0, 0, 0, 0, 0.1, 0, 0, 2, 2, 2, 2],
      [1, 0, 0, 0, 40, 0, 0, 0, 3, 3, 3, 3],
    ];
    const qkv = tf.tensor2d(rows.flat(), [tokens, 3 * d]);
    const [fused, plain] = bothWays(() =>
      tf.tidy(() => multiHeadAttention(qkv, { tokens, heads: 1 }).dataSync() as Float32Array),
    );
    for (const out of [fused, plain]) for (const v of out) expect(v).toBeCloseTo(3, 4);
    qkv.dispose();
  });

  it('LayerNorm: output and the gradients of x, gain and bias', () => {
    const x = tf.randomNormal<tf.Rank.R2>([1100, 35], 0.5, 2, 'float32', 3);
    const gain = tf.randomNormal<tf.Rank.R1>([35], 1, 0.3, 'float32', 4);
    const bias = tf.randomNormal<tf.Rank.R1>([35], 0, 0.3, 'float32', 5);
    const norm = (a: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor =>
      layerNorm(a as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D);
    const before = tf.memory().numTensors;
    const [fused, plain] = bothWays(() => valueAndGradients(norm, [x, gain, bias], 6));
    expect(tf.memory().numTensors).toBe(before);
    expectClose(fused, plain, ['output', 'dx', 'dgain', 'dbias']);
    tf.dispose([x, gain, bias]);
  });

  it('tokens with [CLS] first, and [CLS] read back out: values and gradients', () => {
    const [batch, inputs, d] = [6, 9, 8];
    const x = tf.randomNormal<tf.Rank.R2>([batch, inputs], 0, 1, 'float32', 7);
    const w = tf.randomNormal<tf.Rank.R2>([inputs, d], 0, 1, 'float32', 8);
    const bias = tf.randomNormal<tf.Rank.R2>([inputs, d], 0, 1, 'float32', 9);
    const cls = tf.randomNormal<tf.Rank.R2>([1, d], 0, 1, 'float32', 10);
    const tokens = (ws: tf.Tensor, bs: tf.Tensor, cs: tf.Tensor): tf.Tensor =>
      tokenize(x, ws as tf.Tensor2D, bs as tf.Tensor2D, cs as tf.Tensor2D);
    const first = (t: tf.Tensor): tf.Tensor => firstTokenRows(t as tf.Tensor2D, inputs + 1);
    const before = tf.memory().numTensors;
    const [fused, plain] = bothWays(() => [
      ...valueAndGradients(tokens, [w, bias, cls], 11),
      ...tf.tidy(() => valueAndGradients(first, [tokens(w, bias, cls)], 12)),
    ]);
    expect(tf.memory().numTensors).toBe(before);
    expect(fused[0]).toHaveLength(batch * (inputs + 1) * d);
    expect(Array.from(fused[0]?.subarray(0, d) ?? [])).toEqual(Array.from(cls.dataSync()));
    expect(Array.from(fused[4] ?? [])).toEqual(Array.from(plain[4] ?? []));
    expect(Array.from(fused[5] ?? [])).toEqual(Array.from(plain[5] ?? []));
    expectClose(fused.slice(0, 4), plain.slice(0, 4), ['tokens', 'dw', 'dbias', 'dcls']);
    tf.dispose([x, w, bias, cls]);
  });
  it('LayerNorm and attention give the same bits on 1, 2 and 3 threads', () => {
    // 2,100 rows: five chunks of the backward pass's column sums, split over the threads.
    const x = tf.randomNormal<tf.Rank.R2>([2100, 32], 0.5, 2, 'float32', 13);
    const gain = tf.randomNormal<tf.Rank.R1>([32], 1, 0.3, 'float32', 14);
    const bias = tf.randomNormal<tf.Rank.R1>([32], 0, 0.3, 'float32', 15);
    const qkv = tf.randomNormal<tf.Rank.R2>([60 * 35, 96], 0, 1.5, 'float32', 16);
    const run = (): number[][] =>
      [
        ...valueAndGradients(
          (a, g, b) => layerNorm(a as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D),
          [x, gain, bias],
          17,
        ),
        ...valueAndGradients(
          (a) => multiHeadAttention(a as tf.Tensor2D, { tokens: 35, heads: 4 }),
          [qkv],
          18,
        ),
      ].map((values) => Array.from(new Uint32Array(values.slice().buffer)));
    try {
      setNativeThreads(1);
      const one = run();
      for (const threads of [2, 3]) {
        setNativeThreads(threads);
        run().forEach((values, i) => {
          expect(values, `output ${i}, ${threads} threads`).toEqual(one[i]);
        });
      }
    } finally {
      setNativeThreads(1);
    }
    tf.dispose([x, gain, bias, qkv]);
  });
});

import * as tf from '../compute/tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import {
  nativeTransformerKernelsActive,
  setNativeTrainingKernelsEnabled,
} from '../compute/index.js';
import { Rng } from '../core/random.js';
import { FtTransformer, ftTransformerSize } from './ft-transformer.js';

beforeAll(async () => {
  await useBackend('wasm');
});

/** Seeded inputs [rows, cols] in [−1, 1]. */
function inputs(rows: number, cols: number, seed = 1): Float32Array {
  const rng = new Rng(seed, 3);
  return Float32Array.from({ length: rows * cols }, () => rng.uniform() * 2 - 1);
}

function run(net: FtTransformer, x: Float32Array, rows: number): Float32Array {
  return tf.tidy(
    () => net.apply(tf.tensor2d(x, [rows, net.config.inputs])).dataSync() as Float32Array,
  );
}

describe('FT-Transformer', () => {
  it('maps [batch, inputs] to [batch, outputs], the same for the same seed', () => {
    const a = new FtTransformer({ inputs: 7, outputs: 3, seed: 4 }, 'ft-a');
    const b = new FtTransformer({ inputs: 7, outputs: 3, seed: 4 }, 'ft-b');
    const c = new FtTransformer({ inputs: 7, outputs: 3, seed: 5 }, 'ft-c');
    const x = inputs(5, 7);
    const out = run(a, x, 5);
    expect(out).toHaveLength(15);
    expect(out.every(Number.isFinite)).toBe(true);
    expect(run(b, x, 5)).toEqual(out);
    expect(run(c, x, 5)).not.toEqual(out);
    expect(tf.tidy(() => a.apply(tf.zeros([0, 7])).shape)).toEqual([0, 3]);
    // Parameters: tokenizer 2·inputs·d + cls d; per block 4d² + d + 2·(d·h) + h + d + 4d (norms);
    // head 2d + d·outputs + outputs.
    const d = 32;
    const h = 64;
    const perBlock = 4 * d * d + d + d * h + h + h * d + d + 4 * d;
    const expected = 2 * 7 * d + d + 2 * perBlock + 2 * d + d * 3 + 3;
    expect(a.variables.reduce((n, v) => n + v.size, 0)).toBe(expected);
    expect(ftTransformerSize({ inputs: 7, outputs: 3 }).paramCount).toBe(expected);
    // The fused attention holds no T × T scores: 4 heads × (8² − 8) × 2 blocks × 2 (with grads).
    const plain = ftTransformerSize({ inputs: 7, outputs: 3 });
    const fused = ftTransformerSize({ inputs: 7, outputs: 3 }, { fusedAttention: true });
    expect(fused.paramCount).toBe(plain.paramCount);
    expect(plain.activationsPerSample - fused.activationsPerSample).toBe(2 * 2 * 2 * 4 * (64 - 8));
    expect(Object.keys(a.namedVariables())).toContain('block1/wq');
    for (const net of [a, b, c]) net.dispose();
  });

  it('keeps batch rows independent, and mixes the features of a row', () => {
    const net = new FtTransformer({ inputs: 6, outputs: 2, seed: 1 }, 'ft-rows');
    const x = inputs(4, 6, 2);
    const base = run(net, x, 4);
    const changed = x.slice();
    changed[2 * 6 + 5] = (changed[2 * 6 + 5] ?? 0) + 1; // row 2, last feature
    const after = run(net, changed, 4);
    for (const row of [0, 1, 3])
      expect(Array.from(after.subarray(row * 2, row * 2 + 2))).toEqual(
        Array.from(base.subarray(row * 2, row * 2 + 2)),
      );
    expect(Array.from(after.subarray(4, 6))).not.toEqual(Array.from(base.subarray(4, 6)));
    net.dispose();
  });

  it('learns: Adam fits y = x0 − x1 and every variable gets a gradient', () => {
    const net = new FtTransformer(
      { inputs: 4, outputs: 1, dToken: 16, heads: 2, seed: 3 },
      'ft-fit',
    );
    const rows = 128;
    const xs = inputs(rows, 4, 9);
    const ys = Float32Array.from(
      { length: rows },
      (_, i) => (xs[i * 4] ?? 0) - (xs[i * 4 + 1] ?? 0),
    );
    const x = tf.tensor2d(xs, [rows, 4]);
    const y = tf.tensor2d(ys, [rows, 1]);
    const optimizer = tf.train.adam(3e-3);
    const loss = (): tf.Scalar => tf.losses.meanSquaredError(y, net.apply(x));
    const first = tf.tidy(() => loss().dataSync()[0] ?? 0);
    const { value, grads } = tf.variableGrads(loss, net.variables);
    for (const [name, g] of Object.entries(grads))
      expect(
        tf.tidy(() => tf.sum(tf.abs(g)).dataSync()[0]),
        name,
      ).toBeGreaterThan(0);
    tf.dispose([value, ...Object.values(grads)]);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 150; i++)
      tf.tidy(() => {
        optimizer.minimize(loss, false, net.variables);
      });
    const last = tf.tidy(() => loss().dataSync()[0] ?? 0);
    expect(last).toBeLessThan(first / 4);
    optimizer.dispose();
    tf.dispose([x, y]);
    // Adam's slots were made in the first step; nothing else stays.
    expect(tf.memory().numTensors).toBeLessThanOrEqual(before + 2 * net.variables.length);
    net.dispose();
  });

  it('releases every tensor, and leaks none per forward pass', () => {
    const start = tf.memory().numTensors;
    const net = new FtTransformer({ inputs: 5, outputs: 2 }, 'ft-leak');
    const after = tf.memory().numTensors;
    expect(after - start).toBe(net.variables.length);
    const x = inputs(3, 5);
    run(net, x, 3);
    run(net, x, 3);
    expect(tf.memory().numTensors).toBe(after);
    net.dispose();
    expect(tf.memory().numTensors).toBe(start);
  });

  it('gives the same outputs and gradients on the native kernels as on the tfjs ops', () => {
    // Where the addon is built, the native kernels run by default; elsewhere both runs are tfjs.
    const net = new FtTransformer({ inputs: 11, outputs: 3, seed: 6 }, 'ft-paths');
    const x = tf.tensor2d(inputs(9, 11, 4), [9, 11]);
    const weights = tf.tensor2d(inputs(9, 3, 5), [9, 3]);
    const pass = (): Float32Array[] =>
      tf.tidy(() => {
        const { value, grads } = tf.variableGrads(
          () => tf.sum<tf.Scalar>(tf.mul(net.apply(x), weights)),
          net.variables,
        );
        return [
          net.apply(x).dataSync() as Float32Array,
          value.dataSync() as Float32Array,
          ...net.variables.map((v) => grads[v.name]?.dataSync() as Float32Array),
        ];
      });
    const native = nativeTransformerKernelsActive();
    const fused = pass();
    setNativeTrainingKernelsEnabled(false);
    let plain: Float32Array[];
    try {
      plain = pass();
    } finally {
      setNativeTrainingKernelsEnabled(true);
    }
    expect(nativeTransformerKernelsActive()).toBe(native);
    fused.forEach((a, i) => {
      const b = plain[i] ?? new Float32Array();
      const scale = Math.max(...Array.from(b, Math.abs));
      const diff = Math.max(...Array.from(a, (v, j) => Math.abs(v - (b[j] ?? 0))));
      expect(diff / scale, `tensor ${i}`).toBeLessThan(1e-4);
    });
    tf.dispose([x, weights]);
    net.dispose();
  });

  it('keeps the same number of tensors from one training step to the next', () => {
    const net = new FtTransformer({ inputs: 9, outputs: 2, seed: 2 }, 'ft-steps');
    const x = tf.tensor2d(inputs(16, 9, 6), [16, 9]);
    const y = tf.tensor2d(inputs(16, 2, 7), [16, 2]);
    const optimizer = tf.train.adam(1e-3);
    const step = (): void => {
      tf.tidy(() => {
        optimizer.minimize(() => tf.losses.meanSquaredError(y, net.apply(x)), false, net.variables);
      });
    };
    step();
    const after = tf.memory().numTensors;
    for (let i = 0; i < 4; i++) step();
    expect(tf.memory().numTensors).toBe(after);
    optimizer.dispose();
    tf.dispose([x, y]);
    net.dispose();
  });

  it('says which setting is wrong and how to fix it', () => {
    expect(() => new FtTransformer({ inputs: 4, outputs: 1, heads: 3 }, 'ft-bad')).toThrow(
      /ft_transformer: heads 3 does not divide dToken 32/,
    );
    expect(() => new FtTransformer({ inputs: 0, outputs: 1 }, 'ft-bad2')).toThrow(
      /ft_transformer: inputs must be a whole number ≥ 1, got 0/,
    );
  });
});

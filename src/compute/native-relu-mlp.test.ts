import * as tf from './tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { nativeGemmStatus, setNativeThreads } from './native-gemm.js';
import { setNativeTrainingKernelsEnabled } from './native-training-kernels.js';
import { nativeReluMlpActive } from './native-relu-mlp.js';
import { Mlp } from '../models/mlp.js';

/*
 * A whole ReLU MLP as two kernels (native-relu-mlp.ts) against tfjs's own kernels layer by layer:
 * the same output and the same weight and bias gradients, bit for bit, for networks with no hidden
 * layer, one, and three (odd widths that cut the ReLU bits' words and the GEMM's tiles), on one
 * thread and on two. Skipped when the native addon is not built, except in CI.
 */

const skip = !nativeGemmStatus().available && process.env.CI !== 'true';

const bits = (t: tf.Tensor): number[] =>
  Array.from(new Uint32Array((t.dataSync() as Float32Array).buffer.slice(0)));

/** The output and every variable's gradient of Σ(out · weights), as bits. */
function outputAndGradients(net: Mlp, x: tf.Tensor2D, weights: tf.Tensor2D): number[][] {
  return tf.tidy(() => {
    const out = net.apply(x);
    const { grads } = tf.variableGrads(
      () => tf.sum<tf.Scalar>(tf.mul(net.apply(x), weights)),
      net.variables,
    );
    return [bits(out), ...net.variables.map((v) => bits(grads[v.name] as tf.Tensor))];
  });
}

describe.skipIf(skip)('a whole ReLU MLP in two native kernels', () => {
  beforeAll(async () => {
    await useBackend('wasm', { matmul: 'native' });
  });
  afterAll(() => {
    setNativeTrainingKernelsEnabled(true);
  });

  const shapes: { inputs: number; hidden: number[]; outputs: number; rows: number }[] = [
    { inputs: 7, hidden: [], outputs: 3, rows: 50 },
    { inputs: 81, hidden: [137], outputs: 10, rows: 1030 },
    { inputs: 13, hidden: [70, 33, 129], outputs: 1, rows: 257 },
  ];

  for (const threads of [1, 2])
    for (const shape of shapes)
      it(`gives tfjs's bits: ${shape.inputs}→${[...shape.hidden, shape.outputs].join('→')}, ${shape.rows} rows, ${threads} thread(s)`, () => {
        setNativeThreads(threads);
        const net = new Mlp(
          { inputs: shape.inputs, hidden: shape.hidden, outputs: shape.outputs, seed: 4 },
          `relu-mlp-${shape.hidden.length}`,
        );
        // Biases off zero, so that their gradients and the ReLU masks have something to show.
        for (const b of net.biases) b.assign(tf.randomNormal(b.shape, 0, 0.5, 'float32', 9));
        const x = tf.randomNormal<tf.Rank.R2>([shape.rows, shape.inputs], 0, 1, 'float32', 1);
        const weights = tf.randomNormal<tf.Rank.R2>(
          [shape.rows, shape.outputs],
          0,
          1,
          'float32',
          2,
        );
        try {
          setNativeTrainingKernelsEnabled(true);
          expect(nativeReluMlpActive()).toBe(true);
          const before = tf.memory().numTensors;
          const fused = outputAndGradients(net, x, weights);
          expect(tf.memory().numTensors).toBe(before);
          setNativeTrainingKernelsEnabled(false);
          expect(nativeReluMlpActive()).toBe(false);
          const layered = outputAndGradients(net, x, weights);
          expect(fused.length).toBe(layered.length);
          fused.forEach((values, i) => {
            expect(values, `tensor ${i}`).toEqual(layered[i]);
          });
          // Not all zero: the masks left gradients through.
          expect(fused.slice(1).every((g) => g.some((v) => v !== 0))).toBe(true);
        } finally {
          setNativeTrainingKernelsEnabled(true);
          setNativeThreads(1);
          net.dispose();
          tf.dispose([x, weights]);
        }
      });
});

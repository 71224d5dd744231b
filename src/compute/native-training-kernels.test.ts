import * as tf from './tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { nativeGemmStatus } from './native-gemm.js';
import {
  adamStep,
  denseRelu,
  nativeTrainingKernelsActive,
  setNativeTrainingKernelsEnabled,
  sumOfSquares,
} from './native-training-kernels.js';

/*
 * The fused training kernels must give exactly the bits of the tfjs kernels they replace: a
 * dense ReLU layer's output and gradients, a sum of squares, and Adam steps. Skipped when the
 * native addon is not built, except in CI.
 */

const native = nativeGemmStatus();
const skip = !native.available && process.env.CI !== 'true';

/** Runs `fn` with the fused kernels on, then off; returns both results as plain arrays. */
function bothWays<T>(fn: () => T): [T, T] {
  setNativeTrainingKernelsEnabled(true);
  expect(nativeTrainingKernelsActive()).toBe(true);
  const fused = fn();
  setNativeTrainingKernelsEnabled(false);
  try {
    expect(nativeTrainingKernelsActive()).toBe(false);
    return [fused, fn()];
  } finally {
    setNativeTrainingKernelsEnabled(true);
  }
}

const bits = (t: tf.Tensor): number[] =>
  Array.from(new Uint32Array((t.dataSync() as Float32Array).buffer.slice(0)));

describe.skipIf(skip)('native training kernels give the bits of the tfjs kernels', () => {
  beforeAll(async () => {
    await useBackend('wasm', { matmul: 'native' });
  });
  afterAll(() => {
    setNativeTrainingKernelsEnabled(true);
  });

  it('a dense ReLU layer: output and the gradients of x, W and b', () => {
    const x = tf.randomNormal<tf.Rank.R2>([300, 37], 0, 1, 'float32', 1);
    const w = tf.variable(tf.randomNormal([37, 70], 0, 0.3, 'float32', 2), true, 'dense-relu-w');
    const b = tf.variable(tf.randomNormal([70], 0, 0.3, 'float32', 3), true, 'dense-relu-b');
    const weights = tf.randomNormal([300, 70], 0, 1, 'float32', 4);
    const run = (): number[][] =>
      tf.tidy(() => {
        const y = denseRelu(x, w as tf.Tensor2D, b as tf.Tensor1D);
        const { grads } = tf.variableGrads(
          () =>
            tf.sum<tf.Scalar>(tf.mul(denseRelu(x, w as tf.Tensor2D, b as tf.Tensor1D), weights)),
          [w, b],
        );
        const dx = tf.grad((input: tf.Tensor) =>
          tf.sum(
            tf.mul(denseRelu(input as tf.Tensor2D, w as tf.Tensor2D, b as tf.Tensor1D), weights),
          ),
        )(x);
        // A first layer: no gradient into its input, the same ones into W and b.
        const first = tf.variableGrads(
          () =>
            tf.sum<tf.Scalar>(
              tf.mul(
                denseRelu(x, w as tf.Tensor2D, b as tf.Tensor1D, { inputGradient: false }),
                weights,
              ),
            ),
          [w, b],
        ).grads;
        return [
          bits(y),
          bits(grads[w.name] as tf.Tensor),
          bits(grads[b.name] as tf.Tensor),
          bits(dx),
          bits(first[w.name] as tf.Tensor),
          bits(first[b.name] as tf.Tensor),
        ];
      });
    const before = tf.memory().numTensors;
    const [fused, plain] = bothWays(run);
    expect(tf.memory().numTensors).toBe(before);
    expect(fused.map((a) => a.length)).toEqual([300 * 70, 37 * 70, 70, 300 * 37, 37 * 70, 70]);
    expect(fused[4]).toEqual(fused[1]);
    expect(fused[5]).toEqual(fused[2]);
    fused.forEach((values, i) => {
      expect(values, `output ${i}`).toEqual(plain[i]);
    });
    // Some units are off: the mask matters.
    expect(
      (denseRelu(x, w as tf.Tensor2D, b as tf.Tensor1D).dataSync() as Float32Array).some(
        (v) => v === 0,
      ),
    ).toBe(true);
    tf.dispose([x, w, b, weights]);
  });

  it('a sum of squares over several tensors', () => {
    const tensors = [
      tf.randomNormal([513, 17], 0, 1, 'float32', 5),
      tf.randomNormal([7], 0, 3, 'float32', 6),
      tf.randomNormal([2, 3, 4], 0, 0.01, 'float32', 7),
    ];
    const [fused, plain] = bothWays(() => tf.tidy(() => bits(sumOfSquares(tensors))));
    expect(fused).toEqual(plain);
    tf.dispose(tensors);
  });

  it('Adam steps with a scaled gradient, against tfjs’s AdamOptimizer', () => {
    const constants = { learningRate: 3e-4, beta1: 0.9, beta2: 0.999, epsilon: 1e-5 };
    const w0 = tf.randomNormal([129, 33], 0, 1, 'float32', 8);
    const reference = tf.variable(w0.clone(), true, 'adam-reference');
    const optimizer = tf.train.adam(
      constants.learningRate,
      constants.beta1,
      constants.beta2,
      constants.epsilon,
    );
    let w = w0.clone();
    let m = tf.zerosLike(w0);
    let v = tf.zerosLike(w0);
    let accBeta1 = tf.scalar(constants.beta1);
    let accBeta2 = tf.scalar(constants.beta2);
    for (let step = 0; step < 5; step++) {
      const g = tf.randomNormal([129, 33], 0, 2, 'float32', 10 + step);
      const scale = tf.scalar(0.37 + step / 10);
      tf.tidy(() => {
        optimizer.applyGradients({ [reference.name]: tf.mul(g, scale) });
      });
      const [w2, m2, v2] = adamStep({ w, g, m, v, accBeta1, accBeta2, scale }, constants);
      const b1 = tf.mul<tf.Scalar>(accBeta1, constants.beta1);
      const b2 = tf.mul<tf.Scalar>(accBeta2, constants.beta2);
      tf.dispose([w, m, v, accBeta1, accBeta2, g, scale]);
      [w, m, v, accBeta1, accBeta2] = [w2, m2, v2, b1, b2];
      expect(bits(w), `step ${step}`).toEqual(bits(reference));
    }
    tf.dispose([w0, reference, w, m, v, accBeta1, accBeta2]);
    optimizer.dispose();
  });
});

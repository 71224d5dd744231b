import * as tf from '../../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../../compute/index.js';
import { Rng } from '../../core/random.js';
import { gpuTestAdapter } from '../../../test/support/webgpu.js';
import { dispatchOf, runDispatches, storageOf, uniformOf, type Workgroups } from '../dispatch.js';
import { openGpuDevice, type GpuDevice } from '../gpu-device.js';
import type { KernelSpec } from '../pipeline-cache.js';
import { mseLossKernel, mseUniform } from './mse-loss.js';
import {
  addReluKernel,
  elementwiseUniform,
  elementwiseWorkgroups,
  reluMaskKernel,
} from './residual-relu.js';
import {
  poolingBackwardKernel,
  poolingKernel,
  poolingUniform,
  POOLING_THREADS,
  type Pooling,
} from './sequence-pooling.js';

/*
 * The TCN's smaller kernels on the engine against the same expressions in tfjs (wasm): a block's
 * relu(h + residual) and its gradient mask, the chunk encoder's last-step and mean pooling with
 * their gradients, and the MSE loss of a micro-batch as its share of the step's mean, with its
 * gradient. Tolerance 1e-6 relative to each result's largest value (these are sums of a few terms).
 */

const found = await gpuTestAdapter('src/gpu/kernels/tcn-parts.test.ts');

describe.skipIf(!found)(
  "the TCN's element-wise kernels on the GPU engine",
  { timeout: 240_000 },
  () => {
    let gpu: GpuDevice;
    beforeAll(async () => {
      await useBackend('wasm');
      gpu = await openGpuDevice();
    });
    afterAll(() => {
      gpu.destroy();
    });

    const rng = new Rng(21);
    const values = (n: number): Float32Array =>
      Float32Array.from({ length: n }, () => rng.uniform() * 2 - 1);

    /** Runs `spec` on `inputs` (after its uniform) and returns its output of `length` values. */
    async function run(
      spec: KernelSpec,
      uniform: Uint32Array | ArrayBuffer,
      inputs: Float32Array[],
      length: number,
      workgroups: Workgroups,
      extraOutput?: Float32Array,
    ): Promise<Float32Array[]> {
      const kernel = await gpu.pipelines.kernel(spec);
      const params = uniformOf(
        gpu,
        uniform instanceof ArrayBuffer ? new Uint32Array(uniform) : uniform,
        spec.label,
      );
      const out = gpu.storageBuffer(length * 4, 'out');
      const extra = extraOutput === undefined ? undefined : storageOf(gpu, extraOutput, 'extra');
      const buffers = [
        params,
        ...inputs.map((x, i) => storageOf(gpu, x, `in ${i}`)),
        out,
        ...(extra === undefined ? [] : [extra]),
      ];
      runDispatches(gpu, [dispatchOf(gpu, kernel, buffers, workgroups)]);
      const results = [await gpu.readFloats(out, 0, length)];
      if (extra !== undefined) results.push(await gpu.readFloats(extra, 0, extraOutput?.length));
      gpu.check();
      return results;
    }

    const close = (got: Float32Array, want: ArrayLike<number>, what: string): void => {
      const wanted = Array.from(want);
      const scale = Math.max(1e-12, ...wanted.map(Math.abs));
      const worst = Math.max(...wanted.map((x, i) => Math.abs(x - (got[i] as number))));
      expect(worst / scale, what).toBeLessThanOrEqual(1e-6);
    };

    it("ends a block with relu(h + residual), and masks the gradient by the output's sign", async () => {
      const n = 1000;
      const [h, residual, dy] = [values(n), values(n), values(n)];
      const [out] = await run(
        addReluKernel(),
        elementwiseUniform(n, [0, 0, 0]),
        [h, residual],
        n,
        elementwiseWorkgroups(n),
      );
      const want = tf.tidy(() => tf.relu(tf.add(tf.tensor1d(h), tf.tensor1d(residual))).dataSync());
      close(out as Float32Array, want, 'relu(h + residual)');
      const [g] = await run(
        reluMaskKernel(),
        elementwiseUniform(n, [0, 0, 0]),
        [dy, out as Float32Array],
        n,
        elementwiseWorkgroups(n),
      );
      const grad = tf.tidy(() =>
        tf
          .grad((x: tf.Tensor) =>
            tf.sum(tf.mul(tf.relu(tf.add(x, tf.tensor1d(residual))), tf.tensor1d(dy))),
          )(tf.tensor1d(h))
          .dataSync(),
      );
      close(g as Float32Array, grad, 'its gradient');
    });

    for (const pooling of ['last', 'mean'] as Pooling[])
      it(`pools each sequence's ${pooling === 'last' ? 'last step' : 'steps by their mean'}, and sends the gradient back as tfjs does`, async () => {
        const [sequences, time, width] = [3, 11, 70];
        const h = values(sequences * time * width);
        const dz = values(sequences * width);
        const uniform = poolingUniform(sequences, time, width);
        const [z] = await run(poolingKernel(pooling), uniform, [h], sequences * width, [
          Math.ceil((sequences * width) / POOLING_THREADS),
        ]);
        const [dh] = await run(poolingBackwardKernel(pooling), uniform, [dz], h.length, [
          Math.ceil(h.length / POOLING_THREADS),
        ]);
        const encode = (x: tf.Tensor): tf.Tensor => {
          const h3 = tf.reshape(x, [sequences, time, width]);
          return pooling === 'mean'
            ? tf.mean(h3, 1)
            : tf.reshape(tf.slice(h3, [0, time - 1, 0], [sequences, 1, width]), [sequences, width]);
        };
        const [wantZ, wantDh] = tf.tidy(() => {
          const ht = tf.tensor1d(h);
          return [
            encode(ht).dataSync(),
            tf
              .grad((x: tf.Tensor) =>
                tf.sum(tf.mul(encode(x), tf.tensor2d(dz, [sequences, width]))),
              )(ht)
              .dataSync(),
          ];
        });
        close(z as Float32Array, wantZ, `${pooling} pooling`);
        close(dh as Float32Array, wantDh, `${pooling} pooling's gradient`);
      });

    it("adds a micro-batch's squared error as its share of the step's mean, with the gradient", async () => {
      const [rows, total] = [300, 700];
      const forecast = values(rows);
      const target = values(rows);
      const loss = Float32Array.of(0.25); // what earlier micro-batches of the step added
      const [gradient, added] = await run(
        mseLossKernel(),
        mseUniform(rows, total),
        [forecast, target],
        rows,
        [1],
        loss,
      );
      const [wantLoss, wantGradient] = tf.tidy(() => {
        const y = tf.tensor1d(target);
        const f = tf.tensor1d(forecast);
        const mse = (x: tf.Tensor): tf.Scalar => tf.div(tf.sum(tf.square(tf.sub(x, y))), total);
        return [mse(f).dataSync()[0] as number, tf.grad(mse)(f).dataSync()];
      });
      close(gradient as Float32Array, wantGradient, 'gradient');
      expect(added?.[0]).toBeCloseTo(0.25 + wantLoss, 6);
    });
  },
);

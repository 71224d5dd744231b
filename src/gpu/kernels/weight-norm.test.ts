import * as tf from '../../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../../compute/index.js';
import { Rng } from '../../core/random.js';
import { gpuTestAdapter } from '../../../test/support/webgpu.js';
import { dispatchOf, runDispatches, storageOf, uniformOf } from '../dispatch.js';
import { openGpuDevice, type GpuDevice } from '../gpu-device.js';
import {
  weightNormBackwardKernel,
  weightNormForwardKernel,
  weightNormUniform,
  weightNormWorkgroups,
} from './weight-norm.js';

/*
 * Weight normalization on the engine against the TCN's own expression on the CPU (tfjs on wasm):
 * w = v · (g / ‖v‖) forward, and tfjs's gradients of Σ w · dW with respect to v and g backward.
 * Operands sit at offsets inside larger buffers; 70 output channels span two workgroups.
 * Tolerance 1e-5 relative to the largest value of each result.
 */

const found = await gpuTestAdapter('src/gpu/kernels/weight-norm.test.ts');

describe.skipIf(!found)('weight normalization on the GPU engine', { timeout: 240_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  it("computes w, ‖v‖, dv and dg as the CPU's weight-normalized convolution does", async () => {
    const [taps, inputs, outputs] = [3, 9, 70];
    const rows = taps * inputs;
    const rng = new Rng(11);
    const values = (n: number): Float32Array =>
      Float32Array.from({ length: n }, () => rng.uniform() * 2 - 1);
    const v = values(rows * outputs);
    const g = values(outputs);
    const dW = values(rows * outputs);
    // [pad | v | g] in the weights buffer; [pad | w | norms] in the output.
    const pad = 3;
    const weights = new Float32Array(pad + v.length + g.length);
    weights.set(v, pad);
    weights.set(g, pad + v.length);
    const call = {
      rows,
      columns: outputs,
      offsetV: pad,
      offsetG: pad + v.length,
      offsetW: pad,
      offsetNorm: pad + v.length,
      offsetDv: pad,
      offsetDg: pad + v.length,
    };
    const weightBuffer = storageOf(gpu, weights, 'v g');
    const saved = gpu.storageBuffer((pad + v.length + outputs) * 4, 'w norms');
    const params = uniformOf(gpu, weightNormUniform(call), 'weight norm');
    runDispatches(gpu, [
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(weightNormForwardKernel()),
        [params, weightBuffer, saved],
        weightNormWorkgroups(outputs),
      ),
    ]);
    const dwPadded = new Float32Array(pad + dW.length);
    dwPadded.set(dW, pad);
    const grads = gpu.storageBuffer((pad + v.length + outputs) * 4, 'dv dg');
    runDispatches(gpu, [
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(weightNormBackwardKernel()),
        [params, weightBuffer, saved, storageOf(gpu, dwPadded, 'dW'), grads],
        weightNormWorkgroups(outputs),
      ),
    ]);
    const forward = await gpu.readFloats(saved, pad, v.length + outputs);
    const backward = await gpu.readFloats(grads, pad, v.length + outputs);
    gpu.check();

    // The CPU: tcn.ts's kernel = v · (g / channelNorm(v)), and its gradients.
    const cpu = tf.tidy(() => {
      const vt = tf.tensor2d(v, [rows, outputs]);
      const gt = tf.tensor1d(g);
      const norm = tf.sqrt(tf.sum(tf.square(vt), 0));
      const w = tf.mul(vt, tf.div(gt, norm));
      const [dv, dg] = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
        tf.sum(
          tf.mul(
            tf.mul(a, tf.div(b, tf.sqrt(tf.sum(tf.square(a), 0)))),
            tf.tensor2d(dW, [rows, outputs]),
          ),
        ),
      )([vt, gt], undefined);
      return [w, norm, dv, dg].map((t) => (t as tf.Tensor).dataSync() as Float32Array);
    });
    const [w, norm, dv, dg] = cpu as [Float32Array, Float32Array, Float32Array, Float32Array];
    const close = (got: Float32Array, want: Float32Array, what: string): void => {
      const scale = Math.max(...Array.from(want, Math.abs));
      const worst = Math.max(...Array.from(want, (x, i) => Math.abs(x - (got[i] as number))));
      expect(worst / scale, what).toBeLessThanOrEqual(1e-5);
    };
    close(forward.subarray(0, v.length), w, 'w');
    close(forward.subarray(v.length), norm, '‖v‖');
    close(backward.subarray(0, v.length), dv, 'dv');
    close(backward.subarray(v.length), dg, 'dg');
  });
});

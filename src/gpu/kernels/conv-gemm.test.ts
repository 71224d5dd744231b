import * as tf from '../../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causalConv1d, nativeConvActive, useBackend } from '../../compute/index.js';
import { Rng } from '../../core/random.js';
import { gpuTestAdapter } from '../../../test/support/webgpu.js';
import { dispatchOf, runDispatches, storageOf, uniformOf } from '../dispatch.js';
import { openGpuDevice, type GpuDevice } from '../gpu-device.js';
import { gemmKernel, gemmUniform, gemmWorkgroups, type GemmVariant } from './gemm.js';

/*
 * The TCN's causal dilated convolution as one GEMM each way, its shifted rows gathered while the
 * tiles load: forward (with bias and ReLU), the input gradient and the weight gradient with the
 * bias gradient as its last row, against a float64 convolution in JavaScript. Kernel layout
 * [taps, inputs, outputs]; tap j reads step t − (taps − 1 − j)·dilation, as compute/causal-conv.ts.
 * Shapes: sequences shorter than a shift, channel counts off the tile, dilations 1 to 8. The
 * dropout epilogue against the CPU's own convolution (tfjs on wasm with the native kernels): the
 * same elements dropped, the same scale.
 */

const found = await gpuTestAdapter('src/gpu/kernels/conv-gemm.test.ts');

interface ConvShape {
  batch: number;
  time: number;
  inputs: number;
  outputs: number;
  taps: number;
  dilation: number;
}

const values = (rng: Rng, n: number): Float32Array =>
  Float32Array.from({ length: n }, () => rng.uniform() * 2 - 1);

/** x [batch·time, inputs] at step t − shift of its own sequence, or 0 before it starts. */
function shiftedRow(s: ConvShape, row: number, shift: number): number | undefined {
  const t = row % s.time;
  return t >= shift ? row - shift : undefined;
}

describe.skipIf(!found)(
  'causal convolution as a GEMM on the GPU engine',
  { timeout: 240_000 },
  () => {
    let gpu: GpuDevice;
    beforeAll(async () => {
      gpu = await openGpuDevice();
    });
    afterAll(() => {
      gpu.destroy();
    });

    /** Runs `variant` and returns C's `rows × cols` values. */
    async function run(
      variant: GemmVariant,
      dims: { m: number; n: number; k: number; lda: number; ldb: number; ldc: number },
      conv: { taps: number; dilation: number; channels: number; time: number },
      a: Float32Array,
      b: Float32Array,
      bias: Float32Array | undefined,
      rows: number,
      dropout?: { rate: number; seed: number },
    ): Promise<Float32Array> {
      const kernel = await gpu.pipelines.kernel(gemmKernel(variant));
      const out = gpu.storageBuffer(rows * dims.n * 4, 'c');
      const buffers = [
        uniformOf(
          gpu,
          gemmUniform({ ...dims, conv, ...(dropout === undefined ? {} : { dropout }) }),
          'conv',
        ),
        storageOf(gpu, a, 'a'),
        storageOf(gpu, b, 'b'),
        out,
        ...(bias === undefined ? [] : [storageOf(gpu, bias, 'bias')]),
      ];
      runDispatches(gpu, [
        dispatchOf(gpu, kernel, buffers, gemmWorkgroups(variant, dims.m, dims.n)),
      ]);
      const got = await gpu.readFloats(out, 0, rows * dims.n);
      gpu.check();
      return got;
    }

    function expectClose(
      got: Float32Array,
      want: Float64Array,
      scale: Float64Array,
      what: string,
    ): void {
      let worst = 0;
      want.forEach((w, i) => {
        worst = Math.max(
          worst,
          Math.abs((got[i] as number) - w) / (1e-5 * (scale[i] as number) + 1e-6),
        );
      });
      expect(worst, `${what}: worst error / tolerance`).toBeLessThanOrEqual(1);
    }

    async function check(s: ConvShape): Promise<void> {
      const rng = new Rng(s.time * 31 + s.dilation);
      const rows = s.batch * s.time;
      const x = values(rng, rows * s.inputs);
      const w = values(rng, s.taps * s.inputs * s.outputs);
      const bias = values(rng, s.outputs);
      const dy = values(rng, rows * s.outputs);
      const shiftOf = (j: number): number => (s.taps - 1 - j) * s.dilation;
      const weight = (j: number, c: number, o: number): number =>
        w[(j * s.inputs + c) * s.outputs + o] as number;

      // Forward: y = relu(bias + Σ_j x[t − shift_j] · W_j).
      const y = new Float64Array(rows * s.outputs);
      const yScale = new Float64Array(rows * s.outputs);
      for (let r = 0; r < rows; r++)
        for (let o = 0; o < s.outputs; o++) {
          let sum = bias[o] as number;
          let abs = Math.abs(sum);
          for (let j = 0; j < s.taps; j++) {
            const from = shiftedRow(s, r, shiftOf(j));
            if (from === undefined) continue;
            for (let c = 0; c < s.inputs; c++) {
              const term = (x[from * s.inputs + c] as number) * weight(j, c, o);
              sum += term;
              abs += Math.abs(term);
            }
          }
          y[r * s.outputs + o] = Math.max(sum, 0);
          yScale[r * s.outputs + o] = abs + 1;
        }
      const forward = await run(
        { transposeA: false, transposeB: false, epilogue: 'bias-relu', conv: 'forward' },
        {
          m: rows,
          n: s.outputs,
          k: s.taps * s.inputs,
          lda: s.inputs,
          ldb: s.outputs,
          ldc: s.outputs,
        },
        { taps: s.taps, dilation: s.dilation, channels: s.inputs, time: s.time },
        x,
        w,
        bias,
        rows,
      );
      expectClose(forward, y, yScale, `forward ${JSON.stringify(s)}`);

      // Input gradient: dx[t, c] = Σ_j Σ_o dy[t + shift_j, o] · W_j[c, o], within the sequence.
      const dx = new Float64Array(rows * s.inputs);
      const dxScale = new Float64Array(rows * s.inputs);
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < s.inputs; c++) {
          let sum = 0;
          let abs = 0;
          for (let j = 0; j < s.taps; j++) {
            const t = r % s.time;
            if (t + shiftOf(j) >= s.time) continue;
            for (let o = 0; o < s.outputs; o++) {
              const term = (dy[(r + shiftOf(j)) * s.outputs + o] as number) * weight(j, c, o);
              sum += term;
              abs += Math.abs(term);
            }
          }
          dx[r * s.inputs + c] = sum;
          dxScale[r * s.inputs + c] = abs + 1;
        }
      const inputGradient = await run(
        { transposeA: false, transposeB: false, epilogue: 'none', conv: 'input-gradient' },
        {
          m: rows,
          n: s.inputs,
          k: s.taps * s.outputs,
          lda: s.outputs,
          ldb: s.outputs,
          ldc: s.inputs,
        },
        { taps: s.taps, dilation: s.dilation, channels: s.outputs, time: s.time },
        dy,
        w,
        undefined,
        rows,
      );
      expectClose(inputGradient, dx, dxScale, `input gradient ${JSON.stringify(s)}`);

      // Weight gradient: dW[j, c, o] = Σ_t x[t − shift_j, c] · dy[t, o]; then db[o] = Σ_t dy[t, o].
      const kernelRows = s.taps * s.inputs;
      const dw = new Float64Array((kernelRows + 1) * s.outputs);
      const dwScale = new Float64Array((kernelRows + 1) * s.outputs);
      for (let j = 0; j < s.taps; j++)
        for (let c = 0; c < s.inputs; c++)
          for (let o = 0; o < s.outputs; o++) {
            let sum = 0;
            let abs = 0;
            for (let r = 0; r < rows; r++) {
              const from = shiftedRow(s, r, shiftOf(j));
              if (from === undefined) continue;
              const term = (x[from * s.inputs + c] as number) * (dy[r * s.outputs + o] as number);
              sum += term;
              abs += Math.abs(term);
            }
            dw[(j * s.inputs + c) * s.outputs + o] = sum;
            dwScale[(j * s.inputs + c) * s.outputs + o] = abs + 1;
          }
      for (let o = 0; o < s.outputs; o++) {
        let sum = 0;
        let abs = 0;
        for (let r = 0; r < rows; r++) {
          sum += dy[r * s.outputs + o] as number;
          abs += Math.abs(dy[r * s.outputs + o] as number);
        }
        dw[kernelRows * s.outputs + o] = sum;
        dwScale[kernelRows * s.outputs + o] = abs + 1;
      }
      const weightGradient = await run(
        {
          transposeA: true,
          transposeB: false,
          epilogue: 'none',
          onesRow: true,
          conv: 'weight-gradient',
        },
        { m: kernelRows, n: s.outputs, k: rows, lda: s.inputs, ldb: s.outputs, ldc: s.outputs },
        { taps: s.taps, dilation: s.dilation, channels: s.inputs, time: s.time },
        x,
        dy,
        undefined,
        kernelRows + 1,
      );
      expectClose(weightGradient, dw, dwScale, `weight gradient ${JSON.stringify(s)}`);
    }

    it("drops exactly the values the CPU's causal convolution drops, and scales the others as it does", async () => {
      await useBackend('wasm');
      expect(nativeConvActive(), 'the native convolution (CI builds it)').toBe(true);
      const s = { batch: 3, time: 17, inputs: 6, outputs: 40, taps: 3, dilation: 2 };
      const rng = new Rng(77);
      const rows = s.batch * s.time;
      const x = values(rng, rows * s.inputs);
      const w = values(rng, s.taps * s.inputs * s.outputs);
      const bias = values(rng, s.outputs);
      const rate = 0.3;
      const seed = 2_000_123_457; // past 2³¹, as a long run's seeds are
      const cpu = tf.tidy(() =>
        causalConv1d(
          tf.tensor3d(x, [s.batch, s.time, s.inputs]),
          tf.tensor3d(w, [s.taps, s.inputs, s.outputs]),
          tf.tensor1d(bias),
          s.dilation,
          { relu: true, dropout: rate, dropoutSeed: seed },
        ).dataSync(),
      ) as Float32Array;
      const gpuY = await run(
        { transposeA: false, transposeB: false, epilogue: 'bias-relu-dropout', conv: 'forward' },
        {
          m: rows,
          n: s.outputs,
          k: s.taps * s.inputs,
          lda: s.inputs,
          ldb: s.outputs,
          ldc: s.outputs,
        },
        { taps: s.taps, dilation: s.dilation, channels: s.inputs, time: s.time },
        x,
        w,
        bias,
        rows,
        { rate, seed },
      );
      let dropped = 0;
      cpu.forEach((want, i) => {
        const got = gpuY[i] as number;
        if (want === 0) dropped++;
        expect(Math.abs(got - want), `element ${i}`).toBeLessThanOrEqual(
          1e-5 * (1 + Math.abs(want)),
        );
      });
      // About rate of the values dropped, plus the ReLU's zeros: the masks were really applied.
      expect(dropped / cpu.length).toBeGreaterThan(rate);
    });

    it('matches a float64 convolution forward and both gradients, dilations 1 to 8, shifts past short sequences', async () => {
      await check({ batch: 3, time: 20, inputs: 5, outputs: 7, taps: 3, dilation: 1 });
      await check({ batch: 2, time: 13, inputs: 17, outputs: 66, taps: 3, dilation: 4 });
      await check({ batch: 4, time: 9, inputs: 3, outputs: 5, taps: 2, dilation: 8 });
    });
  },
);

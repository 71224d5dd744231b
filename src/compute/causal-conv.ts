import * as tf from './tfjs.js';
import { getKernel, registerKernel, type KernelConfig, type TensorInfo } from './tfjs.js';
import { heapOffset, type KernelArgs, type WasmBackendInternals } from './wasm-heap.js';
import { GemmParams, loadNativeGemm, type GemmCall, type NativeGemmAddon } from './native-gemm.js';
import { nativeTrainingKernelsActive, reluBackward } from './native-training-kernels.js';

/*
 * The TCN's dilated causal convolution, with ReLU: y = relu(bias + Σ_j x shifted by (k−1−j)·d ·
 * kernel[j]). TensorFlow.js cannot backpropagate through `conv1d` with a dilation above 1
 * ("dilation rates greater than 1 are not yet supported in gradients"), so it is built two ways:
 *
 * - On the wasm backend with the native GEMM, one kernel each way and no copies: tap j of output
 *   rows t ≥ s (s its shift) is the product of input rows t − s, which for every sample are one
 *   contiguous block, so each tap is one strided batched GEMM accumulating into the output (the
 *   unshifted tap last, with the bias and ReLU). Backward, the input gradient is the same with the
 *   kernel transposed and the shift reversed, and each tap's kernel gradient is Xᵀ·dY over the
 *   overlapping rows of every sample.
 * - Elsewhere (webgpu, XNNPACK, the stock kernels), from ops that have gradients: the input padded
 *   on the left only, its k shifted slices side by side as one [batch·time, k·inputs] matrix, one
 *   product. The im2col copies and their gradients (slice, concat, pad) make this path several
 *   times slower on the wasm backend; the tests check both against a float64 convolution.
 *
 * Kernel layout [k, inputs, outputs]: tap j reads x[t − (k−1−j)·dilation], so the last tap is the
 * current step. PyTorch's Conv1d weight[o, i, j] (with left padding (k−1)·dilation) is ours[j, i, o].
 */

const CONV = 'TradelabCausalConv';
const CONV_GRAD = 'TradelabCausalConvGrad';

/** The shape of one convolution, as its kernels read it from their attributes. */
interface ConvAttrs {
  dilation: number;
  relu: boolean;
  inputGradient: boolean;
  /** Dropout rate on the output (0: none). */
  dropout: number;
  /** Seed of the dropout mask. */
  dropoutSeed: number;
}

/** The heap offsets of the operands of every GEMM call of one convolution. */
function gemmCall(partial: Partial<GemmCall>): GemmCall {
  return {
    batch: 1,
    transA: 0,
    transB: 0,
    m: 0,
    n: 0,
    k: 0,
    aOffset: 0,
    aStride: 0,
    lda: 0,
    bOffset: 0,
    bStride: 0,
    ldb: 0,
    cOffset: 0,
    cStride: 0,
    ldc: 0,
    biasOffset: -1,
    biasSize: 0,
    activation: 0,
    accumulate: 0,
    ...partial,
  };
}

/** (x [B,T,I], kernel [k,I,O], bias [O]) → y [B,T,O]. */
function convKernel(addon: NativeGemmAddon) {
  const params = new GemmParams();
  return (args: KernelArgs): TensorInfo => {
    const { x, kernel, bias } = args.inputs as Record<'x' | 'kernel' | 'bias', TensorInfo>;
    const { dilation, relu, dropout, dropoutSeed } = args.attrs as unknown as ConvAttrs;
    const backend = args.backend as unknown as WasmBackendInternals;
    const [batch = 0, time = 0, inputs = 0] = x.shape;
    const [taps = 0, , outputs = 0] = kernel.shape;
    const y = backend.makeOutput([batch, time, outputs], 'float32');
    const heap = backend.wasm.HEAPF32;
    const xAt = heapOffset(backend, x, CONV);
    const wAt = heapOffset(backend, kernel, CONV);
    const yAt = heapOffset(backend, y, CONV);
    // The shifted taps cover only rows t ≥ shift: start from zero and accumulate them.
    if (taps > 1) heap.fill(0, yAt, yAt + batch * time * outputs);
    for (let j = 0; j + 1 < taps; j++) {
      const shift = (taps - 1 - j) * dilation;
      if (shift >= time) continue;
      const call = gemmCall({
        batch,
        m: time - shift,
        n: outputs,
        k: inputs,
        aOffset: xAt,
        aStride: time * inputs,
        bOffset: wAt + j * inputs * outputs,
        cOffset: yAt + shift * outputs,
        cStride: time * outputs,
        accumulate: 1,
      });
      addon.gemm(heap, params.set(call));
    }
    const last = gemmCall({
      m: batch * time,
      n: outputs,
      k: inputs,
      aOffset: xAt,
      bOffset: wAt + (taps - 1) * inputs * outputs,
      cOffset: yAt,
      biasOffset: heapOffset(backend, bias, CONV),
      biasSize: outputs,
      activation: relu ? 1 : 0,
      accumulate: taps > 1 ? 1 : 0,
    });
    addon.gemm(heap, params.set(last));
    if (dropout > 0) dropoutInPlace(addon, heap, yAt, batch * time * outputs, dropout, dropoutSeed);
    return y;
  };
}

const dropoutParams = new Float64Array(5);

/**
 * Inverted dropout in place (see {@link applyDropout}) on the addon's native loop, which draws the
 * same mask and gives the same bits: the JavaScript loop was a sixth of a TCN step.
 */
function dropoutInPlace(
  addon: NativeGemmAddon,
  heap: Float32Array,
  at: number,
  count: number,
  rate: number,
  seed: number,
): void {
  if (addon.dropout === undefined) {
    applyDropout(heap, at, count, rate, seed);
    return;
  }
  dropoutParams.set([
    at,
    count,
    Math.floor(rate * 4294967296),
    Math.fround(1 / (1 - rate)),
    (seed ^ 0x9e3779b9) >>> 0,
  ]);
  addon.dropout(heap, dropoutParams);
}

/**
 * Inverted dropout in place: each value is zeroed with probability `rate`, the others scaled by
 * 1/(1 − rate). The mask comes from mulberry32 seeded with `seed`, so the same seed gives the same
 * mask (a checkpointed block's recompute relies on it); a JavaScript loop over the heap costs a few
 * ns a value where tfjs's seeded randomUniform costs tens. The native loop (tl_dropout) draws the
 * same mask; this one runs where the addon predates it, and is what the tests compare it with.
 */
export function applyDropout(
  heap: Float32Array,
  at: number,
  count: number,
  rate: number,
  seed: number,
): void {
  const threshold = Math.floor(rate * 4294967296);
  const scale = Math.fround(1 / (1 - rate));
  let state = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = at, end = at + count; i < end; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let z = Math.imul(state ^ (state >>> 15), 1 | state);
    z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
    const r = (z ^ (z >>> 14)) >>> 0;
    heap[i] = r < threshold ? 0 : (heap[i] as number) * scale;
  }
}

/** (g [B,T,O] (the output's gradient, ReLU mask applied), x, kernel) → [dx [B,T,I], dkernel [k,I,O]]. */
function convGradKernel(addon: NativeGemmAddon) {
  const params = new GemmParams();
  return (args: KernelArgs): TensorInfo[] => {
    const { g, x, kernel } = args.inputs as Record<'g' | 'x' | 'kernel', TensorInfo>;
    const { dilation, inputGradient } = args.attrs as unknown as ConvAttrs;
    const backend = args.backend as unknown as WasmBackendInternals;
    const [batch = 0, time = 0, inputs = 0] = x.shape;
    const [taps = 0, , outputs = 0] = kernel.shape;
    const dx = backend.makeOutput(inputGradient ? [batch, time, inputs] : [0], 'float32');
    const dw = backend.makeOutput([taps, inputs, outputs], 'float32');
    const heap = backend.wasm.HEAPF32;
    const gAt = heapOffset(backend, g, CONV_GRAD);
    const xAt = heapOffset(backend, x, CONV_GRAD);
    const wAt = heapOffset(backend, kernel, CONV_GRAD);
    const dwAt = heapOffset(backend, dw, CONV_GRAD);
    const run = (call: Partial<GemmCall>): void => {
      addon.gemm(heap, params.set(gemmCall(call)));
    };
    if (inputGradient) {
      const dxAt = heapOffset(backend, dx, CONV_GRAD);
      // dx[t − s] += g[t] · kernel[j]ᵀ: the unshifted tap writes every row, the others add.
      for (let j = taps - 1; j >= 0; j--) {
        const shift = (taps - 1 - j) * dilation;
        if (shift >= time) continue;
        run({
          batch: shift === 0 ? 1 : batch,
          transB: 1,
          m: shift === 0 ? batch * time : time - shift,
          n: inputs,
          k: outputs,
          aOffset: gAt + shift * outputs,
          aStride: time * outputs,
          bOffset: wAt + j * inputs * outputs,
          cOffset: dxAt,
          cStride: time * inputs,
          accumulate: shift === 0 ? 0 : 1,
        });
      }
    }
    for (let j = 0; j < taps; j++) {
      const shift = (taps - 1 - j) * dilation;
      const tapAt = dwAt + j * inputs * outputs;
      if (shift >= time) {
        heap.fill(0, tapAt, tapAt + inputs * outputs);
        continue;
      }
      if (shift === 0) {
        run({
          transA: 1,
          m: inputs,
          n: outputs,
          k: batch * time,
          aOffset: xAt,
          bOffset: gAt,
          cOffset: tapAt,
        });
        continue;
      }
      // Σ over samples of x[b, 0 : T−s]ᵀ · g[b, s : T]: one product per sample, accumulated.
      for (let b = 0; b < batch; b++)
        run({
          transA: 1,
          m: inputs,
          n: outputs,
          k: time - shift,
          aOffset: xAt + b * time * inputs,
          bOffset: gAt + (b * time + shift) * outputs,
          cOffset: tapAt,
          accumulate: b > 0 ? 1 : 0,
        });
    }
    return [dx, dw];
  };
}

/** Registers the kernels on the wasm backend (once); false when the addon is not there. */
export function installNativeConvKernels(): boolean {
  if ((getKernel(CONV, 'wasm') as KernelConfig | undefined) !== undefined) return true;
  const addon = loadNativeGemm();
  if (addon === undefined) return false;
  registerKernel({ kernelName: CONV, backendName: 'wasm', kernelFunc: convKernel(addon) });
  registerKernel({
    kernelName: CONV_GRAD,
    backendName: 'wasm',
    kernelFunc: convGradKernel(addon),
  });
  return true;
}

/** Whether the native convolution runs now: where the native training kernels do. */
export function nativeConvActive(): boolean {
  return (
    nativeTrainingKernelsActive() &&
    (getKernel(CONV, 'wasm') as KernelConfig | undefined) !== undefined
  );
}

/** Options of {@link causalConv1d}. */
export interface CausalConvOptions {
  /** ReLU on the output. Default false. */
  relu?: boolean;
  /**
   * Inverted dropout on the (ReLU) output at this rate, with a mask seeded by `dropoutSeed`: the
   * same seed gives the same mask. Needs `relu` (the backward pass reads the mask from the output's
   * zeros). Default 0.
   */
  dropout?: number;
  /** Seed of the dropout mask. Default 0. */
  dropoutSeed?: number;
  /** Whether gradients flow back into `x` (false for data). Default true. */
  inputGradient?: boolean;
}

/**
 * y[b, t, o] = act(bias[o] + Σ_j Σ_i x[b, t − (k−1−j)·dilation, i] · kernel[j, i, o]), with x = 0
 * before the first step and act ReLU or none. `x` [batch, time, inputs], `kernel`
 * [k, inputs, outputs] → [batch, time, outputs].
 */
export function causalConv1d(
  x: tf.Tensor3D,
  kernel: tf.Tensor3D,
  bias: tf.Tensor1D,
  dilation: number,
  options: CausalConvOptions = {},
): tf.Tensor3D {
  const relu = options.relu === true;
  const dropout = options.dropout ?? 0;
  const dropoutSeed = options.dropoutSeed ?? 0;
  if (dropout > 0 && !relu)
    throw new Error('causalConv1d: dropout is fused only after a ReLU (relu: true)');
  if (!nativeConvActive()) {
    const y = convOps(x, kernel, bias, dilation, relu);
    return dropout > 0 ? (tf.dropout(y, dropout, undefined, dropoutSeed) as tf.Tensor3D) : y;
  }
  const inputGradient = options.inputGradient !== false;
  const attrs: ConvAttrs = { dilation, relu, inputGradient, dropout, dropoutSeed };
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, w, b, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.Tensor1D, tf.GradSaveFunc];
    const y: tf.Tensor = tf
      .engine()
      .runKernel(CONV, { x: input, kernel: w, bias: b }, attrs as never);
    save([input, w, y]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, ws, ys] = saved as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D];
        const grads = tf.tidy(() => {
          // After ReLU and dropout, ∂y/∂z = [y > 0]/(1 − rate): the ReLU backward of dy scaled.
          const g = dropout > 0 ? tf.mul(dy, Math.fround(1 / (1 - dropout))) : dy;
          const [gy, db] = relu
            ? reluBackward(g as tf.Tensor2D, ys as unknown as tf.Tensor2D)
            : [g, tf.sum(tf.reshape(g, [-1, g.shape[2] ?? 1]), 0)];
          const [dx, dw] = tf
            .engine()
            .runKernel(CONV_GRAD, { g: gy, x: xs, kernel: ws }, attrs as never) as unknown as [
            tf.Tensor,
            tf.Tensor,
          ];
          return [inputGradient ? dx : tf.zerosLike(xs), dw, db];
        });
        // tfjs keeps every output gradient until the whole backward pass ends; this one is read
        // by no other node, so it goes now (a third of the step's activation memory). Only one
        // made in this backward pass (newer than the output): a dy the caller passed is theirs.
        if (dy.id > ys.id) dy.dispose();
        return grads;
      },
    };
  });
  return op(x, kernel, bias) as tf.Tensor3D;
}

/** {@link causalConv1d} from ops that have gradients on every backend (im2col, one product). */
function convOps(
  x: tf.Tensor3D,
  kernel: tf.Tensor3D,
  bias: tf.Tensor1D,
  dilation: number,
  relu: boolean,
): tf.Tensor3D {
  const [batch, time, inputs] = x.shape;
  const [taps, , outputs] = kernel.shape;
  return tf.tidy(() => {
    const flatKernel = tf.reshape<tf.Rank.R2>(kernel, [taps * inputs, outputs]);
    let columns: tf.Tensor;
    if (taps === 1) columns = x;
    else {
      const padded = tf.pad(x, [
        [0, 0],
        [(taps - 1) * dilation, 0],
        [0, 0],
      ]);
      const shifted: tf.Tensor[] = [];
      for (let j = 0; j < taps; j++)
        shifted.push(tf.slice(padded, [0, j * dilation, 0], [batch, time, inputs]));
      columns = tf.concat(shifted, 2);
    }
    const rows = tf.reshape<tf.Rank.R2>(columns, [batch * time, taps * inputs]);
    const y = tf.fused.matMul({
      a: rows,
      b: flatKernel,
      bias,
      activation: relu ? 'relu' : 'linear',
    });
    return tf.reshape<tf.Rank.R3>(y, [batch, time, outputs]);
  });
}

/** The steps a stack of causal convolutions sees: 1 + Σ (k − 1) · dilation over its layers. */
export function receptiveField(kernel: number, dilations: readonly number[]): number {
  return 1 + dilations.reduce((sum, d) => sum + (kernel - 1) * d, 0);
}

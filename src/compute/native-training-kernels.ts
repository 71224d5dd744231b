import * as tf from './tfjs.js';
import {
  getKernel,
  registerKernel,
  type KernelConfig,
  type KernelFunc,
  type TensorInfo,
} from './tfjs.js';
import {
  elementCount,
  heapOffset,
  type KernelArgs,
  type WasmBackendInternals,
} from './wasm-heap.js';
import { loadNativeGemm, type NativeGemmAddon } from './native-gemm.js';
import { wasmMatMulPath } from './wasm-matmul.js';

/*
 * Training steps that TensorFlow.js runs as many small kernels, each done by one native kernel
 * (native/gemm/training-kernels.c) when the wasm backend's products run on the native GEMM:
 *
 * - a dense ReLU layer (relu(x·W + b)): tfjs fuses it only outside gradient recording, so while
 *   training every hidden layer was a product, a bias Add and a Relu, and its backward pass a Step,
 *   a Multiply and a Sum besides its two products. {@link denseRelu} is one fused product forward
 *   and one pass (mask and bias gradient) plus the two products backward.
 * - a gradient norm ({@link sumOfSquares}): a Square and a Sum per variable and an AddN, in one.
 * - an Adam step ({@link adamStep}): about a dozen element-wise kernels per variable, in one.
 *
 * Each native kernel computes the same float32 operations in the same order as the kernels it
 * replaces, so training gives the same bits on either path (the tests compare them). Elsewhere (the
 * webgpu and cpu backends, XNNPACK products) the tfjs ops run as before.
 */

/** The addon's fused training kernels (native/gemm/addon.c). */
interface TrainingKernelsAddon {
  reluBackward(heap: Float32Array, params: Float64Array): void;
  sumOfSquares(heap: Float32Array, params: Float64Array): void;
  adam(heap: Float32Array, params: Float64Array): void;
}

const RELU_BACKWARD = 'TradelabReluBackward';
const SUM_OF_SQUARES = 'TradelabSumOfSquares';
const ADAM = 'TradelabAdam';

const offsetOf = (backend: WasmBackendInternals, t: TensorInfo): number =>
  heapOffset(backend, t, 'a training kernel');

/** (dy, y) → [g = dy · step(y), db = Σ_rows g], both float32 on the heap. */
function reluBackwardKernel(addon: TrainingKernelsAddon): KernelFunc {
  const params = new Float64Array(6);
  return (args: KernelArgs) => {
    const { dy, y } = args.inputs as { dy: TensorInfo; y: TensorInfo };
    const backend = args.backend as unknown as WasmBackendInternals;
    const cols = dy.shape[dy.shape.length - 1] ?? 1;
    const rows = elementCount(dy.shape) / Math.max(cols, 1);
    const g = backend.makeOutput([...dy.shape], 'float32');
    const db = backend.makeOutput([cols], 'float32');
    params.set([
      rows,
      cols,
      offsetOf(backend, dy),
      offsetOf(backend, y),
      offsetOf(backend, g),
      offsetOf(backend, db),
    ]);
    addon.reluBackward(backend.wasm.HEAPF32, params);
    return [g, db];
  };
}

/** (x0, x1, …) → Σ of every value squared, a float32 scalar. */
function sumOfSquaresKernel(addon: TrainingKernelsAddon): KernelFunc {
  return (args: KernelArgs) => {
    const backend = args.backend as unknown as WasmBackendInternals;
    const inputs = Object.values(args.inputs as Record<string, TensorInfo>);
    const out = backend.makeOutput([], 'float32');
    const params = new Float64Array(1 + 2 * inputs.length);
    params[0] = offsetOf(backend, out);
    inputs.forEach((t, i) => {
      params[1 + 2 * i] = offsetOf(backend, t);
      params[2 + 2 * i] = elementCount(t.shape);
    });
    addon.sumOfSquares(backend.wasm.HEAPF32, params);
    return out;
  };
}

/** Adam's constants, as AdamOptimizer holds them. */
export interface AdamConstants {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
}

/** (w, g, m, v, accBeta1, accBeta2[, scale]) → [w', m', v'] of one Adam step. */
function adamKernel(addon: TrainingKernelsAddon): KernelFunc {
  const params = new Float64Array(17);
  return (args: KernelArgs) => {
    const inputs = args.inputs as Record<
      'w' | 'g' | 'm' | 'v' | 'accBeta1' | 'accBeta2',
      TensorInfo
    > & { scale?: TensorInfo };
    const { learningRate, beta1, beta2, epsilon } = args.attrs as unknown as AdamConstants;
    const backend = args.backend as unknown as WasmBackendInternals;
    const shape = [...inputs.w.shape];
    const w = backend.makeOutput(shape, 'float32');
    const m = backend.makeOutput(shape, 'float32');
    const v = backend.makeOutput(shape, 'float32');
    params.set([
      elementCount(shape),
      offsetOf(backend, inputs.w),
      offsetOf(backend, inputs.g),
      offsetOf(backend, inputs.m),
      offsetOf(backend, inputs.v),
      offsetOf(backend, w),
      offsetOf(backend, m),
      offsetOf(backend, v),
      offsetOf(backend, inputs.accBeta1),
      offsetOf(backend, inputs.accBeta2),
      inputs.scale === undefined ? -1 : offsetOf(backend, inputs.scale),
      beta1,
      beta2,
      // 1 − β in double, then rounded to float32 in the addon: what tfjs's mul(g, 1 − β) does.
      1 - beta1,
      1 - beta2,
      -learningRate,
      epsilon,
    ]);
    addon.adam(backend.wasm.HEAPF32, params);
    return [w, m, v];
  };
}

/** Registers the kernels on the wasm backend (once); false when the addon is not there. */
export function installNativeTrainingKernels(): boolean {
  if ((getKernel(RELU_BACKWARD, 'wasm') as KernelConfig | undefined) !== undefined) return true;
  const addon = loadNativeGemm() as (NativeGemmAddon & Partial<TrainingKernelsAddon>) | undefined;
  if (
    addon?.reluBackward === undefined ||
    addon.sumOfSquares === undefined ||
    addon.adam === undefined
  )
    return false;
  const kernels = addon as TrainingKernelsAddon;
  registerKernel({
    kernelName: RELU_BACKWARD,
    backendName: 'wasm',
    kernelFunc: reluBackwardKernel(kernels),
  });
  registerKernel({
    kernelName: SUM_OF_SQUARES,
    backendName: 'wasm',
    kernelFunc: sumOfSquaresKernel(kernels),
  });
  registerKernel({ kernelName: ADAM, backendName: 'wasm', kernelFunc: adamKernel(kernels) });
  return true;
}

/** Off only to measure or test what the fused kernels change. */
let enabled = true;

/** Turns the fused kernels off (or back on): tfjs's own kernels then run everywhere. */
export function setNativeTrainingKernelsEnabled(on: boolean): void {
  enabled = on;
}

/**
 * Whether the fused kernels run now: the wasm backend with its products on the native GEMM (the
 * XNNPACK and stock paths stand for a machine without the addon, and keep tfjs's kernels).
 */
export function nativeTrainingKernelsActive(): boolean {
  if (!enabled || tf.getBackend() !== 'wasm') return false;
  const path = wasmMatMulPath();
  return (
    (path === 'native' || path === 'blas') &&
    (getKernel(ADAM, 'wasm') as KernelConfig | undefined) !== undefined
  );
}

/** The ReLU layer's backward pass up to its products: g = dy · step(y), and db = Σ_rows g. */
export function reluBackward(dy: tf.Tensor2D, y: tf.Tensor2D): [tf.Tensor2D, tf.Tensor1D] {
  if (nativeTrainingKernelsActive())
    return tf.engine().runKernel(RELU_BACKWARD, { dy, y }, {}) as unknown as [
      tf.Tensor2D,
      tf.Tensor1D,
    ];
  const g = tf.mul<tf.Tensor2D>(dy, tf.step(y));
  return [g, tf.sum<tf.Tensor1D>(g, 0)];
}

/** Options of {@link denseRelu}. */
export interface DenseReluOptions {
  /**
   * Whether gradients flow back into `x`. False for a network's first layer, whose input is data:
   * its gradient would be a product computed for nothing (tfjs's own ops skip it; a custom
   * gradient computes every input's). Default true.
   */
  inputGradient?: boolean;
}

/**
 * relu(x·W + b) for a dense layer: the same values and gradients as tf.fused.matMul with ReLU,
 * in fewer kernels while training on the native GEMM (see the file header).
 */
export function denseRelu(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
  options: DenseReluOptions = {},
): tf.Tensor2D {
  if (!nativeTrainingKernelsActive())
    return tf.fused.matMul({ a: x, b: w, bias: b, activation: 'relu' }) as tf.Tensor2D;
  // The kernel itself: tf.fused.matMul would split it again while gradients are recorded.
  const forward = (input: tf.Tensor2D, weights: tf.Tensor2D, bias: tf.Tensor1D): tf.Tensor2D =>
    tf
      .engine()
      .runKernel<tf.Tensor2D>(
        '_FusedMatMul',
        { a: input, b: weights, bias },
        { transposeA: false, transposeB: false, activation: 'relu', leakyreluAlpha: 0 },
      );
  /** g and db, then the weight gradient x^T·g (and the input gradient g·W^T when asked). */
  const backward = (dy: tf.Tensor, saved: tf.Tensor[]): tf.Tensor[] => {
    const [xs, ws, ys] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
    const [g, db] = reluBackward(dy as tf.Tensor2D, ys);
    const dw = tf.matMul(xs, g, true, false);
    return options.inputGradient === false ? [dw, db] : [tf.matMul(g, ws, false, true), dw, db];
  };
  if (options.inputGradient === false) {
    const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
      const [weights, bias, save] = args as [tf.Tensor2D, tf.Tensor1D, tf.GradSaveFunc];
      const y = forward(x, weights, bias);
      save([x, weights, y]);
      return { value: y, gradFunc: backward };
    });
    return op(w, b);
  }
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, weights, bias, save] = args as [
      tf.Tensor2D,
      tf.Tensor2D,
      tf.Tensor1D,
      tf.GradSaveFunc,
    ];
    const y = forward(input, weights, bias);
    save([input, weights, y]);
    return { value: y, gradFunc: backward };
  });
  return op(x, w, b);
}

/** Σ over `tensors` of Σ x² (a gradient norm's square), as one scalar. */
export function sumOfSquares(tensors: readonly tf.Tensor[]): tf.Scalar {
  if (nativeTrainingKernelsActive() && tensors.length > 0) {
    const inputs: Record<string, tf.Tensor> = {};
    tensors.forEach((t, i) => (inputs[`x${i}`] = t));
    return tf.engine().runKernel<tf.Scalar>(SUM_OF_SQUARES, inputs, {});
  }
  return tf.tidy(() => tf.addN<tf.Scalar>(tensors.map((t) => tf.sum<tf.Scalar>(tf.square(t)))));
}

/**
 * One Adam step of one variable on the native kernel: the new value, first and second moments,
 * from the gradient times `scale` (when given). Only while {@link nativeTrainingKernelsActive}.
 */
export function adamStep(
  inputs: {
    w: tf.Tensor;
    g: tf.Tensor;
    m: tf.Tensor;
    v: tf.Tensor;
    accBeta1: tf.Scalar;
    accBeta2: tf.Scalar;
    scale?: tf.Scalar;
  },
  constants: AdamConstants,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  const kernelInputs: Record<string, tf.Tensor> = { ...inputs };
  if (inputs.scale === undefined) delete kernelInputs.scale;
  return tf.engine().runKernel(ADAM, kernelInputs, { ...constants }) as unknown as [
    tf.Tensor,
    tf.Tensor,
    tf.Tensor,
  ];
}

import * as tf from './tfjs.js';
import { getKernel, registerKernel, type KernelConfig, type TensorInfo } from './tfjs.js';
import { GemmParams, loadNativeGemm, type GemmCall, type NativeGemmAddon } from './native-gemm.js';
import { nativeTrainingKernelsActive } from './native-training-kernels.js';
import { heapOffset, type KernelArgs, type WasmBackendInternals } from './wasm-heap.js';

/*
 * A whole ReLU MLP (hidden layers relu(h·W + b), a linear output layer h·W + b) as two wasm
 * kernels while training on the native GEMM: its forward pass, and its backward pass (every weight
 * and bias gradient). Layer by layer, tfjs runs a forward product per layer and, backward, a mask,
 * a column sum and two products per layer, each a kernel with its tape bookkeeping and clones.
 * Here each pass is one kernel, and the element-wise work rides on the products as epilogues
 * (sgemm.h), on tiles still in the L1: a hidden layer's forward product stores its ReLU bits
 * (step(h), one bit per value), and the product that makes the layer's gradient, g·Wᵀ, masks
 * itself by them and sums its columns (the layer's bias gradient). Those passes over the
 * activations cost 2 ms per 4096×512 layer on their own; reading the activations themselves for
 * the mask, tile by tile, cost as much (strided misses): the bits are 1/32 of them and stay in L2.
 *
 * Same float32 operations in the same order as the layer-by-layer kernels (the same products with
 * the same shapes and transposes, the mask a multiplication, the bias gradients summed row after
 * row as ones · g in the Sum kernel), so training gives the same bits either way (the tests
 * compare them). The network's input gets no gradient: it is data (an observation), as in Mlp's
 * other path.
 */

/** The addon's functions these kernels use. */
interface ReluMlpAddon extends NativeGemmAddon {
  columnSums(heap: Float32Array, params: Float64Array): void;
}

const FORWARD = 'TradelabReluMlp';
const BACKWARD = 'TradelabReluMlpGrad';

const params = new GemmParams();
const sumParams = new Float64Array(4);

const offsetOf = (backend: WasmBackendInternals, t: TensorInfo): number =>
  heapOffset(backend, t, 'the ReLU MLP kernel');

/** A packed, unbatched product's parameters (lda/ldb/ldc 0: each matrix's own width). */
function product(
  call: Pick<GemmCall, 'transA' | 'transB' | 'm' | 'n' | 'k' | 'aOffset' | 'bOffset' | 'cOffset'> &
    Partial<GemmCall>,
): GemmCall {
  return {
    batch: 1,
    aStride: 0,
    lda: 0,
    bStride: 0,
    ldb: 0,
    cStride: 0,
    ldc: 0,
    biasOffset: -1,
    biasSize: 0,
    activation: 0,
    accumulate: 0,
    ...call,
  };
}

/** The layers' weights and biases from a kernel's inputs (w0, b0, w1, b1, …). */
function layersOf(inputs: Record<string, TensorInfo>, layers: number): TensorInfo[][] {
  return Array.from({ length: layers }, (_, l) => [
    inputs[`w${l}`] as TensorInfo,
    inputs[`b${l}`] as TensorInfo,
  ]);
}

/** 16-bit words of ReLU bits per row for `units` columns, a whole number of int32s. */
const bitsLd = (units: number): number => 2 * Math.ceil(units / 32);

/**
 * (x, w0, b0, …) → [h0 … h(L−2), bits0 … bits(L−2), out]: each hidden layer's output, its ReLU
 * bits (int32 [rows, ceil(units / 32)], for the backward pass's masks), then the network's output.
 */
function forwardKernel(addon: ReluMlpAddon) {
  return (args: KernelArgs): TensorInfo[] => {
    const inputs = args.inputs as Record<string, TensorInfo>;
    const layers = (args.attrs as { layers: number }).layers;
    const backend = args.backend as unknown as WasmBackendInternals;
    const x = inputs.x as TensorInfo;
    const rows = x.shape[0] ?? 0;
    const weights = layersOf(inputs, layers);
    const units = weights.map(([w]) => w?.shape[1] ?? 0);
    const outputs = units.map((n) => backend.makeOutput([rows, n], 'float32'));
    const bits = units
      .slice(0, -1)
      .map((n) => backend.makeOutput([rows, bitsLd(n) / 2], 'int32' as 'float32'));
    // Offsets after every allocation: a growing heap moves the view (not the offsets).
    let h = x;
    weights.forEach(([w, b], l) => {
      const out = outputs[l] as TensorInfo;
      const [k, n] = (w as TensorInfo).shape as [number, number];
      const hidden = l + 1 < layers;
      addon.gemm(
        backend.wasm.HEAPF32,
        params.set(
          product({
            transA: 0,
            transB: 0,
            m: rows,
            n,
            k,
            aOffset: offsetOf(backend, h),
            bOffset: offsetOf(backend, w as TensorInfo),
            cOffset: offsetOf(backend, out),
            biasOffset: offsetOf(backend, b as TensorInfo),
            biasSize: n,
            activation: hidden ? 1 : 0,
            bitsOutOffset: hidden ? offsetOf(backend, bits[l] as TensorInfo) : -1,
            bitsLd: bitsLd(n),
          }),
        ),
      );
      h = out;
    });
    return [...outputs.slice(0, -1), ...bits, outputs[layers - 1] as TensorInfo];
  };
}

/**
 * (dy, x, w0…, h0…, bits0…) → [dw0, db0, dw1, db1, …]: from the output layer down, g being the
 * gradient at a layer's output (dy, then each hidden layer's, masked): dW = hᵀ·g, db = ones · g,
 * and the layer below's g = (g·Wᵀ) · step(h), its column sums (the layer's db) in the same product.
 */
function backwardKernel(addon: ReluMlpAddon) {
  return (args: KernelArgs): TensorInfo[] => {
    const inputs = args.inputs as Record<string, TensorInfo>;
    const layers = (args.attrs as { layers: number }).layers;
    const backend = args.backend as unknown as WasmBackendInternals;
    const dy = inputs.dy as TensorInfo;
    const rows = dy.shape[0] ?? 0;
    const weights = Array.from({ length: layers }, (_, l) => inputs[`w${l}`] as TensorInfo);
    const hidden = Array.from({ length: layers - 1 }, (_, l) => inputs[`h${l}`] as TensorInfo);
    const bits = Array.from({ length: layers - 1 }, (_, l) => inputs[`bits${l}`] as TensorInfo);
    const gradients = weights.flatMap((w) => {
      const [k, n] = w.shape as [number, number];
      return [backend.makeOutput([k, n], 'float32'), backend.makeOutput([n], 'float32')];
    });
    const masked = hidden.map((h) => backend.makeOutput([...h.shape], 'float32'));
    try {
      const top = layers - 1;
      sumParams.set([
        rows,
        dy.shape[1] ?? 0,
        offsetOf(backend, dy),
        offsetOf(backend, gradients[2 * top + 1] as TensorInfo),
      ]);
      addon.columnSums(backend.wasm.HEAPF32, sumParams);
      for (let l = top; l >= 0; l--) {
        const w = weights[l] as TensorInfo;
        const [k, n] = w.shape as [number, number];
        const g = l === top ? dy : (masked[l] as TensorInfo);
        const below = l === 0 ? (inputs.x as TensorInfo) : (hidden[l - 1] as TensorInfo);
        addon.gemm(
          backend.wasm.HEAPF32,
          params.set(
            product({
              transA: 1,
              transB: 0,
              m: k,
              n,
              k: rows,
              aOffset: offsetOf(backend, below),
              bOffset: offsetOf(backend, g),
              cOffset: offsetOf(backend, gradients[2 * l] as TensorInfo),
            }),
          ),
        );
        if (l === 0) continue;
        addon.gemm(
          backend.wasm.HEAPF32,
          params.set(
            product({
              transA: 0,
              transB: 1,
              m: rows,
              n: k,
              k: n,
              aOffset: offsetOf(backend, g),
              bOffset: offsetOf(backend, w),
              cOffset: offsetOf(backend, masked[l - 1] as TensorInfo),
              bitsInOffset: offsetOf(backend, bits[l - 1] as TensorInfo),
              bitsLd: bitsLd(k),
              columnSumsOffset: offsetOf(backend, gradients[2 * (l - 1) + 1] as TensorInfo),
            }),
          ),
        );
      }
    } finally {
      for (const t of masked) backend.disposeData(t.dataId);
    }
    return gradients;
  };
}

/** Registers the two kernels on the wasm backend (once); false when the addon lacks what they use. */
export function installNativeReluMlp(): boolean {
  if ((getKernel(FORWARD, 'wasm') as KernelConfig | undefined) !== undefined) return true;
  const addon = loadNativeGemm() as (NativeGemmAddon & Partial<ReluMlpAddon>) | undefined;
  if (addon?.columnSums === undefined) return false;
  registerKernel({
    kernelName: FORWARD,
    backendName: 'wasm',
    kernelFunc: forwardKernel(addon as ReluMlpAddon),
  });
  registerKernel({
    kernelName: BACKWARD,
    backendName: 'wasm',
    kernelFunc: backwardKernel(addon as ReluMlpAddon),
  });
  return true;
}

/** Whether {@link reluMlp} runs as the two kernels now (else the caller's layer-by-layer ops). */
export function nativeReluMlpActive(): boolean {
  return (
    nativeTrainingKernelsActive() &&
    (getKernel(BACKWARD, 'wasm') as KernelConfig | undefined) !== undefined
  );
}

/**
 * The MLP's output for `x`: ReLU hidden layers and a linear output layer, weights[l] of shape
 * [in, out] and biases[l] [out]. Gradients flow to the weights and biases, not to `x`. Only while
 * {@link nativeReluMlpActive}.
 */
export function reluMlp(
  x: tf.Tensor2D,
  weights: readonly tf.Tensor2D[],
  biases: readonly tf.Tensor1D[],
): tf.Tensor2D {
  const layers = weights.length;
  const parameters = weights.flatMap((w, l) => [w, biases[l] as tf.Tensor1D]);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const inputs: Record<string, tf.Tensor> = { x };
    parameters.forEach((p, i) => (inputs[`${i % 2 === 0 ? 'w' : 'b'}${i >> 1}`] = p));
    const outputs = tf.engine().runKernel(FORWARD, inputs, { layers }) as unknown as tf.Tensor[];
    save([x, ...outputs.slice(0, -1)]);
    const gradFunc = (dy: tf.Tensor, saved: tf.Tensor[]): tf.Tensor[] => {
      const gradInputs: Record<string, tf.Tensor> = { dy, x: saved[0] as tf.Tensor };
      weights.forEach((w, l) => (gradInputs[`w${l}`] = w));
      for (let l = 0; l + 1 < layers; l++) {
        gradInputs[`h${l}`] = saved[1 + l] as tf.Tensor;
        gradInputs[`bits${l}`] = saved[layers + l] as tf.Tensor;
      }
      return tf.engine().runKernel(BACKWARD, gradInputs, { layers }) as unknown as tf.Tensor[];
    };
    return { value: outputs[outputs.length - 1] as tf.Tensor2D, gradFunc };
  });
  return op(...parameters);
}

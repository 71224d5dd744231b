import * as tf from './tfjs.js';
import {
  getKernel,
  registerKernel,
  type KernelConfig,
  type KernelFunc,
  type NamedAttrMap,
  type TensorInfo,
} from './tfjs.js';
import { TradelabError } from '../core/index.js';
import { heapOffset, type KernelArgs, type WasmBackendInternals } from './wasm-heap.js';
import { loadNativeGemm, type NativeGemmAddon } from './native-gemm.js';
import { nativeTrainingKernelsActive } from './native-training-kernels.js';

/*
 * The FT-Transformer's layers (src/models/ft-transformer.ts) as one native kernel each way, when
 * the wasm backend's products run on the native GEMM (where the fused training kernels run).
 * Built from tfjs ops, one training step of that network was ~900 kernels, and most of its time
 * went to a few of them:
 *
 * - attention: batched products over batch × heads tiny [T × T × dHead] matrices, each packed and
 *   tiled separately by the GEMM (7–21 GFLOP/s), a softmax over [batch·heads, T, T] (55 MB at 512
 *   samples of 82 tokens, twice, and its gradient), and transposes to split and merge the heads.
 *   {@link multiHeadAttention} (and {@link multiHeadCrossAttention}, for queries of [CLS] only)
 *   is FlashAttention's plan on a CPU (native/gemm/attention.h): each
 *   (sample, head) in L1-sized buffers, straight from the projection's rows, keeping only each
 *   query row's max score and 1/Σ exp for the backward pass, which recomputes the weights.
 * - LayerNorm: nine element-wise kernels forward and about twice as many backward;
 *   {@link layerNorm} is one pass each way.
 * - the tokenizer's broadcast Multiply and Add and the Concat that prepends [CLS] (its gradient a
 *   SplitV of the whole activation tensor), and the Slice that reads [CLS] back out (a Pad
 *   backward): {@link tokenize} and {@link firstTokenRows} are one pass each way.
 *
 * Elsewhere (webgpu, cpu, XNNPACK products, or the kernels switched off) each op is the tfjs ops
 * it replaces. The two paths sum in different orders, so they agree to float32 rounding, not bit
 * for bit (the tests compare outputs and gradients).
 */

/** The addon's transformer kernels (native/gemm/addon.c documents each one's parameters). */
interface TransformerKernelsAddon {
  attentionForward(heap: Float32Array, params: Float64Array): void;
  attentionBackward(heap: Float32Array, params: Float64Array): void;
  layerNormForward(heap: Float32Array, params: Float64Array): void;
  layerNormBackward(heap: Float32Array, params: Float64Array): void;
  tokenize(heap: Float32Array, params: Float64Array): void;
  tokenizeBackward(heap: Float32Array, params: Float64Array): void;
  firstRows(heap: Float32Array, params: Float64Array): void;
  firstRowsBackward(heap: Float32Array, params: Float64Array): void;
}

const ATTENTION = 'TradelabAttention';
const ATTENTION_GRAD = 'TradelabAttentionGrad';
const LAYER_NORM = 'TradelabLayerNorm';
const LAYER_NORM_GRAD = 'TradelabLayerNormGrad';
const TOKENIZE = 'TradelabTokenize';
const TOKENIZE_GRAD = 'TradelabTokenizeGrad';
const FIRST_ROWS = 'TradelabFirstRows';
const FIRST_ROWS_GRAD = 'TradelabFirstRowsGrad';

const offsetOf = (backend: WasmBackendInternals, t: TensorInfo): number =>
  heapOffset(backend, t, 'a transformer kernel');

/** Attributes of the attention kernels. */
interface AttentionAttrs {
  tokens: number;
  heads: number;
}

/**
 * The addon's attention operands (native/gemm/addon.c: batch, tokens, heads, headDim, queries,
 * q, k, v, qRow, kvRow) from either one projection qkv [batch·tokens, 3d] (every token queries)
 * or queries q [batch·queries, d] beside keys and values kv [batch·tokens, 2d].
 */
function attentionOperands(
  backend: WasmBackendInternals,
  inputs: { qkv?: TensorInfo; q?: TensorInfo; kv?: TensorInfo },
  { tokens, heads }: AttentionAttrs,
): { params: number[]; batch: number; queries: number; d: number } {
  if (inputs.qkv !== undefined) {
    const [rows = 0, width = 0] = inputs.qkv.shape;
    const d = width / 3;
    const at = offsetOf(backend, inputs.qkv);
    const batch = rows / tokens;
    return {
      params: [batch, tokens, heads, d / heads, tokens, at, at + d, at + 2 * d, 3 * d, 3 * d],
      batch,
      queries: tokens,
      d,
    };
  }
  const { q, kv } = inputs as { q: TensorInfo; kv: TensorInfo };
  const [qRows = 0, d = 0] = q.shape;
  const batch = (kv.shape[0] ?? 0) / tokens;
  const queries = qRows / batch;
  const at = offsetOf(backend, kv);
  return {
    params: [batch, tokens, heads, d / heads, queries, offsetOf(backend, q), at, at + d, d, 2 * d],
    batch,
    queries,
    d,
  };
}

/** (qkv) or (q, kv) → [o [batch·queries, d], stats [batch, heads, queries, 2]]. */
function attentionKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(13);
  return (args: KernelArgs) => {
    const attrs = args.attrs as unknown as AttentionAttrs;
    const backend = args.backend as unknown as WasmBackendInternals;
    const { batch, queries, d, params: operands } = attentionOperands(backend, args.inputs, attrs);
    const o = backend.makeOutput([batch * queries, d], 'float32');
    const stats = backend.makeOutput([batch, attrs.heads, queries, 2], 'float32');
    params.set([
      ...operands,
      offsetOf(backend, o),
      offsetOf(backend, stats),
      1 / Math.sqrt(d / attrs.heads),
    ]);
    addon.attentionForward(backend.wasm.HEAPF32, params);
    return [o, stats];
  };
}

/** (dy, o, stats, qkv) → dqkv, or (dy, o, stats, q, kv) → [dq, dkv]. */
function attentionGradKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(17);
  return (args: KernelArgs) => {
    const { dy, o, stats, qkv, q, kv } = args.inputs as Record<'dy' | 'o' | 'stats', TensorInfo> & {
      qkv?: TensorInfo;
      q?: TensorInfo;
      kv?: TensorInfo;
    };
    const attrs = args.attrs as unknown as AttentionAttrs;
    const backend = args.backend as unknown as WasmBackendInternals;
    const { d, params: operands } = attentionOperands(backend, args.inputs, attrs);
    let outputs: TensorInfo[];
    let places: number[];
    if (qkv !== undefined) {
      const dqkv = backend.makeOutput([...qkv.shape], 'float32');
      const at = offsetOf(backend, dqkv);
      outputs = [dqkv];
      places = [at, at + d, at + 2 * d];
    } else {
      const dq = backend.makeOutput([...(q as TensorInfo).shape], 'float32');
      const dkv = backend.makeOutput([...(kv as TensorInfo).shape], 'float32');
      const at = offsetOf(backend, dkv);
      outputs = [dq, dkv];
      places = [offsetOf(backend, dq), at, at + d];
    }
    params.set([
      ...operands,
      offsetOf(backend, o),
      offsetOf(backend, stats),
      offsetOf(backend, dy),
      ...places,
      1 / Math.sqrt(d / attrs.heads),
    ]);
    addon.attentionBackward(backend.wasm.HEAPF32, params);
    return outputs.length === 1 ? (outputs[0] as TensorInfo) : outputs;
  };
}

function layerNormKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(8);
  return (args: KernelArgs) => {
    const { x, gain, bias } = args.inputs as Record<'x' | 'gain' | 'bias', TensorInfo>;
    const { epsilon } = args.attrs as unknown as { epsilon: number };
    const backend = args.backend as unknown as WasmBackendInternals;
    const [rows = 0, cols = 0] = x.shape;
    const y = backend.makeOutput([rows, cols], 'float32');
    const stats = backend.makeOutput([rows, 2], 'float32');
    params.set([
      rows,
      cols,
      offsetOf(backend, x),
      offsetOf(backend, gain),
      offsetOf(backend, bias),
      offsetOf(backend, y),
      offsetOf(backend, stats),
      epsilon,
    ]);
    addon.layerNormForward(backend.wasm.HEAPF32, params);
    return [y, stats];
  };
}

function layerNormGradKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(9);
  return (args: KernelArgs) => {
    const { dy, x, gain, stats } = args.inputs as Record<'dy' | 'x' | 'gain' | 'stats', TensorInfo>;
    const backend = args.backend as unknown as WasmBackendInternals;
    const [rows = 0, cols = 0] = x.shape;
    const dx = backend.makeOutput([rows, cols], 'float32');
    const dGain = backend.makeOutput([cols], 'float32');
    const dBias = backend.makeOutput([cols], 'float32');
    params.set([
      rows,
      cols,
      offsetOf(backend, dy),
      offsetOf(backend, x),
      offsetOf(backend, gain),
      offsetOf(backend, stats),
      offsetOf(backend, dx),
      offsetOf(backend, dGain),
      offsetOf(backend, dBias),
    ]);
    addon.layerNormBackward(backend.wasm.HEAPF32, params);
    return [dx, dGain, dBias];
  };
}

function tokenizeKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(8);
  return (args: KernelArgs) => {
    const { x, w, bias, cls } = args.inputs as Record<'x' | 'w' | 'bias' | 'cls', TensorInfo>;
    const backend = args.backend as unknown as WasmBackendInternals;
    const [batch = 0, inputs = 0] = x.shape;
    const d = w.shape[1] ?? 0;
    const tokens = backend.makeOutput([batch * (inputs + 1), d], 'float32');
    params.set([
      batch,
      inputs,
      d,
      offsetOf(backend, x),
      offsetOf(backend, w),
      offsetOf(backend, bias),
      offsetOf(backend, cls),
      offsetOf(backend, tokens),
    ]);
    addon.tokenize(backend.wasm.HEAPF32, params);
    return tokens;
  };
}

function tokenizeGradKernel(addon: TransformerKernelsAddon): KernelFunc {
  const params = new Float64Array(8);
  return (args: KernelArgs) => {
    const { dy, x } = args.inputs as Record<'dy' | 'x', TensorInfo>;
    const backend = args.backend as unknown as WasmBackendInternals;
    const [batch = 0, inputs = 0] = x.shape;
    const d = dy.shape[1] ?? 0;
    const dw = backend.makeOutput([inputs, d], 'float32');
    const dBias = backend.makeOutput([inputs, d], 'float32');
    const dCls = backend.makeOutput([1, d], 'float32');
    params.set([
      batch,
      inputs,
      d,
      offsetOf(backend, x),
      offsetOf(backend, dy),
      offsetOf(backend, dw),
      offsetOf(backend, dBias),
      offsetOf(backend, dCls),
    ]);
    addon.tokenizeBackward(backend.wasm.HEAPF32, params);
    return [dw, dBias, dCls];
  };
}

/** firstRows (x [batch·tokens, d] → [batch, d]) or its gradient (dy [batch, d] → [batch·tokens, d]). */
function firstRowsKernel(addon: TransformerKernelsAddon, backward: boolean): KernelFunc {
  const params = new Float64Array(5);
  return (args: KernelArgs) => {
    const { x } = args.inputs as { x: TensorInfo };
    const { tokens } = args.attrs as unknown as { tokens: number };
    const backend = args.backend as unknown as WasmBackendInternals;
    const [rows = 0, d = 0] = x.shape;
    const batch = backward ? rows : rows / tokens;
    const out = backend.makeOutput(backward ? [batch * tokens, d] : [batch, d], 'float32');
    params.set([batch, tokens, d, offsetOf(backend, x), offsetOf(backend, out)]);
    if (backward) addon.firstRowsBackward(backend.wasm.HEAPF32, params);
    else addon.firstRows(backend.wasm.HEAPF32, params);
    return out;
  };
}

/** Registers the kernels on the wasm backend (once); false when the addon lacks them. */
export function installNativeTransformerKernels(): boolean {
  if ((getKernel(ATTENTION, 'wasm') as KernelConfig | undefined) !== undefined) return true;
  const addon = loadNativeGemm() as
    (NativeGemmAddon & Partial<TransformerKernelsAddon>) | undefined;
  if (addon?.attentionForward === undefined || addon.firstRowsBackward === undefined) return false;
  const kernels = addon as TransformerKernelsAddon;
  const table: [string, KernelFunc][] = [
    [ATTENTION, attentionKernel(kernels)],
    [ATTENTION_GRAD, attentionGradKernel(kernels)],
    [LAYER_NORM, layerNormKernel(kernels)],
    [LAYER_NORM_GRAD, layerNormGradKernel(kernels)],
    [TOKENIZE, tokenizeKernel(kernels)],
    [TOKENIZE_GRAD, tokenizeGradKernel(kernels)],
    [FIRST_ROWS, firstRowsKernel(kernels, false)],
    [FIRST_ROWS_GRAD, firstRowsKernel(kernels, true)],
  ];
  for (const [kernelName, kernelFunc] of table)
    registerKernel({ kernelName, backendName: 'wasm', kernelFunc });
  return true;
}

/**
 * Whether the native transformer kernels run now: where the fused training kernels do
 * ({@link nativeTrainingKernelsActive}; setNativeTrainingKernelsEnabled switches both), and the
 * addon has them.
 */
export function nativeTransformerKernelsActive(): boolean {
  return (
    nativeTrainingKernelsActive() &&
    (getKernel(FIRST_ROWS_GRAD, 'wasm') as KernelConfig | undefined) !== undefined
  );
}

/** Runs a kernel with one output. */
function runOne(
  name: string,
  inputs: Record<string, tf.Tensor>,
  attrs: NamedAttrMap = {},
): tf.Tensor {
  return tf.engine().runKernel(name, inputs, attrs);
}

/** Runs a kernel with several outputs. */
function runMany(
  name: string,
  inputs: Record<string, tf.Tensor>,
  attrs: NamedAttrMap = {},
): tf.Tensor[] {
  return tf.engine().runKernel(name, inputs, attrs) as unknown as tf.Tensor[];
}

/** The layout of {@link multiHeadAttention}'s and {@link multiHeadCrossAttention}'s inputs. */
export interface AttentionOptions {
  /** Tokens (keys and values) per sample. */
  tokens: number;
  /** Heads; each takes dHead = d / heads columns of q, k and v. */
  heads: number;
}

/**
 * Multi-head scaled dot-product self-attention: qkv [batch·tokens, 3d] holds each token's query,
 * key and value side by side (one product with [Wq | Wk | Wv]); the result [batch·tokens, d] is
 * softmax(q·kᵀ/√dHead)·v per head, the heads side by side.
 */
export function multiHeadAttention(qkv: tf.Tensor2D, options: AttentionOptions): tf.Tensor2D {
  const { tokens, heads } = options;
  const [rows, width] = qkv.shape;
  if (width % (3 * heads) !== 0 || rows % tokens !== 0)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `multiHeadAttention: qkv [${rows}, ${width}] is not [batch·${tokens}, 3·${heads}·dHead]`,
      { hint: 'qkv is the product of the tokens with [Wq | Wk | Wv]' },
    );
  if (!nativeTransformerKernelsActive() || rows === 0) {
    const [q, kv] = tf.split(qkv, [width / 3, (2 * width) / 3], 1) as [tf.Tensor2D, tf.Tensor2D];
    return attentionOps(q, kv, tokens, heads);
  }
  const attrs = { tokens, heads };
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const [o, stats] = runMany(ATTENTION, { qkv: input }, attrs) as [tf.Tensor2D, tf.Tensor];
    save([input, o, stats]);
    return {
      value: o,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [x, out, rowStats] = saved as [tf.Tensor, tf.Tensor, tf.Tensor];
        return [runOne(ATTENTION_GRAD, { dy, o: out, stats: rowStats, qkv: x }, attrs)];
      },
    };
  });
  return op(qkv);
}

/**
 * Multi-head attention of separate query rows: q [batch·queries, d] (each sample's queries, e.g.
 * only its [CLS] token's, all a network that reads [CLS] needs from its last block) over kv
 * [batch·tokens, 2d], each token's key and value side by side. The result is [batch·queries, d].
 */
export function multiHeadCrossAttention(
  q: tf.Tensor2D,
  kv: tf.Tensor2D,
  options: AttentionOptions,
): tf.Tensor2D {
  const { tokens, heads } = options;
  const [qRows, d] = q.shape;
  const [kvRows, width] = kv.shape;
  const batch = kvRows / tokens;
  const perSample = batch === 0 ? qRows === 0 : qRows % batch === 0;
  if (d % heads !== 0 || width !== 2 * d || kvRows % tokens !== 0 || !perSample)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `multiHeadCrossAttention: q [${qRows}, ${d}] and kv [${kvRows}, ${width}] are not [batch·queries, ${heads}·dHead] and [batch·${tokens}, 2·${heads}·dHead]`,
      { hint: 'kv is the product of the tokens with [Wk | Wv]' },
    );
  if (!nativeTransformerKernelsActive() || batch === 0) return attentionOps(q, kv, tokens, heads);
  const attrs = { tokens, heads };
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [queries, keysValues, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
    const [o, stats] = runMany(ATTENTION, { q: queries, kv: keysValues }, attrs) as [
      tf.Tensor2D,
      tf.Tensor,
    ];
    save([queries, keysValues, o, stats]);
    return {
      value: o,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [qs, kvs, out, rowStats] = saved as [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor];
        return runMany(ATTENTION_GRAD, { dy, o: out, stats: rowStats, q: qs, kv: kvs }, attrs);
      },
    };
  });
  return op(q, kv);
}

/** Attention as tfjs ops: batched products over [batch·heads]. */
function attentionOps(q: tf.Tensor2D, kv: tf.Tensor2D, tokens: number, heads: number): tf.Tensor2D {
  const [qRows, d] = q.shape;
  const batch = kv.shape[0] / tokens;
  if (batch === 0) return tf.zeros([0, d]);
  const queries = qRows / batch;
  const dHead = d / heads;
  // [batch·n, d] → [batch·heads, n, dHead]
  const split = (t: tf.Tensor, n: number): tf.Tensor3D =>
    tf.reshape(tf.transpose(tf.reshape(t, [batch, n, heads, dHead]), [0, 2, 1, 3]), [
      batch * heads,
      n,
      dHead,
    ]);
  const [k, v] = tf.split(kv, 2, 1) as [tf.Tensor2D, tf.Tensor2D];
  // The 1/√dHead scale on q (queries × d values) rather than on the queries × tokens scores.
  const weights = tf.softmax(
    tf.matMul(split(tf.mul(q, 1 / Math.sqrt(dHead)), queries), split(k, tokens), false, true),
  );
  return tf.reshape(
    tf.transpose(
      tf.reshape(tf.matMul(weights, split(v, tokens)), [batch, heads, queries, dHead]),
      [0, 2, 1, 3],
    ),
    [batch * queries, d],
  );
}

/**
 * LayerNorm over the last axis of x [rows, cols] with a learned gain and bias [cols]:
 * (x − mean)/√(var + epsilon)·gain + bias per row.
 */
export function layerNorm(
  x: tf.Tensor2D,
  gain: tf.Tensor1D,
  bias: tf.Tensor1D,
  epsilon = 1e-5,
): tf.Tensor2D {
  if (!nativeTransformerKernelsActive()) {
    const mean = tf.mean(x, -1, true);
    const centered = tf.sub(x, mean);
    const variance = tf.mean(tf.square(centered), -1, true);
    return tf.add(tf.mul(tf.div(centered, tf.sqrt(tf.add(variance, epsilon))), gain), bias);
  }
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, g, b, save] = args as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.GradSaveFunc];
    const [y, stats] = runMany(LAYER_NORM, { x: input, gain: g, bias: b }, { epsilon }) as [
      tf.Tensor2D,
      tf.Tensor,
    ];
    save([input, g, stats]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, gs, ss] = saved as [tf.Tensor, tf.Tensor, tf.Tensor];
        return runMany(LAYER_NORM_GRAD, { dy, x: xs, gain: gs, stats: ss });
      },
    };
  });
  return op(x, gain, bias);
}

/**
 * The FT-Transformer's tokens: for x [batch, inputs], [batch·(inputs + 1), d] rows, each sample's
 * first the [CLS] token cls [1, d], then x[b, t]·w[t] + bias[t] (w and bias [inputs, d]).
 * Gradients flow to w, bias and cls, not to x (the observations: data).
 */
export function tokenize(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  bias: tf.Tensor2D,
  cls: tf.Tensor2D,
): tf.Tensor2D {
  const [batch, inputs] = x.shape;
  const d = w.shape[1];
  if (!nativeTransformerKernelsActive()) {
    const features = tf.add<tf.Tensor3D>(tf.mul(tf.expandDims(x, 2), w), bias);
    // Broadcast, not tile: tile's gradient is a slice and an add per row, broadcasting's one sum.
    const first = tf.add<tf.Tensor3D>(tf.zeros([batch, 1, d]), tf.reshape(cls, [1, 1, d]));
    return tf.reshape(tf.concat([first, features], 1), [batch * (inputs + 1), d]);
  }
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [ws, bs, cs] = args as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
    return {
      value: runOne(TOKENIZE, { x, w: ws, bias: bs, cls: cs }),
      gradFunc: (dy: tf.Tensor) => runMany(TOKENIZE_GRAD, { dy, x }),
    };
  });
  return op(w, bias, cls) as tf.Tensor2D;
}

/** Row 0 of each sample's `tokens` rows of x [batch·tokens, d]: [batch, d] (its [CLS] rows). */
export function firstTokenRows(x: tf.Tensor2D, tokens: number): tf.Tensor2D {
  if (!nativeTransformerKernelsActive()) return firstRowOps(x, tokens);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input] = args as [tf.Tensor2D];
    return {
      value: runOne(FIRST_ROWS, { x: input }, { tokens }),
      gradFunc: (dy: tf.Tensor) => [runOne(FIRST_ROWS_GRAD, { x: dy }, { tokens })],
    };
  });
  return op(x) as tf.Tensor2D;
}

/** {@link firstTokenRows} as tfjs ops: a slice of [batch, tokens·d]. */
function firstRowOps(x: tf.Tensor2D, tokens: number): tf.Tensor2D {
  const [rows, d] = x.shape;
  const batch = rows / tokens;
  return tf.slice(tf.reshape<tf.Rank.R2>(x, [batch, tokens * d]), [0, 0], [batch, d]);
}

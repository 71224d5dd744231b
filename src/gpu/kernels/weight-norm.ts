import type { KernelSpec } from '../pipeline-cache.js';

/*
 * Weight normalization of a convolution (Salimans & Kingma 2016), the TCN's: w = g · v / ‖v‖ per
 * output channel, ‖v‖ over the taps and inputs of that channel. v is [taps · inputs, outputs] row
 * by row, so a thread per output channel walks its column with neighbouring threads on
 * neighbouring addresses, in a fixed order. Backward, with dW the gradient at w:
 *   dg = Σ dW · v / ‖v‖,   dv = (g / ‖v‖) · dW − (g · dg / ‖v‖²) · v.
 */

/** Threads per workgroup (one per output channel). */
export const WEIGHT_NORM_THREADS = 64;

/** One convolution's weight-norm call: its sizes and where v, g, w, the norms and gradients sit. */
export interface WeightNormCall {
  /** taps · inputs. */
  rows: number;
  /** Output channels. */
  columns: number;
  offsetV: number;
  offsetG: number;
  /** Forward: where w goes; backward: where dW is read. */
  offsetW: number;
  /** Where the forward pass keeps ‖v‖ per channel, for the backward pass. */
  offsetNorm: number;
  /** Backward: where dv and dg go. */
  offsetDv?: number;
  offsetDg?: number;
  /**
   * Backward: where the bias gradient goes, copied from right after dW (where the convolution's
   * weight-gradient GEMM writes it as its ones row); absent: not copied.
   */
  offsetDb?: number;
}

/** The uniform's words. */
export function weightNormUniform(call: WeightNormCall): Uint32Array {
  return Uint32Array.from([
    call.rows,
    call.columns,
    call.offsetV,
    call.offsetG,
    call.offsetW,
    call.offsetNorm,
    call.offsetDv ?? 0,
    call.offsetDg ?? 0,
    call.offsetDb ?? 0xffffffff,
    0,
    0,
    0,
  ]);
}

/** Workgroups for `columns` output channels. */
export function weightNormWorkgroups(columns: number): [number] {
  return [Math.ceil(columns / WEIGHT_NORM_THREADS)];
}

const PARAMS = /* wgsl */ `
struct Params { rows: u32, columns: u32, offV: u32, offG: u32, offW: u32, offNorm: u32,
                offDv: u32, offDg: u32, offDb: u32, pad0: u32, pad1: u32, pad2: u32 };
@group(0) @binding(0) var<uniform> p: Params;`;

/** w and ‖v‖ from v and g. Bindings: params, weights (v, g), out (w, norms). */
export function weightNormForwardKernel(): KernelSpec {
  const code = /* wgsl */ `${PARAMS}
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(${WEIGHT_NORM_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u) {
  let o = id.x;
  if (o >= p.columns) { return; }
  var sum = 0.0;
  for (var r = 0u; r < p.rows; r++) {
    let v = weights[p.offV + r * p.columns + o];
    sum = sum + v * v;
  }
  let norm = sqrt(sum);
  let scale = weights[p.offG + o] / norm;
  out[p.offNorm + o] = norm;
  for (var r = 0u; r < p.rows; r++) {
    out[p.offW + r * p.columns + o] = weights[p.offV + r * p.columns + o] * scale;
  }
}
`;
  return {
    label: 'weight norm',
    code,
    bindings: ['uniform', 'read', 'write'],
    perMinibatch: false,
  };
}

/**
 * dv and dg from dW (at offsetW of `dw`) and the forward pass's norms (at offsetNorm of `saved`).
 * Bindings: params, weights (v, g), saved (norms), dw, grads (dv, dg).
 */
export function weightNormBackwardKernel(): KernelSpec {
  const code = /* wgsl */ `${PARAMS}
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read> saved: array<f32>;
@group(0) @binding(3) var<storage, read> dw: array<f32>;
@group(0) @binding(4) var<storage, read_write> grads: array<f32>;
@compute @workgroup_size(${WEIGHT_NORM_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u) {
  let o = id.x;
  if (o >= p.columns) { return; }
  let norm = saved[p.offNorm + o];
  let g = weights[p.offG + o];
  var dot = 0.0;
  for (var r = 0u; r < p.rows; r++) {
    dot = dot + dw[p.offW + r * p.columns + o] * weights[p.offV + r * p.columns + o];
  }
  let dg = dot / norm;
  grads[p.offDg + o] = dg;
  if (p.offDb != 0xffffffffu) { grads[p.offDb + o] = dw[p.offW + p.rows * p.columns + o]; }
  let scale = g / norm;
  let pull = g * dg / (norm * norm);
  for (var r = 0u; r < p.rows; r++) {
    let i = r * p.columns + o;
    grads[p.offDv + i] = scale * dw[p.offW + i] - pull * weights[p.offV + i];
  }
}
`;
  return {
    label: 'weight norm backward',
    code,
    bindings: ['uniform', 'read', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}

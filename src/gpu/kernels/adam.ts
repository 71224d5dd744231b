import type { KernelSpec } from '../pipeline-cache.js';
import { REDUCE_SUM_WGSL, REDUCE_THREADS } from './reduce.js';

/*
 * The optimizer step on one flat buffer of every parameter, in three dispatches: partial sums of
 * the squared gradients (a fixed grid of workgroups, each a fixed slice), their total and the clip
 * scale min(1, maxNorm / (‖g‖ + 1e-6)) together with Adam's bias-correction products, then Adam
 * element-wise with the scale applied. The scale never leaves the device. The arithmetic is the
 * native CPU kernel's (native/gemm/training-kernels.c, tl_adam) in the same order.
 */

/** Workgroups of the partial sums of squares (each sums a strided slice; their sums are added in order). */
export const NORM_WORKGROUPS = 64;

/** Squared-gradient partial sums: grads → partials[NORM_WORKGROUPS]. Bindings: params, grads, partials. */
export function sumOfSquaresKernel(): KernelSpec {
  const code = /* wgsl */ `
struct Params { count: u32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
${REDUCE_SUM_WGSL}
@compute @workgroup_size(${REDUCE_THREADS})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
  var sum = 0.0;
  for (var i = wg.x * ${REDUCE_THREADS}u + li; i < p.count; i += ${NORM_WORKGROUPS * REDUCE_THREADS}u) {
    let g = grads[i];
    sum = sum + g * g;
  }
  let total = reduceSum(sum, li);
  if (li == 0u) { partials[wg.x] = total; }
}
`;
  return {
    label: 'sum of squares',
    code,
    bindings: ['uniform', 'read', 'write'],
    perMinibatch: false,
  };
}

/**
 * The clip scale and Adam's products: partials → scalars [scale, β₁ᵗ, β₂ᵗ], and the products
 * state [β₁ᵗ, β₂ᵗ] moved on to [β₁ᵗ⁺¹, β₂ᵗ⁺¹]. Bindings: params, partials, scalars, products.
 */
export function clipScaleKernel(): KernelSpec {
  const code = /* wgsl */ `
struct Params { maxNorm: f32, beta1: f32, beta2: f32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> scalars: array<f32>;
@group(0) @binding(3) var<storage, read_write> products: array<f32>;
${REDUCE_SUM_WGSL}
@compute @workgroup_size(${REDUCE_THREADS})
fn main(@builtin(local_invocation_index) li: u32) {
  var v = 0.0;
  if (li < ${NORM_WORKGROUPS}u) { v = partials[li]; }
  let total = reduceSum(v, li);
  if (li == 0u) {
    let norm = sqrt(total);
    scalars[0] = min(1.0, p.maxNorm / (norm + 1e-6));
    scalars[1] = products[0];
    scalars[2] = products[1];
    scalars[3] = norm;
    products[0] = products[0] * p.beta1;
    products[1] = products[1] * p.beta2;
  }
}
`;
  return {
    label: 'clip scale',
    code,
    bindings: ['uniform', 'read', 'write', 'write'],
    perMinibatch: false,
  };
}

/** Threads per workgroup of the element-wise Adam step. */
export const ADAM_THREADS = 256;

/** The uniform of {@link adamKernel}: count, then the float32 constants. */
export function adamUniform(constants: {
  count: number;
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
}): ArrayBuffer {
  const words = new ArrayBuffer(32);
  new Uint32Array(words, 0, 1)[0] = constants.count;
  new Float32Array(words, 4, 6).set([
    constants.beta1,
    constants.beta2,
    1 - constants.beta1,
    1 - constants.beta2,
    -constants.learningRate,
    constants.epsilon,
  ]);
  return words;
}

/** Adam on every element. Bindings: params, grads, scalars, weights, m, v. */
export function adamKernel(): KernelSpec {
  const code = /* wgsl */ `
struct Params { count: u32, beta1: f32, beta2: f32, oneMinusBeta1: f32, oneMinusBeta2: f32,
                negatedRate: f32, epsilon: f32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read> scalars: array<f32>;
@group(0) @binding(3) var<storage, read_write> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(${ADAM_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * ${ADAM_THREADS}u;
  if (i >= p.count) { return; }
  let scale = scalars[0];
  let oneMinusAcc1 = 1.0 - scalars[1];
  let oneMinusAcc2 = 1.0 - scalars[2];
  let gradient = grads[i] * scale;
  let first = m[i] * p.beta1 + gradient * p.oneMinusBeta1;
  let second = v[i] * p.beta2 + (gradient * gradient) * p.oneMinusBeta2;
  let denominator = sqrt(second / oneMinusAcc2) + p.epsilon;
  m[i] = first;
  v[i] = second;
  w[i] = (first / oneMinusAcc1) / denominator * p.negatedRate + w[i];
}
`;
  return {
    label: 'adam',
    code,
    bindings: ['uniform', 'read', 'read', 'write', 'write', 'write'],
    perMinibatch: false,
  };
}

/** Workgroups (x, y) of {@link adamKernel} for `count` elements (y past the 65,535 limit of x). */
export function adamWorkgroups(count: number): [number, number] {
  const groups = Math.ceil(count / ADAM_THREADS);
  const x = Math.min(groups, 65_535);
  return [x, Math.ceil(groups / x)];
}

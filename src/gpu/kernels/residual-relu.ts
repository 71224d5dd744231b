import type { KernelSpec } from '../pipeline-cache.js';

/*
 * The end of a TCN block: out = relu(h + residual), element-wise, and its backward, which masks
 * the output's gradient by out > 0 (the same gradient then flows into both h and the residual).
 * Both take element offsets so they work inside larger buffers.
 */

/** Threads per workgroup. */
export const ELEMENTWISE_THREADS = 256;

/** Workgroups (x, y) for `count` elements, y past the 65,535 limit of x. */
export function elementwiseWorkgroups(count: number): [number, number] {
  const groups = Math.max(1, Math.ceil(count / ELEMENTWISE_THREADS));
  const x = Math.min(groups, 65_535);
  return [x, Math.ceil(groups / x)];
}

/** count, the offsets of the three operands, and the ReLU mask's scale (default 1). */
export function elementwiseUniform(
  count: number,
  offsets: readonly [number, number, number],
  scale = 1,
): Uint32Array {
  const scaleBits = new Uint32Array(Float32Array.of(scale).buffer)[0] as number;
  return Uint32Array.from([count, ...offsets, scaleBits, 0, 0, 0]);
}

const INDEX = /* wgsl */ `
struct Params { count: u32, offA: u32, offB: u32, offOut: u32, scale: u32, pad0: u32, pad1: u32,
                pad2: u32 };
@group(0) @binding(0) var<uniform> p: Params;
fn index(id: vec3u, groups: vec3u) -> u32 { return id.x + id.y * groups.x * ${ELEMENTWISE_THREADS}u; }`;

/** out = max(a + b, 0). Bindings: params, a, b, out. */
export function addReluKernel(): KernelSpec {
  const code = /* wgsl */ `${INDEX}
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(${ELEMENTWISE_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = index(id, groups);
  if (i >= p.count) { return; }
  out[p.offOut + i] = max(a[p.offA + i] + b[p.offB + i], 0.0);
}
`;
  return {
    label: 'add relu',
    code,
    bindings: ['uniform', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}

/**
 * g = dy · scale where y > 0, else 0 (a = dy, b = y). With scale 1/(1 − rate) and y after dropout,
 * the gradient through ReLU and inverted dropout, as the CPU's convolution computes it (dy scaled,
 * then masked by the kept, positive outputs). Bindings: params, dy, y, g.
 */
export function reluMaskKernel(): KernelSpec {
  const code = /* wgsl */ `${INDEX}
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> g: array<f32>;
@compute @workgroup_size(${ELEMENTWISE_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = index(id, groups);
  if (i >= p.count) { return; }
  var v = dy[p.offA + i] * bitcast<f32>(p.scale);
  if (y[p.offB + i] <= 0.0) { v = 0.0; }
  g[p.offOut + i] = v;
}
`;
  return {
    label: 'relu mask',
    code,
    bindings: ['uniform', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}

/** out = a + b. Bindings: params, a, b, out. */
export function addKernel(): KernelSpec {
  const code = /* wgsl */ `${INDEX}
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(${ELEMENTWISE_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = index(id, groups);
  if (i >= p.count) { return; }
  out[p.offOut + i] = a[p.offA + i] + b[p.offB + i];
}
`;
  return {
    label: 'add',
    code,
    bindings: ['uniform', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}

import type { KernelSpec } from '../pipeline-cache.js';

/*
 * A TCN's chunk encoder: each sequence's hidden steps [time, width] become one vector, its last
 * step or the mean of its steps (sum, then divided by time, as tfjs's mean), and backward the
 * vector's gradient goes back to the last step (zeros elsewhere) or to every step divided by time.
 * One thread per (sequence, channel) forward, per (step, channel) backward; sums in step order.
 */

/** How a sequence's steps become one vector. */
export type Pooling = 'last' | 'mean';

/** Threads per workgroup. */
export const POOLING_THREADS = 256;

/** sequences, time, width: the uniform of both kernels. */
export function poolingUniform(sequences: number, time: number, width: number): Uint32Array {
  return Uint32Array.from([sequences, time, width, 0]);
}

const PARAMS = /* wgsl */ `
struct Params { sequences: u32, time: u32, width: u32, pad: u32 };
@group(0) @binding(0) var<uniform> p: Params;`;

/** h [sequences · time, width] → z [sequences, width]. Bindings: params, h, z. */
export function poolingKernel(pooling: Pooling): KernelSpec {
  const body =
    pooling === 'last'
      ? 'z[s * p.width + c] = h[((s + 1u) * p.time - 1u) * p.width + c];'
      : `var sum = 0.0;
  for (var t = 0u; t < p.time; t++) { sum = sum + h[(s * p.time + t) * p.width + c]; }
  z[s * p.width + c] = sum / f32(p.time);`;
  const code = /* wgsl */ `${PARAMS}
@group(0) @binding(1) var<storage, read> h: array<f32>;
@group(0) @binding(2) var<storage, read_write> z: array<f32>;
@compute @workgroup_size(${POOLING_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= p.sequences * p.width) { return; }
  let s = id.x / p.width;
  let c = id.x % p.width;
  ${body}
}
`;
  return {
    label: `pool ${pooling}`,
    code,
    bindings: ['uniform', 'read', 'write'],
    perMinibatch: false,
  };
}

/** dz [sequences, width] → dh [sequences · time, width]. Bindings: params, dz, dh. */
export function poolingBackwardKernel(pooling: Pooling): KernelSpec {
  const value =
    pooling === 'last'
      ? 'select(0.0, dz[s * p.width + c], t == p.time - 1u)'
      : 'dz[s * p.width + c] / f32(p.time)';
  const code = /* wgsl */ `${PARAMS}
@group(0) @binding(1) var<storage, read> dz: array<f32>;
@group(0) @binding(2) var<storage, read_write> dh: array<f32>;
@compute @workgroup_size(${POOLING_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * ${POOLING_THREADS}u;
  if (i >= p.sequences * p.time * p.width) { return; }
  let row = i / p.width;
  let c = i % p.width;
  let s = row / p.time;
  let t = row % p.time;
  dh[i] = ${value};
}
`;
  return {
    label: `pool ${pooling} backward`,
    code,
    bindings: ['uniform', 'read', 'write'],
    perMinibatch: false,
  };
}

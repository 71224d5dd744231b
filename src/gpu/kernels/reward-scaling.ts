import type { KernelSpec } from '../pipeline-cache.js';
import { REDUCE_SUM_WGSL, REDUCE_THREADS } from './reduce.js';

/*
 * Reward scaling on the device, agents/return-normalizer.ts's rules (cleanrl's NormalizeReward):
 * each env's discounted return R = γR + r over its valid steps, the running mean and variance of
 * those returns updated every step with the batch of all envs' (Chan et al.'s parallel update),
 * and each reward divided by the running standard deviation, clipped to ±10; an env whose
 * episode ended starts its return again. Five dispatches a step, in a rollout's command buffer:
 *
 *   1. returns: R per env, and per workgroup the count and sum of the valid ones;
 *   2. batch mean: the partial sums added (one workgroup, in order);
 *   3. squares: per workgroup Σ (R − batch mean)²;
 *   4. update: the running statistics, and the scale 1/√(variance + 1e-8);
 *   5. scale: each reward × scale, clipped; ended envs' R back to 0.
 *
 * The statistics are f32 here and f64 on the CPU; the sums run in a fixed order (no atomics), so a
 * rollout scales with the same bits on every run of a device.
 */

/** Threads per workgroup: the reduction's. */
export const SCALING_WORKGROUP = REDUCE_THREADS;

/** Floats of the statistics buffer: count, mean, variance, then batch count, batch mean, scale. */
export const SCALING_STATS = 8;

/** Workgroups (and partial sums) of the per-env kernels for `nEnvs` envs. */
export const scalingWorkgroups = (nEnvs: number): number => Math.ceil(nEnvs / SCALING_WORKGROUP);

const HEADER = /* wgsl */ `
struct Params { n: u32, partials: u32, gamma: f32, pad: f32 };
struct Step { start: u32, rows: u32 };
@group(0) @binding(0) var<uniform> p: Params;
`;

/** The uniform: nEnvs, partial sums (u32), γ (f32). */
export function scalingUniform(nEnvs: number, gamma: number): ArrayBuffer {
  const buffer = new ArrayBuffer(16);
  new Uint32Array(buffer, 0, 2).set([nEnvs, scalingWorkgroups(nEnvs)]);
  new Float32Array(buffer, 8, 1).set([gamma]);
  return buffer;
}

/**
 * The five kernels, in order. Bindings: 1. params, rewards, resetMask, returns, partials (group 1:
 * the step); 2. params, partials, stats; 3. params, resetMask, returns, stats, partials (group 1);
 * 4. params, partials, stats; 5. params, terminated, truncated, stats, rewards, returns (group 1).
 */
export function rewardScalingKernels(): KernelSpec[] {
  const returns = /* wgsl */ `${HEADER}
@group(0) @binding(1) var<storage, read> rewards: array<f32>;
@group(0) @binding(2) var<storage, read> resetMask: array<u32>;
@group(0) @binding(3) var<storage, read_write> returns: array<f32>;
@group(0) @binding(4) var<storage, read_write> partials: array<f32>;
@group(1) @binding(0) var<uniform> step: Step;
${REDUCE_SUM_WGSL}
@compute @workgroup_size(${SCALING_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(workgroup_id) wg: vec3u,
        @builtin(local_invocation_index) li: u32) {
  let e = gid.x;
  var count = 0.0;
  var sum = 0.0;
  if (e < p.n && resetMask[step.start + e] == 0u) {
    let r = returns[e] * p.gamma + rewards[step.start + e];
    returns[e] = r;
    count = 1.0;
    sum = r;
  }
  let c = reduceSum(count, li);
  let s = reduceSum(sum, li);
  if (li == 0u) { partials[2u * wg.x] = c; partials[2u * wg.x + 1u] = s; }
}
`;
  const batchMean = /* wgsl */ `${HEADER}
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;
@compute @workgroup_size(1)
fn main() {
  var count = 0.0;
  var sum = 0.0;
  for (var w = 0u; w < p.partials; w = w + 1u) {
    count = count + partials[2u * w];
    sum = sum + partials[2u * w + 1u];
  }
  stats[3] = count;
  stats[4] = select(0.0, sum / count, count > 0.0);
}
`;
  const squares = /* wgsl */ `${HEADER}
@group(0) @binding(1) var<storage, read> resetMask: array<u32>;
@group(0) @binding(2) var<storage, read> returns: array<f32>;
@group(0) @binding(3) var<storage, read> stats: array<f32>;
@group(0) @binding(4) var<storage, read_write> partials: array<f32>;
@group(1) @binding(0) var<uniform> step: Step;
${REDUCE_SUM_WGSL}
@compute @workgroup_size(${SCALING_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(workgroup_id) wg: vec3u,
        @builtin(local_invocation_index) li: u32) {
  let e = gid.x;
  var square = 0.0;
  if (e < p.n && resetMask[step.start + e] == 0u) {
    let d = returns[e] - stats[4];
    square = d * d;
  }
  let total = reduceSum(square, li);
  if (li == 0u) { partials[2u * wg.x] = total; }
}
`;
  const update = /* wgsl */ `${HEADER}
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;
@compute @workgroup_size(1)
fn main() {
  let batchCount = stats[3];
  if (batchCount > 0.0) {
    var squares = 0.0;
    for (var w = 0u; w < p.partials; w = w + 1u) { squares = squares + partials[2u * w]; }
    let count = stats[0];
    let total = count + batchCount;
    let delta = stats[4] - stats[1];
    let m2 = stats[2] * count + squares + delta * delta * count * batchCount / total;
    stats[1] = stats[1] + delta * batchCount / total;
    stats[2] = m2 / total;
    stats[0] = total;
  }
  stats[5] = 1.0 / sqrt(stats[2] + 1e-8);
}
`;
  const scale = /* wgsl */ `${HEADER}
@group(0) @binding(1) var<storage, read> terminated: array<u32>;
@group(0) @binding(2) var<storage, read> truncated: array<u32>;
@group(0) @binding(3) var<storage, read> stats: array<f32>;
@group(0) @binding(4) var<storage, read_write> rewards: array<f32>;
@group(0) @binding(5) var<storage, read_write> returns: array<f32>;
@group(1) @binding(0) var<uniform> step: Step;
@compute @workgroup_size(${SCALING_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let e = gid.x;
  if (e >= p.n) { return; }
  let row = step.start + e;
  rewards[row] = clamp(rewards[row] * stats[5], -10.0, 10.0);
  if (terminated[row] == 1u || truncated[row] == 1u) { returns[e] = 0.0; }
}
`;
  return [
    {
      label: 'reward scaling returns',
      code: returns,
      bindings: ['uniform', 'read', 'read', 'write', 'write'],
      perMinibatch: true,
    },
    {
      label: 'reward scaling batch mean',
      code: batchMean,
      bindings: ['uniform', 'read', 'write'],
      perMinibatch: false,
    },
    {
      label: 'reward scaling squares',
      code: squares,
      bindings: ['uniform', 'read', 'read', 'read', 'write'],
      perMinibatch: true,
    },
    {
      label: 'reward scaling update',
      code: update,
      bindings: ['uniform', 'read', 'write'],
      perMinibatch: false,
    },
    {
      label: 'reward scaling',
      code: scale,
      bindings: ['uniform', 'read', 'read', 'read', 'write', 'write'],
      perMinibatch: true,
    },
  ];
}

import type { KernelSpec } from '../pipeline-cache.js';
import type { MinibatchLayout } from './ppo-loss.js';

/*
 * The per-step kernels of a PPO rollout on the device, around the policy's forward GEMMs and the
 * env's step: the Gaussian sample, and the record of the step's outcome. Both read the step's rows
 * from group 1 (start = t · nEnvs, rows = nEnvs), the mechanism the update uses for minibatches,
 * so a whole rollout is recorded once and replayed with one offset per step.
 *
 * The noise is counter-based: z = Box–Muller of two hashes of (seed, row, action dimension), so a
 * seed gives the same rollout on every device and no generator state is kept. The log-probability
 * is the CPU actor's (agents/gaussian-policy.ts): z recomputed from the float32 action, as the
 * update will, minus Σ (logStd + log √2π).
 */

/** Threads per workgroup of the rollout kernels. */
export const ROLLOUT_WORKGROUP = 64;

/** The sample kernel's uniform: seed, logStd's offset in the parameters (u32). */
export function sampleUniform(seed: number, logStdOffset: number): Uint32Array {
  return Uint32Array.from([seed >>> 0, logStdOffset, 0, 0]);
}

/**
 * Samples every env's action from N(mean, exp(logStd)²) and records the step's inputs. Bindings:
 * params (uniform), obs [nEnvs × stateDim], actor output [nEnvs × actionDim] (before tanh when
 * `tanhMean`), critic output [nEnvs], parameters (for logStd), rollout (states, actions and
 * log-probabilities at the step's rows, in `layout`), values [rows], env actions (written).
 */
export function sampleKernel(layout: MinibatchLayout, tanhMean: boolean): KernelSpec {
  const S = layout.stateDim;
  const A = layout.actionDim;
  const code = /* wgsl */ `
struct Params { seed: u32, logStd: u32, pad0: u32, pad1: u32 };
struct Step { start: u32, rows: u32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> obs: array<f32>;
@group(0) @binding(2) var<storage, read> actorOut: array<f32>;
@group(0) @binding(3) var<storage, read> criticOut: array<f32>;
@group(0) @binding(4) var<storage, read> parameters: array<f32>;
@group(0) @binding(5) var<storage, read_write> rollout: array<f32>;
@group(0) @binding(6) var<storage, read_write> values: array<f32>;
@group(0) @binding(7) var<storage, read_write> envActions: array<f32>;
@group(1) @binding(0) var<uniform> step: Step;

fn fmix(x: u32) -> u32 {
  var h = x;
  h = h ^ (h >> 16u);
  h = h * 0x85ebca6bu;
  h = h ^ (h >> 13u);
  h = h * 0xc2b2ae35u;
  return h ^ (h >> 16u);
}

// A uniform in (0, 1] from 24 bits of a hash.
fn unit(h: u32) -> f32 { return f32((h >> 8u) + 1u) * (1.0 / 16777216.0); }

@compute @workgroup_size(${ROLLOUT_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let e = gid.x;
  if (e >= step.rows) { return; }
  let row = step.start + e;
  for (var j = 0u; j < ${S}u; j = j + 1u) {
    rollout[${layout.states}u + row * ${S}u + j] = obs[e * ${S}u + j];
  }
  var logProb = 0.0;
  for (var d = 0u; d < ${A}u; d = d + 1u) {
    let key = fmix(p.seed ^ fmix(row * ${A}u + d + 0x632be5abu));
    let u1 = unit(fmix(key ^ 0x2545f491u));
    let u2 = unit(fmix(key + 0x9e3779b9u));
    let noise = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    let raw = actorOut[e * ${A}u + d];
    let mean = ${tanhMean ? 'tanh(raw)' : 'raw'};
    let logStd = parameters[p.logStd + d];
    let scale = exp(logStd);
    let action = mean + scale * noise;
    let z = (action - mean) / scale;
    logProb = logProb - 0.5 * z * z - (logStd + 0.9189385332046727);
    rollout[${layout.actions}u + row * ${A}u + d] = action;
    envActions[e * ${A}u + d] = action;
  }
  rollout[${layout.oldLogProbs}u + row] = logProb;
  values[row] = criticOut[e];
}
`;
  return {
    label: 'rollout sample',
    code,
    bindings: ['uniform', 'read', 'read', 'read', 'read', 'write', 'write', 'write'],
    perMinibatch: true,
  };
}

/**
 * Records the env step's reward and flags at the step's rows. Bindings: the env's floats (the
 * reward block at `rewardBlock` · nEnvs) and words (terminated, truncated and reset-mask blocks),
 * then rewards, terminated, truncated, resetMask [rows] (written).
 */
export function recordKernel(blocks: {
  reward: number;
  terminated: number;
  truncated: number;
  resetMask: number;
}): KernelSpec {
  const code = /* wgsl */ `
struct Step { start: u32, rows: u32 };
@group(0) @binding(0) var<storage, read> envFloats: array<f32>;
@group(0) @binding(1) var<storage, read> envWords: array<u32>;
@group(0) @binding(2) var<storage, read_write> rewards: array<f32>;
@group(0) @binding(3) var<storage, read_write> terminated: array<u32>;
@group(0) @binding(4) var<storage, read_write> truncated: array<u32>;
@group(0) @binding(5) var<storage, read_write> resetMask: array<u32>;
@group(1) @binding(0) var<uniform> step: Step;

@compute @workgroup_size(${ROLLOUT_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let e = gid.x;
  let n = step.rows;
  if (e >= n) { return; }
  let row = step.start + e;
  rewards[row] = envFloats[${blocks.reward}u * n + e];
  terminated[row] = envWords[${blocks.terminated}u * n + e];
  truncated[row] = envWords[${blocks.truncated}u * n + e];
  resetMask[row] = envWords[${blocks.resetMask}u * n + e];
}
`;
  return {
    label: 'rollout record',
    code,
    bindings: ['read', 'read', 'write', 'write', 'write', 'write'],
    perMinibatch: true,
  };
}

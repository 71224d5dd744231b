import type { KernelSpec } from '../pipeline-cache.js';

/*
 * Generalized advantage estimation on the device, one invocation per env walking its steps back
 * from the last: agents/gae.ts's rules (a termination stops the chain with no future; a truncation
 * bootstraps from the next row's value and stops it; an autoreset step is left out with advantage
 * 0), over a time-major rollout (index t · nEnvs + e) as the env on the device writes it: rewards,
 * the critic's values, and the env's terminated, truncated and reset flags (u32, 0 or 1).
 *
 * The chain is summed in f32, where the CPU's is f64: on 256-step rollouts with γ 0.99, λ 0.95 the
 * two differ by at most 5.2e-7 of (1 + |advantage|) (src/agents/gae-gpu.test.ts).
 */

/** Threads per workgroup of the GAE kernel. */
export const GAE_WORKGROUP = 64;

/** The uniform: nEnvs, steps (u32), γ, λ (f32). */
export function gaeUniform(
  nEnvs: number,
  steps: number,
  gamma: number,
  lambda: number,
): ArrayBuffer {
  const buffer = new ArrayBuffer(16);
  new Uint32Array(buffer, 0, 2).set([nEnvs, steps]);
  new Float32Array(buffer, 8, 2).set([gamma, lambda]);
  return buffer;
}

/**
 * GAE over `steps` × nEnvs rows. Bindings: params (uniform), rewards, values, lastValues [nEnvs],
 * terminated, truncated, resetMask (u32), advantages, returns (written).
 */
export function gaeKernel(): KernelSpec {
  const code = /* wgsl */ `
struct Params { n: u32, steps: u32, gamma: f32, lambda: f32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> rewards: array<f32>;
@group(0) @binding(2) var<storage, read> values: array<f32>;
@group(0) @binding(3) var<storage, read> lastValues: array<f32>;
@group(0) @binding(4) var<storage, read> terminated: array<u32>;
@group(0) @binding(5) var<storage, read> truncated: array<u32>;
@group(0) @binding(6) var<storage, read> resetMask: array<u32>;
@group(0) @binding(7) var<storage, read_write> advantages: array<f32>;
@group(0) @binding(8) var<storage, read_write> returns: array<f32>;

@compute @workgroup_size(${GAE_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let e = gid.x;
  if (e >= p.n) { return; }
  var next = 0.0;
  var nextValue = lastValues[e];
  for (var s = 0u; s < p.steps; s = s + 1u) {
    let t = p.steps - 1u - s;
    let i = t * p.n + e;
    let value = values[i];
    if (resetMask[i] == 1u) {
      advantages[i] = 0.0;
      returns[i] = value;
      next = 0.0;
      nextValue = value;
      continue;
    }
    var advantage: f32;
    if (terminated[i] == 1u) {
      advantage = rewards[i] - value;
    } else {
      let delta = rewards[i] + p.gamma * nextValue - value;
      advantage = select(delta + p.gamma * p.lambda * next, delta, truncated[i] == 1u);
    }
    advantages[i] = advantage;
    returns[i] = advantage + value;
    next = advantage;
    nextValue = value;
  }
}
`;
  return {
    label: 'gae',
    code,
    bindings: ['uniform', 'read', 'read', 'read', 'read', 'read', 'read', 'write', 'write'],
    perMinibatch: false,
  };
}

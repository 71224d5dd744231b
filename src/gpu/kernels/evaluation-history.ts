import type { KernelSpec } from '../pipeline-cache.js';
import { ROLLOUT_WORKGROUP } from './rollout.js';

/*
 * The record of an evaluation on the device: after each step, chosen per-env fields of the env's
 * state (its f32 and u32 blocks) copied into a history of every step, so the equity curves, fills
 * and episode ends of all test ranges come back in one read at the end. The step comes from
 * group 1 as in the rollout (start = t · nEnvs, rows = nEnvs); the history of step t is F float
 * blocks then W word blocks of nEnvs values each.
 */

/**
 * Copies `floatBlocks` of the env's f32 fields and `wordBlocks` of its u32 fields into the
 * histories at the step's rows. Bindings: env floats, env words, float history
 * [steps × F × nEnvs], word history [steps × W × nEnvs].
 */
export function evaluationHistoryKernel(
  floatBlocks: readonly number[],
  wordBlocks: readonly number[],
): KernelSpec {
  const F = floatBlocks.length;
  const W = wordBlocks.length;
  const copies = [
    ...floatBlocks.map(
      (block, f) => `  floatHistory[t * ${F}u * n + ${f}u * n + e] = envFloats[${block}u * n + e];`,
    ),
    ...wordBlocks.map(
      (block, w) => `  wordHistory[t * ${W}u * n + ${w}u * n + e] = envWords[${block}u * n + e];`,
    ),
  ].join('\n');
  const code = /* wgsl */ `
struct Step { start: u32, rows: u32 };
@group(0) @binding(0) var<storage, read> envFloats: array<f32>;
@group(0) @binding(1) var<storage, read> envWords: array<u32>;
@group(0) @binding(2) var<storage, read_write> floatHistory: array<f32>;
@group(0) @binding(3) var<storage, read_write> wordHistory: array<u32>;
@group(1) @binding(0) var<uniform> step: Step;

@compute @workgroup_size(${ROLLOUT_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let e = gid.x;
  let n = step.rows;
  if (e >= n) { return; }
  let t = step.start / n;
${copies}
}
`;
  return {
    label: `evaluation history ${F}+${W}`,
    code,
    bindings: ['read', 'read', 'write', 'write'],
    perMinibatch: true,
  };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { Rng } from '../core/random.js';
import {
  dispatchOf,
  GAE_WORKGROUP,
  gaeKernel,
  gaeUniform,
  openGpuDevice,
  runDispatches,
  storageOf,
  uniformOf,
  type GpuDevice,
} from '../gpu/index.js';
import { computeGae } from './gae.js';

/*
 * GAE on the device (gpu/kernels/gae.ts) against agents/gae.ts on rollouts with every kind of
 * step: terminations, truncations, autoreset rows, long chains. On lavapipe in CI.
 */

const found = await gpuTestAdapter('src/agents/gae-gpu.test.ts');

describe.skipIf(!found)('GAE on the GPU', { timeout: 120_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  it('gives the CPU advantages and returns within 2e-6 of their size', async () => {
    const nEnvs = 37;
    const steps = 256;
    const size = nEnvs * steps;
    const rng = new Rng(4);
    const rewards = new Float32Array(size);
    const values = new Float32Array(size);
    const terminated = new Uint32Array(size);
    const truncated = new Uint32Array(size);
    const resetMask = new Uint32Array(size);
    for (let i = 0; i < size; i++) {
      rewards[i] = (rng.uniform() - 0.5) * 0.02;
      values[i] = rng.uniform() * 2 - 1;
    }
    // Episodes of random lengths per env: the step after an end is an autoreset row.
    for (let e = 0; e < nEnvs; e++) {
      let t = Math.floor(rng.uniform() * 40);
      while (t < steps) {
        const i = t * nEnvs + e;
        if (rng.uniform() < 0.3) terminated[i] = 1;
        else truncated[i] = 1;
        if (t + 1 < steps) {
          resetMask[i + nEnvs] = 1;
          rewards[i + nEnvs] = 0;
        }
        t += 2 + Math.floor(rng.uniform() * (e === 0 ? 300 : 80)); // env 0: one long chain
      }
    }
    const lastValues = Float32Array.from({ length: nEnvs }, () => rng.uniform());
    const gamma = 0.99;
    const lambda = 0.95;
    const want = computeGae({
      nEnvs,
      rewards,
      values,
      lastValues,
      terminations: Uint8Array.from(terminated),
      truncations: Uint8Array.from(truncated),
      valid: Uint8Array.from(resetMask, (r) => 1 - r),
      gamma,
      lambda,
    });

    const kernel = await gpu.pipelines.kernel(gaeKernel());
    const advantages = gpu.storageBuffer(size * 4, 'advantages');
    const returns = gpu.storageBuffer(size * 4, 'returns');
    const buffers = [
      uniformOf(gpu, new Uint32Array(gaeUniform(nEnvs, steps, gamma, lambda)), 'gae'),
      storageOf(gpu, rewards, 'rewards'),
      storageOf(gpu, values, 'values'),
      storageOf(gpu, lastValues, 'last values'),
      storageOf(gpu, terminated, 'terminated'),
      storageOf(gpu, truncated, 'truncated'),
      storageOf(gpu, resetMask, 'reset mask'),
      advantages,
      returns,
    ];
    runDispatches(gpu, [dispatchOf(gpu, kernel, buffers, [Math.ceil(nEnvs / GAE_WORKGROUP)])]);
    const gotAdvantages = await gpu.readFloats(advantages, 0, size);
    const gotReturns = await gpu.readFloats(returns, 0, size);
    let worst = 0;
    for (let i = 0; i < size; i++) {
      const a = want.advantages[i] as number;
      worst = Math.max(worst, Math.abs((gotAdvantages[i] as number) - a) / (1 + Math.abs(a)));
      expect(Math.abs((gotReturns[i] as number) - (want.returns[i] as number))).toBeLessThan(1e-5);
      if (resetMask[i] === 1) expect(gotAdvantages[i]).toBe(0);
    }
    // f32 chains against f64 ones: 5.2e-7 of (1 + |A|) measured on lavapipe.
    expect(worst).toBeLessThan(2e-6);
    // The rollout had every kind of step.
    expect(terminated.some((v) => v === 1) && truncated.some((v) => v === 1)).toBe(true);
    for (const b of buffers) b.destroy();
  });
});

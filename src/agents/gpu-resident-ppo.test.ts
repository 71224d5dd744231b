import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { useBackend } from '../compute/backends.js';
import { syntheticMarket, type TradingEnvOptions } from '../env/index.js';
import { openGpuDevice, type GpuDevice } from '../gpu/index.js';
import { flatParameters, ResidentPpo, type ResidentPpoConfig } from './gpu-resident-ppo.js';
import { createPpoNetworks, disposePpoNetworks } from './ppo-update.js';

/*
 * PPO with the whole trial on the device: it starts from the CPU trainer's networks, trains (its
 * parameters move, its statistics are finite), and a seed gives the same parameters bit for bit on
 * a rerun. On lavapipe in CI; tiny shapes (lavapipe is the CPU).
 */

const found = await gpuTestAdapter('src/agents/gpu-resident-ppo.test.ts');

describe.skipIf(!found)('PPO resident on the GPU', { timeout: 180_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  const data = syntheticMarket({ assets: 3, bars: 400, features: 2, seed: 6 });
  const envOptions: TradingEnvOptions = { lookback: 2, episodeLength: 20 };
  const config: ResidentPpoConfig = {
    nEnvs: 8,
    targetStep: 64,
    netDim: 16,
    batchSize: 32,
    repeatTimes: 2,
    learningRate: 3e-3,
    seed: 2,
  };

  async function train(seed: number, updates: number): Promise<Float32Array[]> {
    const ppo = await ResidentPpo.create(gpu, data, undefined, envOptions, { ...config, seed });
    try {
      const snapshots = [await ppo.program.readParameters()];
      for (let u = 0; u < updates; u++) {
        const report = await ppo.update();
        expect(report.envSteps).toBe(64);
        expect(report.rows).toBeGreaterThan(0);
        expect(report.rows).toBeLessThanOrEqual(64);
        for (const value of Object.values(report.stats)) expect(Number.isFinite(value)).toBe(true);
        snapshots.push(await ppo.program.readParameters());
      }
      return snapshots;
    } finally {
      ppo.destroy();
    }
  }

  it("starts from the CPU trainer's networks and trains", async () => {
    const [initial, first, second] = await train(2, 2);
    const nets = createPpoNetworks({ stateDim: 1 + 3 + 2 * 6, actionDim: 3, netDim: 16, seed: 2 });
    const ppo = await ResidentPpo.create(gpu, data, undefined, envOptions, config);
    try {
      expect(Array.from(initial ?? [])).toEqual(
        Array.from(flatParameters(nets, ppo.program.slots)),
      );
    } finally {
      ppo.destroy();
      disposePpoNetworks(nets);
    }
    expect(Array.from(first ?? [])).not.toEqual(Array.from(initial ?? []));
    expect(Array.from(second ?? [])).not.toEqual(Array.from(first ?? []));
  });

  it('gives a seed the same parameters on a rerun, and another seed others', async () => {
    const a = await train(5, 2);
    const b = await train(5, 2);
    const c = await train(6, 2);
    expect(Array.from(b[2] ?? [])).toEqual(Array.from(a[2] ?? []));
    expect(Array.from(c[2] ?? [])).not.toEqual(Array.from(a[2] ?? []));
  });
});

import { describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { useBackend } from '../compute/backends.js';
import { TradelabError } from '../core/index.js';
import { benchLearn } from './learn-bench.js';
import { benchPpo } from './ppo-bench.js';

const found = await gpuTestAdapter('src/bench/ppo-bench.test.ts');

describe('bench ppo', () => {
  it('measures whole updates and both phases, with the memory after', async () => {
    const results = await benchPpo({
      envs: [4],
      netDim: 16,
      targetStep: 128,
      batchSize: 64,
      repeatTimes: 1,
      updates: 2,
    });
    expect(results.map((r) => r.unit)).toEqual([
      'env steps/s',
      'env steps/s',
      'samples/s',
      'reads/s',
    ]);
    // One read per rollout step (128 / 4 envs), the bootstrap values, the log-std twice, the losses.
    expect(results[3]?.items).toBe(32 + 4);
    for (const r of results) {
      expect(r.rate).toBeGreaterThan(0);
      expect(r.runs).toHaveLength(2);
    }
    expect(results[0]?.name).toMatch(/nEnvs 4, netDim 16: rollout \d+%, update \d+%/);
    expect(results[0]?.memory?.tensors).toBeGreaterThan(0);
  });
});

describe('bench ppo, the trial resident on the GPU', () => {
  it('refuses resident rows without the GPU backend', async () => {
    await expect(
      benchPpo({ envs: [], residentEnvs: [8], netDim: 8, targetStep: 64, updates: 1 }),
    ).rejects.toBeInstanceOf(TradelabError);
  });

  it.skipIf(!found)(
    'adds a row per nEnvs of PPO with env, rollout and update on the device',
    { timeout: 120_000 },
    async () => {
      const backend = await useBackend('gpu');
      try {
        const results = await benchPpo({
          envs: [],
          residentEnvs: [16, 40],
          netDim: 8,
          targetStep: 64,
          batchSize: 32,
          repeatTimes: 1,
          updates: 2,
          backend,
        });
        expect(results.map((r) => r.name)).toEqual([
          'PPO training resident on the GPU (env, rollout, update), nEnvs 16, netDim 8, 8 steps a rollout',
          'PPO training resident on the GPU (env, rollout, update), nEnvs 40, netDim 8, 8 steps a rollout',
        ]);
        expect(results.map((r) => r.items)).toEqual([128, 320]);
        for (const r of results) expect(r.rate).toBeGreaterThan(0);
      } finally {
        await useBackend('wasm');
      }
    },
  );
});

describe('bench learn', () => {
  it('reports held-out Sharpe beside buy-and-hold for each signal and seed', async () => {
    const seen: number[] = [];
    const results = await benchLearn({
      signals: [0.2, 0],
      seeds: [1],
      steps: 2048,
      onResult: (_, done) => seen.push(done),
    });
    expect(results.map((r) => [r.signal, r.seed])).toEqual([
      [0.2, 1],
      [0, 1],
    ]);
    expect(seen).toEqual([1, 2]);
    for (const r of results) {
      expect(Number.isFinite(r.sharpe)).toBe(true);
      expect(Number.isFinite(r.benchmarkSharpe)).toBe(true);
    }
  });

  it("trains with the PPO settings it is given over the check's own", async () => {
    const run = async (ppo?: { repeatTimes: number }): Promise<number> => {
      const options = { signals: [0.2], seeds: [1], steps: 4096 };
      const [result] = await benchLearn(ppo === undefined ? options : { ...options, ppo });
      return result?.sharpe ?? Number.NaN;
    };
    const own = await run();
    expect(await run()).toBe(own);
    expect(await run({ repeatTimes: 1 })).not.toBe(own);
  });
});

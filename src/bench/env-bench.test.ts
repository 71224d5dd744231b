import { describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { benchEnv } from './env-bench.js';

const found = await gpuTestAdapter('src/bench/env-bench.test.ts');

describe('benchEnv', () => {
  it('reports one figure per nEnvs, with the issue target where there is one', async () => {
    const results = await benchEnv({
      envs: [1, 4],
      steps: 400,
      repeat: 1,
      bars: 200,
      gpu: 'never',
    });
    expect(results.map((r) => [r.bench, r.unit, r.items, r.target])).toEqual([
      ['env', 'steps/s', 400, 1_000_000],
      ['env', 'steps/s', 400, undefined],
    ]);
    expect(results.every((r) => r.rate > 0 && r.runs.length === 1)).toBe(true);
  });

  it.skipIf(!found)(
    'adds a row per nEnvs of the env on the GPU',
    { timeout: 120_000 },
    async () => {
      const results = await benchEnv({
        envs: [2],
        steps: 2000,
        repeat: 1,
        bars: 300,
        gpu: 'always',
        gpuEnvs: [64, 100],
      });
      expect(results.map((r) => r.name.startsWith('GPU step'))).toEqual([false, true, true]);
      // At least 20 vector steps a run, every env stepped in each.
      expect(results.slice(1).map((r) => r.items)).toEqual([64 * 31, 100 * 20]);
      expect(results.every((r) => r.rate > 0 && r.unit === 'steps/s')).toBe(true);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { benchEnv } from './env-bench.js';

describe('benchEnv', () => {
  it('reports one figure per nEnvs, with the issue target where there is one', async () => {
    const results = await benchEnv({ envs: [1, 4], steps: 400, repeat: 1, bars: 200 });
    expect(results.map((r) => [r.bench, r.unit, r.items, r.target])).toEqual([
      ['env', 'steps/s', 400, 1_000_000],
      ['env', 'steps/s', 400, undefined],
    ]);
    expect(results.every((r) => r.rate > 0 && r.runs.length === 1)).toBe(true);
  });
});

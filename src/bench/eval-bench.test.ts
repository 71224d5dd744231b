import { describe, expect, it } from 'vitest';
import { benchEval } from './eval-bench.js';

describe('benchEval', () => {
  it('evaluates every range to its end, one row per netDim and range count', async () => {
    const results = await benchEval({
      netDims: [16],
      ranges: [1, 3],
      bars: 150,
      assets: 2,
      repeat: 1,
    });
    expect(results.map((r) => r.name.replace(/ \(obs .*$/, ''))).toEqual([
      'evaluation, netDim 16, 1 range of 150 bars',
      'evaluation, netDim 16, 3 ranges of 150 bars',
    ]);
    // Each range is stepped from its first bar to its last: 149 forward passes, 149 env steps each.
    expect(results.map((r) => r.items)).toEqual([149, 3 * 149]);
    for (const r of results) {
      expect(r.unit).toBe('env steps/s');
      expect(r.rate).toBeGreaterThan(0);
      expect(r.name).toMatch(/149 forward passes$/);
    }
  });
});

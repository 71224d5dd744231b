import { describe, expect, it } from 'vitest';
import { benchTune } from './tune-bench.js';

describe('benchTune', () => {
  it('reports trials/s per storage and TPE suggestions/s, with the issue targets', async () => {
    const results = await benchTune({ trials: 15, processes: [2], history: [1000], repeat: 1 });
    expect(results.map((r) => [r.unit, r.target])).toEqual([
      ['trials/s', 2860],
      ['trials/s', 430],
      ['trials/s', 510],
      ['trials/s', undefined],
      ['suggestions/s', 1250],
    ]);
    expect(results[2]?.name).toContain('(0 failed)');
    expect(results.every((r) => r.rate > 0 && r.runs.length === 1)).toBe(true);
  }, 60_000);
});

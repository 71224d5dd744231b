import { describe, expect, it } from 'vitest';
import { jobProgressOf, progressRecord } from './progress-record.js';

describe('progressRecord', () => {
  it('gives the percentage, rate and time left of a known total', () => {
    expect(progressRecord(12, 48, 'trials', 60, '25% (12/48 trials)')).toEqual({
      type: 'progress',
      percent: 25,
      done: 12,
      total: 48,
      unit: 'trials',
      perSecond: 0.2,
      etaS: 180,
      text: '25% (12/48 trials)',
    });
  });

  it('leaves what cannot be said null: no total, nothing done yet', () => {
    expect(progressRecord(5, null, 'MB', 2, '5 MB')).toMatchObject({
      percent: null,
      total: null,
      perSecond: 2.5,
      etaS: null,
    });
    expect(progressRecord(0, 10, 'steps', 0, '0%')).toMatchObject({
      percent: 0,
      perSecond: null,
      etaS: null,
    });
    expect(progressRecord(3, Infinity, 'trials', 1, '3 trials').total).toBeNull();
  });
});

describe('jobProgressOf', () => {
  it('reads a progress record as a job progress', () => {
    const record: unknown = JSON.parse(
      JSON.stringify(progressRecord(1, 4, 'steps', 1, '25% (1/4 steps)')),
    );
    expect(jobProgressOf(record, 7)).toEqual({ percent: 25, text: '25% (1/4 steps)', at: 7 });
  });

  it('ignores every other record, and clamps a percentage out of range', () => {
    expect(jobProgressOf({ type: 'trial', number: 1 }, 1)).toBeUndefined();
    expect(jobProgressOf(null, 1)).toBeUndefined();
    expect(jobProgressOf('progress: 5%', 1)).toBeUndefined();
    expect(jobProgressOf({ type: 'progress', percent: 140, text: 'x' }, 1)?.percent).toBe(100);
    expect(jobProgressOf({ type: 'progress', percent: 'lots', text: 'x' }, 1)?.percent).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { trialRecord, type TrialRecord } from '../storage/index.js';
import {
  countStates,
  csvField,
  csvLine,
  describeComponents,
  formatDuration,
  formatNumber,
  formatParams,
  formatRate,
  paramNames,
  summarizeStudy,
  trialDurationMs,
} from './study-summary.js';

const T0 = Date.UTC(2024, 0, 1);

/** A trial record created at T0, with defaults for what a test does not care about. */
function trial(fields: Partial<TrialRecord> & Pick<TrialRecord, 'number' | 'state'>): TrialRecord {
  return trialRecord({ createdAt: T0, ...fields });
}

/** A finished trial that ran from `startS` to `endS` seconds after T0. */
function ran(
  number: number,
  state: 'complete' | 'pruned' | 'fail',
  startS: number,
  endS: number,
  value: number | null = null,
): TrialRecord {
  return trial({
    number,
    state,
    value,
    startedAt: T0 + startS * 1000,
    finishedAt: T0 + endS * 1000,
    ...(state === 'fail' ? { failReason: 'boom' } : {}),
  });
}

describe('summarizeStudy', () => {
  const trials = [
    ran(0, 'complete', 0, 60, 3),
    ran(1, 'complete', 10, 130, 1),
    ran(2, 'pruned', 60, 90, 5),
    ran(3, 'fail', 130, 160),
    ran(4, 'complete', 160, 3600, 1), // ties trial 1: the earlier one is best
    trial({ number: 5, state: 'running', startedAt: T0 + 3000 * 1000, heartbeatAt: T0 }),
    trial({ number: 6, state: 'waiting', retryOf: 3 }),
  ];

  it('counts trials by state', () => {
    expect(countStates(trials)).toEqual({
      waiting: 1,
      running: 1,
      complete: 3,
      pruned: 1,
      fail: 1,
    });
    const summary = summarizeStudy('minimize', trials);
    expect(summary.total).toBe(7);
    expect(summary.finished).toBe(5);
  });

  it('picks the best complete trial for the direction, the earliest among equals', () => {
    expect(summarizeStudy('minimize', trials).best?.number).toBe(1);
    // The pruned trial's 5 is not a result: the best maximum is the complete 3.
    expect(summarizeStudy('maximize', trials).best?.number).toBe(0);
  });

  it('gives completion and prune rates over finished trials', () => {
    const summary = summarizeStudy('minimize', trials);
    expect(summary.completionRate).toBeCloseTo(3 / 5, 12);
    expect(summary.pruneRate).toBeCloseTo(1 / 5, 12);
  });

  it('gives the mean duration of finished trials', () => {
    // 60 + 120 + 30 + 30 + 3440 s over 5 trials; the running one does not count.
    expect(summarizeStudy('minimize', trials).meanDurationMs).toBeCloseTo(736_000, 6);
  });

  it('gives finished trials per hour of wall time from the first start to the last finish', () => {
    const summary = summarizeStudy('minimize', trials);
    expect(summary.firstStartedAt).toBe(T0);
    expect(summary.lastFinishedAt).toBe(T0 + 3600 * 1000);
    expect(summary.trialsPerHour).toBeCloseTo(5, 12);
    // Two workers side by side: 2 trials in the 30 minutes they overlap make 4 per hour.
    const parallel = [ran(0, 'complete', 0, 1800, 1), ran(1, 'complete', 0, 1800, 2)];
    expect(summarizeStudy('minimize', parallel).trialsPerHour).toBeCloseTo(4, 12);
  });

  it('leaves what cannot be computed null for a study without finished trials', () => {
    const summary = summarizeStudy('maximize', [trial({ number: 0, state: 'waiting' })]);
    expect(summary).toMatchObject({
      total: 1,
      finished: 0,
      best: undefined,
      completionRate: null,
      pruneRate: null,
      meanDurationMs: null,
      firstStartedAt: null,
      lastFinishedAt: null,
      trialsPerHour: null,
    });
    expect(summarizeStudy('maximize', []).total).toBe(0);
  });

  it('has no throughput when no time passed between the first start and the last finish', () => {
    expect(summarizeStudy('minimize', [ran(0, 'complete', 5, 5, 1)]).trialsPerHour).toBeNull();
  });
});

describe('trialDurationMs', () => {
  it('is finish minus start, null unless both are known', () => {
    expect(trialDurationMs(ran(0, 'complete', 1, 3.5, 0))).toBe(2500);
    expect(trialDurationMs(trial({ number: 0, state: 'running', startedAt: T0 }))).toBeNull();
    expect(trialDurationMs(trial({ number: 0, state: 'waiting' }))).toBeNull();
  });
});

describe('describeComponents', () => {
  it('describes the stored sampler and pruner specs', () => {
    const described = describeComponents({
      sampler: { type: 'random', seed: 7 },
      pruner: { type: 'nop' },
    });
    expect(described.sampler).toBe('random (seed 7)');
    expect(described.pruner).toMatch(/nop|none/i);
  });

  it('describes the defaults (tpe, median) when a study stores no specs', () => {
    const described = describeComponents({});
    expect(described.sampler).toMatch(/^tpe/);
    expect(described.pruner).toMatch(/^median/);
  });

  it('says a spec is unreadable instead of failing', () => {
    const described = describeComponents({ sampler: { type: 'cmaes' } });
    expect(described.sampler).toMatch(/^unreadable spec \(unknown sampler type "cmaes"/);
  });
});

describe('formats', () => {
  it('formats numbers to significant digits', () => {
    expect(formatNumber(null)).toBe('-');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(1 / 3)).toBe('0.333333');
    expect(formatNumber(1234.56789, 3)).toBe('1230');
    expect(formatNumber(0.0000123456)).toBe('1.23456e-5');
    expect(formatNumber(2e-6, 3)).toBe('2e-6');
    expect(formatNumber(-Infinity)).toBe('-Infinity');
  });

  it('formats params, rates and durations', () => {
    expect(formatParams({ lr: 0.000123456789, layers: 3, act: 'relu', norm: true })).toBe(
      'lr=0.000123457, layers=3, act=relu, norm=true',
    );
    expect(formatParams({})).toBe('(none)');
    expect(formatRate(null)).toBe('-');
    expect(formatRate(2 / 3)).toBe('66.7%');
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(61_250)).toBe('61.3 s');
    expect(formatDuration(3 * 3_600_000)).toBe('3 h');
  });

  it('lists parameter names in the order they first appear', () => {
    const trials = [
      trial({ number: 0, state: 'complete', params: { lr: 0.1, gamma: 0.99 } }),
      trial({ number: 1, state: 'complete', params: { gamma: 0.9, layers: 2 } }),
    ];
    expect(paramNames(trials)).toEqual(['lr', 'gamma', 'layers']);
  });
});

describe('CSV', () => {
  it('quotes fields with commas, quotes or line breaks, doubling quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvLine(['1', 'a,b', '', 'x'])).toBe('1,"a,b",,x');
  });
});

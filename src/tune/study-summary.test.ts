import { describe, expect, it } from 'vitest';
import { trialRecord, type TrialRecord } from '../storage/index.js';
import { combineSummaries, countStates, summarizeStudy, trialDurationMs } from './study-summary.js';

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
    expect(summary.states.fail).toBe(1);
    // Trial 3 failed and was enqueued again as trial 6: it is retried, not failed, not done.
    expect(summary).toMatchObject({ failed: 0, retried: 1, done: 4, complete: 3, pruned: 1 });
  });

  it('picks the best complete trial for the direction, the earliest among equals', () => {
    expect(summarizeStudy('minimize', trials).best?.number).toBe(1);
    // The pruned trial's 5 is not a result: the best maximum is the complete 3.
    expect(summarizeStudy('maximize', trials).best?.number).toBe(0);
  });

  it('gives completion and prune rates over the trials done', () => {
    const summary = summarizeStudy('minimize', trials);
    expect(summary.completionRate).toBeCloseTo(3 / 4, 12);
    expect(summary.pruneRate).toBeCloseTo(1 / 4, 12);
  });

  it('gives the mean duration of the trials that ended, the retried failure included', () => {
    // 60 + 120 + 30 + 30 + 3440 s over 5 trials: a worker spent the failed one's time too.
    expect(summarizeStudy('minimize', trials).meanDurationMs).toBeCloseTo(736_000, 6);
  });

  it('gives trials done per hour of wall time from the first start to the last end', () => {
    const summary = summarizeStudy('minimize', trials);
    expect(summary.firstStart).toBe(T0);
    expect(summary.lastEnd).toBe(T0 + 3600 * 1000);
    expect(summary.perHour).toBeCloseTo(4, 12);
    // Two workers side by side: 2 trials in the 30 minutes they overlap make 4 per hour.
    const parallel = [ran(0, 'complete', 0, 1800, 1), ran(1, 'complete', 0, 1800, 2)];
    expect(summarizeStudy('minimize', parallel).perHour).toBeCloseTo(4, 12);
  });

  it('leaves what cannot be computed null for a study without a trial done', () => {
    const summary = summarizeStudy('maximize', [trial({ number: 0, state: 'waiting' })]);
    expect(summary).toMatchObject({
      total: 1,
      done: 0,
      best: undefined,
      completionRate: null,
      pruneRate: null,
      meanDurationMs: null,
      firstStart: null,
      lastEnd: null,
      perHour: null,
    });
    expect(summarizeStudy('maximize', []).total).toBe(0);
  });

  it('has no throughput when no time passed between the first start and the last finish', () => {
    expect(summarizeStudy('minimize', [ran(0, 'complete', 5, 5, 1)]).perHour).toBeNull();
  });
});

describe('trialDurationMs', () => {
  it('is finish minus start, null unless both are known', () => {
    expect(trialDurationMs(ran(0, 'complete', 1, 3.5, 0))).toBe(2500);
    expect(trialDurationMs(trial({ number: 0, state: 'running', startedAt: T0 }))).toBeNull();
    expect(trialDurationMs(trial({ number: 0, state: 'waiting' }))).toBeNull();
  });
});

describe('retried failures', () => {
  it('counts a failure as failed until a retry of it exists, then as retried', () => {
    const lost = ran(0, 'fail', 0, 60);
    expect(summarizeStudy('maximize', [lost])).toMatchObject({ failed: 1, retried: 0, done: 1 });
    const retry = trial({
      number: 1,
      state: 'complete',
      value: 2,
      retryOf: 0,
      startedAt: T0 + 60_000,
      finishedAt: T0 + 120_000,
    });
    expect(summarizeStudy('maximize', [lost, retry])).toMatchObject({
      total: 2,
      failed: 0,
      retried: 1,
      complete: 1,
      done: 1,
      completionRate: 1,
    });
  });
});

describe('combineSummaries', () => {
  it('is the summary of all the trials together, whatever study holds them', () => {
    const a = [
      ran(0, 'complete', 0, 600, 1),
      ran(1, 'fail', 600, 700),
      trial({ number: 2, state: 'waiting', retryOf: 1 }),
    ];
    const b = [
      ran(0, 'pruned', 300, 1200, 0.5),
      ran(1, 'complete', 1200, 3600, 3),
      ran(2, 'fail', 100, 200),
    ];
    const combined = combineSummaries(
      [summarizeStudy('maximize', a), summarizeStudy('maximize', b)],
      'maximize',
    );
    const { best, ...rest } = combined;
    // One study of the same trials, with b's renumbered so the retry link stays a's.
    const together = summarizeStudy('maximize', [
      ...a,
      ...b.map((t) => ({ ...t, number: t.number + 10 })),
    ]);
    const { best: togetherBest, ...togetherRest } = together;
    expect(rest.meanDurationMs).toBeCloseTo(togetherRest.meanDurationMs ?? Number.NaN, 6);
    expect({ ...rest, meanDurationMs: 0 }).toEqual({ ...togetherRest, meanDurationMs: 0 });
    expect(best?.value).toBe(3);
    expect(togetherBest?.value).toBe(3);
    expect(combined).toMatchObject({ done: 4, failed: 1, retried: 1, waiting: 1 });
  });

  it('of nothing is the summary of no trials', () => {
    expect(combineSummaries([], 'maximize')).toEqual(summarizeStudy('maximize', []));
  });
});

import { describe, expect, it } from 'vitest';
import { describeRunProgress, runWorkDone } from './study-run-progress.js';

const state = {
  nTrials: 4,
  finished: 1,
  complete: 1,
  pruned: 0,
  failed: 0,
  best: 0.52,
  running: [
    { number: 1, fraction: 0.5, detail: 'split 2/3: 256/512 env steps, 1,234 env steps/s' },
    { number: 2, fraction: 0, detail: '' },
  ],
};

describe('runWorkDone', () => {
  it('counts finished trials and the fractions of running ones', () => {
    expect(runWorkDone(state)).toBe(1.5);
  });
});

describe('describeRunProgress', () => {
  it('gives the work done in trials, a rate and an ETA from it, and what each running trial does', () => {
    // 1.5 of 4 trials' work in 90 s: 60 s a trial, 2.5 trials left on that pace.
    expect(describeRunProgress(state, 90)).toBe(
      '1.5/4 trials done (38%): 1 complete, 0 pruned, 0 failed, best 0.52; 1 min 00 s/trial, ETA 2 min 30 s; running: trial 1 (split 2/3: 256/512 env steps, 1,234 env steps/s), trial 2 (starting)',
    );
  });

  it('has a rate and an ETA before any trial ends, and says when it cannot know yet', () => {
    const first = { ...state, finished: 0, complete: 0, best: null };
    expect(describeRunProgress(first, 30)).toContain(
      '0.5/4 trials done (13%): 0 complete, 0 pruned, 0 failed, best -; 1 min 00 s/trial, ETA 3 min 30 s;',
    );
    const nothing = { ...first, running: [{ number: 0, fraction: 0, detail: '' }] };
    expect(describeRunProgress(nothing, 5)).toBe(
      '0/4 trials done (0%): 0 complete, 0 pruned, 0 failed, best -; ? s/trial, ETA ?; running: trial 0 (starting)',
    );
  });

  it('gives no ETA without a trial count (a run bounded by --timeout)', () => {
    const open = { ...state, nTrials: undefined, running: [] };
    expect(describeRunProgress(open, 120)).toBe(
      '1 trial done: 1 complete, 0 pruned, 0 failed, best 0.52; 2 min 00 s/trial',
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  trialRecord,
  type StudyDirection,
  type TrialRecord,
  type TrialState,
} from '../../storage/records.js';
import type { PrunerContext } from '../pruner.js';
import { MedianPruner } from './median-pruner.js';
import { PercentilePruner, nanPercentile } from './percentile-pruner.js';

const TAU = 10;

/** Trial `number` with these reports, its timestamps at ms `number` as far as its state goes. */
function record(
  number: number,
  state: TrialState,
  intermediate: Record<number, number>,
): TrialRecord {
  return trialRecord({ number, state, intermediate, createdAt: number });
}

/** A learning curve a·(1 − e^(−step/τ)) over steps 0..last, negated for a loss. */
function curve(a: number, last: number, sign = 1, tau = TAU): Record<number, number> {
  const values: Record<number, number> = {};
  for (let step = 0; step <= last; step++) values[step] = sign * a * (1 - Math.exp(-step / tau));
  return values;
}

/** 10 complete trials with a = 0.5, 0.6, …, 1.4 over 50 steps. */
function completed(sign = 1, count = 10): TrialRecord[] {
  return Array.from({ length: count }, (_, k) =>
    record(k, 'complete', curve(0.5 + 0.1 * k, 50, sign)),
  );
}

function ask(
  trials: TrialRecord[],
  intermediate: Record<number, number>,
  direction: StudyDirection = 'maximize',
): PrunerContext {
  const steps = Object.keys(intermediate).map(Number);
  return {
    direction,
    trials,
    trial: record(trials.length, 'running', intermediate),
    step: Math.max(...steps),
  };
}

describe('nanPercentile', () => {
  it('interpolates linearly between sorted values, as numpy does', () => {
    expect(nanPercentile([4, 1, 3, 2], 25)).toBeCloseTo(1.75, 12);
    expect(nanPercentile([4, 1, 3, 2], 50)).toBeCloseTo(2.5, 12);
    expect(nanPercentile([4, 1, 3, 2], 100)).toBe(4);
    expect(nanPercentile([4, 1, 3, 2], 0)).toBe(1);
  });
  it('ignores NaN, and is NaN when nothing is left', () => {
    expect(nanPercentile([NaN, 1, 3, NaN], 50)).toBeCloseTo(2, 12);
    expect(nanPercentile([NaN, NaN], 50)).toBeNaN();
  });
});

describe('MedianPruner', () => {
  it('prunes a curve below the median at the step and keeps one above it', () => {
    const pruner = new MedianPruner();
    expect(pruner.shouldPrune(ask(completed(), curve(0.7, 20)))).toBe(true);
    expect(pruner.shouldPrune(ask(completed(), curve(1.2, 20)))).toBe(false);
    // The median of a is 0.95: just under and just over it.
    expect(pruner.shouldPrune(ask(completed(), curve(0.94, 20)))).toBe(true);
    expect(pruner.shouldPrune(ask(completed(), curve(0.96, 20)))).toBe(false);
  });

  it('mirrors for minimize: the same curves as losses give the same decisions', () => {
    const pruner = new MedianPruner();
    for (const a of [0.55, 0.7, 0.94, 0.96, 1.2, 1.35]) {
      for (const step of [1, 5, 20, 50]) {
        const maximize = pruner.shouldPrune(ask(completed(), curve(a, step), 'maximize'));
        const minimize = pruner.shouldPrune(ask(completed(-1), curve(a, step, -1), 'minimize'));
        expect(minimize).toBe(maximize);
        expect(maximize).toBe(a < 0.95);
      }
    }
  });

  it('does not prune before nStartupTrials trials are complete; other states do not count', () => {
    const pruner = new MedianPruner({ nStartupTrials: 5 });
    const four = completed().slice(0, 4);
    const others = [
      record(4, 'running', curve(1.4, 20)),
      record(5, 'pruned', curve(1.4, 20)),
      record(6, 'fail', curve(1.4, 20)),
    ];
    expect(pruner.shouldPrune(ask([...four, ...others], curve(0.5, 20)))).toBe(false);
    const five = completed().slice(0, 5);
    expect(pruner.shouldPrune(ask(five, curve(0.5, 20)))).toBe(true);
    expect(new MedianPruner({ nStartupTrials: 0 }).shouldPrune(ask([], curve(0.5, 20)))).toBe(
      false,
    );
  });

  it('does not prune within the warm-up steps', () => {
    const pruner = new MedianPruner({ nWarmupSteps: 10 });
    expect(pruner.shouldPrune(ask(completed(), curve(0.5, 9)))).toBe(false);
    expect(pruner.shouldPrune(ask(completed(), curve(0.5, 10)))).toBe(true);
  });

  it('judges only the first report of each interval, counted from the warm-up', () => {
    const pruner = new MedianPruner({ nWarmupSteps: 2, intervalSteps: 5 });
    const judged = [];
    for (let step = 0; step <= 17; step++) {
      if (pruner.shouldPrune(ask(completed(), curve(0.5, step)))) judged.push(step);
    }
    expect(judged).toEqual([2, 7, 12, 17]);
    // A trial that skipped step 7 is judged at its next report instead.
    const skipped = curve(0.5, 8);
    delete skipped[7];
    expect(pruner.shouldPrune(ask(completed(), skipped))).toBe(true);
    const nextAfterSkip = curve(0.5, 9);
    delete nextAfterSkip[7];
    expect(pruner.shouldPrune(ask(completed(), nextAfterSkip))).toBe(false);
  });

  it('compares the best value reported so far, not the latest', () => {
    const pruner = new MedianPruner();
    const peakedEarly = { ...curve(0.5, 20), 5: 10 };
    expect(pruner.shouldPrune(ask(completed(), peakedEarly))).toBe(false);
    const dippedEarly = { ...curve(1.2, 20, -1), 5: -10 };
    expect(pruner.shouldPrune(ask(completed(-1), dippedEarly, 'minimize'))).toBe(false);
  });

  it('needs nMinTrials complete trials that reported the step', () => {
    const trials = [
      ...completed()
        .slice(0, 8)
        .map((t) => ({ ...t, intermediate: curve(1, 10) })),
      record(8, 'complete', curve(1.3, 40)),
      record(9, 'complete', curve(1.4, 40)),
    ];
    expect(new MedianPruner({ nMinTrials: 3 }).shouldPrune(ask(trials, curve(0.5, 30)))).toBe(
      false,
    );
    expect(new MedianPruner({ nMinTrials: 2 }).shouldPrune(ask(trials, curve(0.5, 30)))).toBe(true);
    // No complete trial reported the step at all: nothing to judge against.
    expect(new MedianPruner().shouldPrune(ask(trials, curve(0.5, 45)))).toBe(false);
  });

  it('prunes a trial whose values are all NaN and ignores NaN in complete trials', () => {
    const pruner = new MedianPruner();
    expect(pruner.shouldPrune(ask(completed(), { 0: NaN, 1: NaN, 2: NaN }))).toBe(true);
    expect(pruner.shouldPrune(ask(completed(), { ...curve(1.2, 20), 20: NaN }))).toBe(false);
    // Complete trials with a ≤ 0.9 reported NaN at step 20: the median is then over 1.0–1.4.
    const trials = completed().map((t, k) =>
      k < 5 ? { ...t, intermediate: { ...t.intermediate, 20: NaN } } : t,
    );
    expect(pruner.shouldPrune(ask(trials, curve(1.1, 20)))).toBe(true);
    expect(pruner.shouldPrune(ask(trials, curve(1.25, 20)))).toBe(false);
    const allNaN = completed().map((t) => ({ ...t, intermediate: { ...t.intermediate, 20: NaN } }));
    expect(pruner.shouldPrune(ask(allNaN, curve(0.5, 20)))).toBe(false);
  });

  it('describes its rules', () => {
    expect(new MedianPruner().description).toBe(
      'median (5 startup trials, 0 warm-up steps, interval 1, min 1 trials per step)',
    );
  });
});

describe('PercentilePruner', () => {
  it('keeps the top 25% with 25 and the top 75% with 75', () => {
    // At a fixed step the values are proportional to a ∈ {0.5, …, 1.4}: the top-25% threshold is
    // a = 1.175 and the top-75% one a = 0.725.
    const keep25 = new PercentilePruner(25);
    const keep75 = new PercentilePruner(75);
    expect(keep25.shouldPrune(ask(completed(), curve(1.0, 20)))).toBe(true);
    expect(keep75.shouldPrune(ask(completed(), curve(1.0, 20)))).toBe(false);
    expect(keep25.shouldPrune(ask(completed(), curve(1.2, 20)))).toBe(false);
    expect(keep75.shouldPrune(ask(completed(), curve(0.7, 20)))).toBe(true);
    // The same for minimize, on losses.
    const loss = (a: number) => ask(completed(-1), curve(a, 20, -1), 'minimize');
    expect(keep25.shouldPrune(loss(1.0))).toBe(true);
    expect(keep75.shouldPrune(loss(1.0))).toBe(false);
    expect(keep25.shouldPrune(loss(1.2))).toBe(false);
    expect(keep75.shouldPrune(loss(0.7))).toBe(true);
  });

  it('never prunes a trial identical to the best complete trial (seeded property)', () => {
    let seed = 12345;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    for (let run = 0; run < 300; run++) {
      const direction: StudyDirection = random() < 0.5 ? 'maximize' : 'minimize';
      const sign = direction === 'maximize' ? 1 : -1;
      // One τ per study: the curves do not cross, so the best trial is best at every step.
      const tau = 1 + random() * 30;
      const amplitudes = Array.from({ length: 3 + Math.floor(random() * 12) }, () => random() * 2);
      const bestIndex = amplitudes.indexOf(Math.max(...amplitudes));
      const trials = amplitudes.map((a, k) => {
        const values = curve(a, 30, sign, tau);
        // NaN reports in the other trials are ignored by the percentile.
        if (k !== bestIndex) for (let s = 0; s <= 30; s++) if (random() < 0.1) values[s] = NaN;
        return record(k, 'complete', values);
      });
      const step = Math.floor(random() * 31);
      const pruner = new PercentilePruner(random() * 100, { nStartupTrials: 0 });
      const context = ask(trials, curve(amplitudes[bestIndex] ?? 0, step, sign, tau), direction);
      expect(pruner.shouldPrune(context)).toBe(false);
    }
  });

  it('rejects options out of range with INVALID_ARGUMENT', () => {
    expect(() => new PercentilePruner(101)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => new PercentilePruner(NaN)).toThrow(/between 0 and 100/);
    expect(() => new PercentilePruner(50, { intervalSteps: 0 })).toThrow(/intervalSteps/);
    expect(() => new PercentilePruner(50, { nStartupTrials: -1 })).toThrow(/nStartupTrials/);
    expect(() => new PercentilePruner(50, { nWarmupSteps: 1.5 })).toThrow(/nWarmupSteps/);
    expect(() => new PercentilePruner(50, { nMinTrials: 0 })).toThrow(/nMinTrials/);
  });
});

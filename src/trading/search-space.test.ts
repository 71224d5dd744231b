import { describe, expect, it } from 'vitest';
import { trialBudget } from './search-space.js';

describe('trialBudget', () => {
  it("says what a trial's breakStep comes to: scaled, then rounded up to whole updates", () => {
    // breakStep 110,000 scaled by 0.11 is 12,100 env steps, which whole updates of 1,024 round up
    // to 12,288: what each split really runs.
    const budget = trialBudget(
      { breakStep: { low: 50_000, high: 200_000 }, targetStep: 1024, nEnvs: 8 },
      { breakStep: 110_000 },
      0.11,
    );
    expect(budget).toEqual({
      breakStep: 110_000,
      budgetScale: 0.11,
      scaledBreakStep: 12_100,
      targetStep: 1024,
      updates: 12,
      stepsPerSplit: 12_288,
    });
  });

  it('takes fixed values from the study, defaults for the rest, and targetStep as a multiple of nEnvs', () => {
    expect(trialBudget({ breakStep: 512, targetStep: 256, nEnvs: 4 }, {}, 1)).toMatchObject({
      breakStep: 512,
      scaledBreakStep: 512,
      updates: 2,
      stepsPerSplit: 512,
    });
    // targetStep 1000 with 16 envs runs as 1008 (63 steps of each env); breakStep defaults to 200,000.
    expect(trialBudget({ targetStep: 1000 }, { nEnvs: 16 }, 1)).toMatchObject({
      breakStep: 200_000,
      targetStep: 1008,
      updates: 199,
      stepsPerSplit: 200_592,
    });
  });
});

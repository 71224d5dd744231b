import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { resolveEnvOptions } from '../env/env-config.js';
import { isTradelabError } from '../core/index.js';
import { holdout } from './cv-holdout.js';
import { walkForward } from './cv-walk-forward.js';

/** A uniform integer in [lo, hi]. */
function intIn(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng.uniform() * (hi - lo + 1));
}

describe('walkForward', () => {
  it('slides training and test windows forward by step, test after train and gap', () => {
    const result = walkForward({ bars: 20, train: 6, test: 3, gap: 1 });
    expect(result.splits).toEqual([
      { train: [[0, 6]], test: [[7, 10]] },
      { train: [[3, 9]], test: [[10, 13]] },
      { train: [[6, 12]], test: [[13, 16]] },
      { train: [[9, 15]], test: [[16, 19]] },
    ]);
  });

  it('trains from the start in every fold when anchored', () => {
    const result = walkForward({ bars: 20, train: 6, test: 4, step: 5, anchored: true });
    expect(result.splits).toEqual([
      { train: [[0, 6]], test: [[6, 10]] },
      { train: [[0, 11]], test: [[11, 15]] },
      { train: [[0, 16]], test: [[16, 20]] },
    ]);
  });

  it('orders the folds, keeps them inside the domain and fits as many as possible', () => {
    const rng = new Rng(5);
    for (let round = 0; round < 50; round++) {
      const bars = intIn(rng, 30, 600);
      const lookback = intIn(rng, 1, 10);
      const train = intIn(rng, 2, 100);
      const test = intIn(rng, 2, 50);
      const gap = intIn(rng, 0, 5);
      const step = intIn(rng, 1, 60);
      const anchored = rng.uniform() < 0.3;
      const { available } = holdout({ bars });
      const needed = train + gap + test;
      if (available[1] - (lookback - 1) < needed) continue;
      const result = walkForward({
        bars,
        within: available,
        train,
        test,
        step,
        gap,
        anchored,
        lookback,
      });
      const [first, end] = result.domain;
      expect(first).toBe(lookback - 1);
      expect(end).toBe(available[1]);
      expect(result.splits).toHaveLength(Math.floor((end - first - needed) / step) + 1);
      result.splits.forEach((split, i) => {
        const [trainRange] = split.train;
        const [testRange] = split.test;
        if (trainRange === undefined || testRange === undefined) throw new Error('empty fold');
        expect(trainRange[0]).toBe(anchored ? first : first + i * step);
        expect(trainRange[1]).toBe(first + i * step + train);
        expect(testRange[0]).toBe(trainRange[1] + gap);
        expect(testRange[1] - testRange[0]).toBe(test);
        expect(testRange[1]).toBeLessThanOrEqual(end);
        expect(() =>
          resolveEnvOptions({ lookback, ranges: [trainRange, testRange] }, bars, false),
        ).not.toThrow();
      });
      // One more fold would not fit.
      const last = result.splits.at(-1)?.test[0]?.[1] ?? 0;
      expect(last + step).toBeGreaterThan(end);
    }
  });

  it('rejects a fold that does not fit, and bad sizes, with INVALID_ARGUMENT', () => {
    const tooLong = (() => {
      try {
        walkForward({ bars: 20, train: 10, test: 8, gap: 3 });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isTradelabError(tooLong, 'INVALID_ARGUMENT')).toBe(true);
    expect((tooLong as Error).message).toMatch(
      /one fold needs train 10 \+ gap 3 \+ test 8 = 21 bars, but \[0, 20\) has 20/,
    );
    expect(() => walkForward({ bars: 20, train: 1, test: 3 })).toThrow(/train must be .* got 1/);
    expect(() => walkForward({ bars: 20, train: 5, test: 3, step: 0 })).toThrow(/step .* got 0/);
    expect(() => walkForward({ bars: 20, train: 5, test: 3, gap: -2 })).toThrow(/gap .* got -2/);
  });
});

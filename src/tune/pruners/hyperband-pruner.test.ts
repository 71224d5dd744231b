import { describe, expect, it } from 'vitest';
import { trialRecord, type TrialRecord, type TrialState } from '../../storage/records.js';
import { HyperbandPruner, hashTrialNumber } from './hyperband-pruner.js';

/** Trial `number` with these reports, its timestamps at ms `number` as far as its state goes. */
function record(
  number: number,
  state: TrialState,
  intermediate: Record<number, number>,
): TrialRecord {
  return trialRecord({ number, state, intermediate, createdAt: number });
}

function flat(value: number, last: number): Record<number, number> {
  const values: Record<number, number> = {};
  for (let step = 0; step <= last; step++) values[step] = value;
  return values;
}

/** The first `count` trial numbers at or after `from` that fall in `bracket`. */
function numbersIn(pruner: HyperbandPruner, bracket: number, count: number, from = 0): number[] {
  const numbers: number[] = [];
  for (let n = from; numbers.length < count; n++) {
    if (pruner.bracketOf(n, []) === bracket) numbers.push(n);
  }
  return numbers;
}

describe('HyperbandPruner', () => {
  // r 1, R 27, η 3: four brackets whose first rungs are at steps 1, 3, 9 and 27.
  const hyperband = new HyperbandPruner({ minResource: 1, maxResource: 27, reductionFactor: 3 });

  it('has ⌊log_η(R/r)⌋ + 1 brackets, counted exactly', () => {
    expect(hyperband.bracketCount([])).toBe(4);
    expect(new HyperbandPruner({ maxResource: 1000, reductionFactor: 10 }).bracketCount([])).toBe(
      4,
    );
    expect(new HyperbandPruner({ maxResource: 26, reductionFactor: 3 }).bracketCount([])).toBe(3);
    expect(new HyperbandPruner({ maxResource: 1 }).bracketCount([])).toBe(1);
  });

  it('spreads trial numbers over the brackets in proportion to their budgets', () => {
    // Budgets ⌈4·3^s/(s+1)⌉ for s = 3, 2, 1, 0: 27, 12, 6, 4 of 49.
    const counts = [0, 0, 0, 0];
    for (let n = 0; n < 49_000; n++) {
      const bracket = hyperband.bracketOf(n, []) ?? -1;
      counts[bracket] = (counts[bracket] ?? 0) + 1;
    }
    [27, 12, 6, 4].forEach((budget, bracket) => {
      expect(Math.abs((counts[bracket] ?? 0) / 1000 - budget)).toBeLessThan(budget * 0.1);
    });
    expect(hashTrialNumber(0)).not.toBe(hashTrialNumber(1));
    expect(hashTrialNumber(7)).toBe(hashTrialNumber(7));
  });

  it('judges each bracket at its own rungs', () => {
    const [first0 = 0, ...others0] = numbersIn(hyperband, 0, 9);
    const [first1 = 0, ...others1] = numbersIn(hyperband, 1, 9);
    const good0 = others0.map((n) => record(n, 'complete', flat(10, 27)));
    const good1 = others1.map((n) => record(n, 'complete', flat(10, 27)));
    const ask = (number: number, trials: TrialRecord[], last: number) =>
      hyperband.shouldPrune({
        direction: 'maximize',
        trials,
        trial: record(number, 'running', flat(0, last)),
        step: last,
      });
    // Bracket 0's first rung is at step 1; bracket 1's at step 3.
    expect(ask(first0, good0, 1)).toBe(true);
    expect(ask(first1, good1, 1)).toBe(false);
    expect(ask(first1, good1, 2)).toBe(false);
    expect(ask(first1, good1, 3)).toBe(true);
  });

  it('compares a trial only with the trials of its bracket', () => {
    const [number0 = 0] = numbersIn(hyperband, 0, 1);
    const strangers = numbersIn(hyperband, 1, 8).map((n) => record(n, 'complete', flat(10, 27)));
    const ask = (trials: TrialRecord[]) =>
      hyperband.shouldPrune({
        direction: 'maximize',
        trials,
        trial: record(number0, 'running', flat(0, 1)),
        step: 1,
      });
    // Alone in bracket 0 it is the best there: promoted, however good the other brackets are.
    expect(ask(strangers)).toBe(false);
    const rivals = numbersIn(hyperband, 0, 8, number0 + 1).map((n) =>
      record(n, 'complete', flat(10, 27)),
    );
    expect(ask([...strangers, ...rivals])).toBe(true);
  });

  it("waits for a complete trial to resolve maxResource 'auto'", () => {
    const auto = new HyperbandPruner({ reductionFactor: 3 });
    const running = [record(0, 'running', flat(10, 5))];
    expect(auto.bracketCount(running)).toBeUndefined();
    expect(
      auto.shouldPrune({
        direction: 'maximize',
        trials: running,
        trial: record(1, 'running', flat(0, 5)),
        step: 5,
      }),
    ).toBe(false);
    // The first complete trial reported steps 0–26: R = 27.
    expect(auto.bracketCount([...running, record(2, 'complete', flat(1, 26))])).toBe(4);
  });

  it('rejects options out of range with INVALID_ARGUMENT', () => {
    expect(() => new HyperbandPruner({ minResource: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => new HyperbandPruner({ minResource: 10, maxResource: 5 })).toThrow(/maxResource/);
    expect(() => new HyperbandPruner({ reductionFactor: 1 })).toThrow(/reductionFactor/);
    expect(() => new HyperbandPruner({ bootstrapCount: 1 })).toThrow(/maxResource/);
  });

  it('describes its settings', () => {
    expect(new HyperbandPruner().description).toBe(
      'hyperband (min resource 1, max resource auto, reduction factor 3)',
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  trialRecord,
  type StudyDirection,
  type TrialRecord,
  type TrialState,
} from '../../storage/records.js';
import { SuccessiveHalvingPruner } from './successive-halving-pruner.js';

/** Trial `number` with these reports, its timestamps at ms `number` as far as its state goes. */
function record(
  number: number,
  state: TrialState,
  intermediate: Record<number, number>,
): TrialRecord {
  return trialRecord({ number, state, intermediate, createdAt: number });
}

/** A constant value reported at every step from 0 to `last`. */
function flat(value: number, last: number): Record<number, number> {
  const values: Record<number, number> = {};
  for (let step = 0; step <= last; step++) values[step] = value;
  return values;
}

function shouldPrune(
  pruner: SuccessiveHalvingPruner,
  trials: TrialRecord[],
  intermediate: Record<number, number>,
  direction: StudyDirection = 'maximize',
): boolean {
  const step = Math.max(...Object.keys(intermediate).map(Number));
  const trial = record(100, 'running', intermediate);
  return pruner.shouldPrune({ direction, trials, trial, step });
}

describe('SuccessiveHalvingPruner', () => {
  // minResource 1, η 4: rungs at steps 1, 4, 16, 64.
  const asha = new SuccessiveHalvingPruner({ minResource: 1, reductionFactor: 4 });

  it('promotes the top 1/η of the trials at a rung and prunes the rest', () => {
    // 16 trials with distinct values at rung 0, each judged as if it arrived last.
    const values = [3, 14, 7, 1, 12, 5, 16, 9, 2, 11, 15, 4, 8, 13, 6, 10];
    for (const direction of ['maximize', 'minimize'] as const) {
      const promoted = values.filter((value, i) => {
        const others = values
          .filter((_, j) => j !== i)
          .map((v, j) => record(j, 'running', flat(v, 1)));
        return !shouldPrune(asha, others, flat(value, 1), direction);
      });
      expect(promoted.sort((a, b) => a - b)).toEqual(
        direction === 'maximize' ? [13, 14, 15, 16] : [1, 2, 3, 4],
      );
    }
  });

  it('promotes only a new best while a rung holds fewer than η values', () => {
    const others = [record(0, 'complete', flat(5, 20)), record(1, 'pruned', flat(3, 1))];
    expect(shouldPrune(asha, [], flat(0, 1))).toBe(false);
    expect(shouldPrune(asha, others, flat(6, 1))).toBe(false);
    expect(shouldPrune(asha, others, flat(5, 1))).toBe(false);
    expect(shouldPrune(asha, others, flat(4, 1))).toBe(true);
  });

  it('does not prune before the first rung, nor between rungs', () => {
    const others = Array.from({ length: 8 }, (_, k) => record(k, 'complete', flat(10 + k, 20)));
    expect(shouldPrune(asha, others, { 0: 0 })).toBe(false);
    // Passed rung 0 at step 1 (judged then): a bad value at steps 2–3 is not judged again.
    expect(shouldPrune(asha, others, { 0: 0, 1: 100, 2: 0, 3: 0 })).toBe(false);
    // Rung 1 at step 4: judged there, against the others' values at step 4.
    expect(shouldPrune(asha, others, { 0: 0, 1: 100, 2: 0, 3: 0, 4: 0 })).toBe(true);
    expect(shouldPrune(asha, others, { 0: 0, 1: 100, 2: 0, 3: 0, 4: 100 })).toBe(false);
  });

  it('takes a trial value at a rung from its first report at or past the rung step', () => {
    // Rung 1 is at step 4; these trials reported step 5 (or 6) first past it.
    const sparse = [9, 8, 7].map((v, k) => record(k, 'running', { 0: 0, 1: 0, 5: v, 6: 0 }));
    // Four values at rung 1 (three others + this one): promoted only if the best.
    expect(shouldPrune(asha, sparse, { 1: 0, 4: 8.5 })).toBe(true);
    expect(shouldPrune(asha, sparse, { 1: 0, 4: 9.5 })).toBe(false);
    // A trial that jumps straight past several rungs is judged at each with its latest value.
    const many = Array.from({ length: 8 }, (_, k) => record(k, 'complete', flat(k, 20)));
    expect(shouldPrune(asha, many, { 20: 6.5 })).toBe(false);
    expect(shouldPrune(asha, many, { 20: 5.5 })).toBe(true);
  });

  it('counts trials of every state that reached the rung, pruned ones included', () => {
    const states: TrialState[] = ['complete', 'pruned', 'fail', 'running'];
    const others = Array.from({ length: 7 }, (_, k) =>
      record(k, states[k % states.length] ?? 'complete', flat(k + 1, 1)),
    );
    // Values 1–7 and this one: 8 values, the top 2 are promoted.
    expect(shouldPrune(asha, others, flat(6.5, 1))).toBe(false);
    expect(shouldPrune(asha, others, flat(5.5, 1))).toBe(true);
    // Waiting trials have reported nothing and do not count.
    expect(shouldPrune(asha, [record(0, 'waiting', {})], flat(0, 1))).toBe(false);
  });

  it('skips the first rungs with minEarlyStoppingRate', () => {
    const late = new SuccessiveHalvingPruner({
      minResource: 1,
      reductionFactor: 4,
      minEarlyStoppingRate: 1,
    });
    const others = Array.from({ length: 8 }, (_, k) => record(k, 'complete', flat(10 + k, 20)));
    expect(shouldPrune(late, others, flat(0, 3))).toBe(false);
    expect(shouldPrune(late, others, flat(0, 4))).toBe(true);
  });

  it("resolves minResource 'auto' from the first trial to complete", () => {
    const auto = new SuccessiveHalvingPruner({ reductionFactor: 4 });
    const running = Array.from({ length: 8 }, (_, k) => record(k, 'running', flat(10 + k, 20)));
    expect(shouldPrune(auto, running, flat(0, 20))).toBe(false);
    // First complete trial: last step 399 → minResource 3, rungs at 3, 12, 48.
    const trials = [
      ...running,
      { ...record(8, 'complete', flat(10, 399)), finishedAt: 1000 },
      { ...record(9, 'complete', flat(10, 2000)), finishedAt: 2000 },
    ];
    expect(shouldPrune(auto, trials, flat(0, 2))).toBe(false);
    expect(shouldPrune(auto, trials, flat(0, 3))).toBe(true);
  });

  it('prunes until a rung holds more than bootstrapCount values', () => {
    const bootstrap = new SuccessiveHalvingPruner({
      minResource: 1,
      reductionFactor: 2,
      bootstrapCount: 3,
    });
    const others = [record(0, 'running', flat(1, 1)), record(1, 'running', flat(2, 1))];
    expect(shouldPrune(bootstrap, others, flat(10, 1))).toBe(true);
    const more = [...others, record(2, 'running', flat(3, 1))];
    expect(shouldPrune(bootstrap, more, flat(10, 1))).toBe(false);
  });

  it('prunes a NaN value at a rung and leaves NaN out of the competition', () => {
    expect(shouldPrune(asha, [], { 0: 1, 1: NaN })).toBe(true);
    expect(shouldPrune(asha, [], { 0: NaN })).toBe(false);
    const others = [
      ...Array.from({ length: 6 }, (_, k) => record(k, 'pruned', flat(NaN, 1))),
      record(6, 'complete', flat(5, 20)),
    ];
    // Two values count (5 and this one): fewer than η, so only a new best is promoted.
    expect(shouldPrune(asha, others, flat(4, 1))).toBe(true);
    expect(shouldPrune(asha, others, flat(6, 1))).toBe(false);
  });

  it('rejects options out of range with INVALID_ARGUMENT', () => {
    expect(() => new SuccessiveHalvingPruner({ minResource: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => new SuccessiveHalvingPruner({ reductionFactor: 1 })).toThrow(/reductionFactor/);
    expect(() => new SuccessiveHalvingPruner({ minEarlyStoppingRate: -1 })).toThrow(
      /minEarlyStoppingRate/,
    );
    expect(() => new SuccessiveHalvingPruner({ bootstrapCount: 2 })).toThrow(/minResource/);
  });

  it('describes its settings', () => {
    expect(new SuccessiveHalvingPruner().description).toBe(
      'successive halving (min resource auto, reduction factor 4, min early-stopping rate 0)',
    );
  });
});

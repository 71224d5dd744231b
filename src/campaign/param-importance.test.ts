import { describe, expect, it } from 'vitest';
import { Rng } from '../core/index.js';
import type { ParamValue, TrialState } from '../storage/records.js';
import { paramImportance, type ImportanceTrial } from './param-importance.js';

/** A complete trial of these params and value. */
const trial = (params: Record<string, ParamValue>, value: number | null): ImportanceTrial => ({
  state: 'complete',
  value,
  params,
});

/**
 * 40 trials whose value is a steep function of `learningRate` plus a little noise, while `gamma`
 * and the categorical `activation` are drawn independently and do nothing.
 */
function syntheticTrials(seed: number): ImportanceTrial[] {
  const rng = new Rng(seed);
  return Array.from({ length: 40 }, () => {
    const learningRate = 10 ** (-5 + 3 * rng.uniform());
    const gamma = 0.9 + 0.099 * rng.uniform();
    const activation = rng.uniform() < 0.5 ? 'relu' : 'tanh';
    const value = 2 * Math.log10(learningRate) + 0.05 * rng.normal();
    return trial({ learningRate, gamma, activation, netDim: 64 }, value);
  });
}

describe('paramImportance', () => {
  it('ranks the parameter the value depends on far above those it does not', () => {
    const result = paramImportance(syntheticTrials(1), { seed: 7 });
    expect(result.reason).toBeUndefined();
    expect(result.trials).toBe(40);
    expect(result.params.map((p) => p.param)).toHaveLength(3);
    const [first, ...rest] = result.params;
    expect(first?.param).toBe('learningRate');
    expect(first?.share).toBeGreaterThan(0.8);
    for (const p of rest) expect(p.share).toBeLessThan(0.1);
    expect(result.params.reduce((s, p) => s + p.share, 0)).toBeCloseTo(1, 9);
    expect(result.params.find((p) => p.param === 'activation')?.encoding).toBe('ordinal');
    expect(first?.encoding).toBe('numeric');
  });

  it('finds a categorical parameter that matters', () => {
    const rng = new Rng(3);
    const trials = Array.from({ length: 30 }, (_, i) => {
      const optimizer = ['adam', 'sgd', 'rmsprop'][i % 3] ?? 'adam';
      const noise = rng.uniform();
      return trial({ optimizer, noise }, (optimizer === 'sgd' ? -1 : 1) + 0.05 * rng.normal());
    });
    const result = paramImportance(trials, { seed: 1 });
    expect(result.params[0]?.param).toBe('optimizer');
    expect(result.params[0]?.share).toBeGreaterThan(0.8);
  });

  it('gives the same figures for the same seed and trials', () => {
    const trials = syntheticTrials(2);
    expect(paramImportance(trials, { seed: 5 })).toEqual(paramImportance(trials, { seed: 5 }));
  });

  it('leaves out fixed parameters and trials that are not complete', () => {
    const trials: ImportanceTrial[] = [
      ...syntheticTrials(4),
      ...(['pruned', 'fail', 'running', 'waiting'] as TrialState[]).map((state) => ({
        state,
        value: state === 'pruned' ? 99 : null,
        params: { learningRate: 1, gamma: 0.5, activation: 'elu', netDim: 128 },
      })),
    ];
    const result = paramImportance(trials);
    expect(result.trials).toBe(40);
    expect(result.fixed).toEqual(['netDim']);
    expect(result.params.map((p) => p.param)).not.toContain('netDim');
  });

  it('counts a parameter a trial lacks (a conditional space) as a value of its own', () => {
    const trials = Array.from({ length: 20 }, (_, i) =>
      trial(i % 2 === 0 ? { clip: 0.2, other: i } : { other: i }, i % 2 === 0 ? 1 : 0),
    );
    const result = paramImportance(trials);
    expect(result.fixed).toEqual([]);
    expect(result.params[0]?.param).toBe('clip');
  });

  it('gives a reason instead of numbers when there is too little to go on', () => {
    const few = syntheticTrials(5).slice(0, 4);
    expect(paramImportance(few)).toEqual({
      trials: 4,
      params: [],
      fixed: [],
      reason: '4 complete trials; parameter importance needs at least 5',
    });
    const same = Array.from({ length: 6 }, (_, i) => trial({ a: i }, 1.5));
    expect(paramImportance(same).reason).toMatch(/all 6 complete trials have the same value/);
    const fixed = Array.from({ length: 6 }, (_, i) => trial({ a: 1 }, i));
    expect(paramImportance(fixed)).toMatchObject({ params: [], fixed: ['a'] });
    expect(paramImportance(fixed).reason).toMatch(/no parameter took more than one value/);
  });

  it('learns a clean step, which needs a split that leaves no error', () => {
    // ml-cart's trees refuse such a split (the reason the forest is our own): they would predict
    // the mean everywhere, and shuffling `flag` would change nothing.
    const trials = Array.from({ length: 12 }, (_, i) =>
      trial({ flag: i % 2 === 0, other: (i * 7) % 12 }, i % 2 === 0 ? 1 : 0),
    );
    const result = paramImportance(trials);
    expect(result.params[0]).toMatchObject({ param: 'flag', encoding: 'ordinal' });
    expect(result.params[0]?.share).toBeGreaterThan(0.9);
  });

  it('runs on the smallest studies it accepts, whatever the seed', () => {
    // Bootstrap samples of five trials often repeat one trial or hold a single distinct value.
    const trials = syntheticTrials(6).slice(0, 5);
    for (let seed = 0; seed < 40; seed++) {
      const result = paramImportance(trials, { seed, trees: 10, repeats: 2 });
      expect(result.trials).toBe(5);
      for (const p of result.params) expect(Number.isFinite(p.share)).toBe(true);
    }
  });

  it('refuses options that cannot work, saying which', () => {
    expect(() => paramImportance([], { trees: 0 })).toThrow(
      /options.trees is 0, not a whole number >= 1/,
    );
    expect(() => paramImportance([], { seed: 0.5 })).toThrow(/options.seed is 0.5/);
  });
});

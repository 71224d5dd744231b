import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.js';
import { isTradelabError } from '../../core/index.js';
import {
  trialRecord,
  type Distribution,
  type ParamValue,
  type StudyDirection,
  type TrialRecord,
  type TrialState,
} from '../../storage/records.js';
import { contains } from '../distributions.js';
import { RandomSampler } from './random-sampler.js';
import { randomDistribution, samplerContext as ctx } from './sampler-test-support.js';
import { TpeSampler, defaultGamma, defaultWeights } from './tpe-sampler.js';

const X: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };

/** A trial that was given `x` (from X) and, if it got one, `value`. */
function xTrial(
  number: number,
  state: TrialState,
  x: number,
  value: number | null = null,
): TrialRecord {
  return trialRecord({ number, state, params: { x }, distributions: { x: X }, value });
}

/** n complete trials with x spread over [0, 1] and value (x − 0.3)². */
function history(n: number, seed = 1): TrialRecord[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const x = rng.uniform();
    return xTrial(i, 'complete', x, (x - 0.3) ** 2);
  });
}

/** Mean of TPE's suggestions for x over `k` asking trials (different streams). */
function meanSuggestion(
  sampler: TpeSampler,
  trials: readonly TrialRecord[],
  direction: StudyDirection = 'minimize',
  k = 40,
): number {
  let sum = 0;
  for (let j = 0; j < k; j++)
    sum += sampler.sampleIndependent(ctx(trials, 1000 + j, direction), 'x', X) as number;
  return sum / k;
}

describe('defaults', () => {
  it('γ is the best 10 %, at most 25', () => {
    expect([0, 1, 10, 11, 100, 249, 250, 1000].map(defaultGamma)).toEqual([
      0, 1, 1, 2, 10, 25, 25, 25,
    ]);
  });
  it('weights are flat for the latest 25 and ramp up from 1/n for older ones', () => {
    expect([...defaultWeights(3)]).toEqual([1, 1, 1]);
    const w = defaultWeights(30);
    expect(w[0]).toBeCloseTo(1 / 30, 15);
    expect(w[4]).toBeCloseTo(1, 15);
    expect(w[2]).toBeCloseTo((1 / 30 + 1) / 2, 15);
    expect([...w.subarray(5)]).toEqual(new Array<number>(25).fill(1));
  });
});

describe('TpeSampler', () => {
  it('samples at random, like RandomSampler, during the startup trials', () => {
    const trials = history(9);
    const tpe = new TpeSampler({ seed: 5 });
    const random = new RandomSampler({ seed: 5 });
    expect(tpe.sampleIndependent(ctx(trials), 'x', X)).toBe(
      random.sampleIndependent(ctx(trials), 'x', X),
    );
  });

  it('is deterministic given seed and history, and depends on the seed', () => {
    const trials = history(30);
    const a = new TpeSampler({ seed: 1 }).sampleIndependent(ctx(trials), 'x', X);
    const b = new TpeSampler({ seed: 1 }).sampleIndependent(ctx(trials), 'x', X);
    const c = new TpeSampler({ seed: 2 }).sampleIndependent(ctx(trials), 'x', X);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('concentrates near the best values', () => {
    const mean = meanSuggestion(new TpeSampler({ seed: 3 }), history(60));
    expect(Math.abs(mean - 0.3)).toBeLessThan(0.1);
  });

  it('always returns values inside the distribution (random distributions)', () => {
    const rng = new Rng(17);
    const random = new RandomSampler({ seed: 9 });
    for (let round = 0; round < 120; round++) {
      const dist = randomDistribution(rng);
      const trials: TrialRecord[] = [];
      for (let i = 0; i < 14; i++) {
        const v = random.sampleIndependent(ctx(trials, i), 'p', dist);
        trials.push(
          trialRecord({
            number: i,
            state: 'complete',
            params: { p: v },
            distributions: { p: dist },
            value: rng.normal(),
          }),
        );
      }
      for (const multivariate of [false, true]) {
        const tpe = new TpeSampler({ seed: round, multivariate });
        const c = ctx(trials, 14 + round);
        const rel = tpe.sampleRelative(c);
        const value = rel['p'] ?? tpe.sampleIndependent(c, 'p', dist);
        expect(contains(dist, value), `${JSON.stringify(dist)} → ${String(value)}`).toBe(true);
      }
    }
  });

  it('spreads away from running trials with the constant liar', () => {
    const trials = history(30);
    // Workers already trying the region TPE likes.
    const running = Array.from({ length: 12 }, (_, i) =>
      xTrial(30 + i, 'running', 0.28 + 0.004 * i),
    );
    const withLiar = new TpeSampler({ seed: 4 });
    const without = new TpeSampler({ seed: 4, constantLiar: false });
    const all = [...trials, ...running];
    const near = (v: ParamValue): number => Math.abs((v as number) - 0.3);
    let changed = 0;
    let nearLiar = 0;
    let nearPlain = 0;
    for (let j = 0; j < 30; j++) {
      const a = withLiar.sampleIndependent(ctx(all, 100 + j), 'x', X);
      const b = without.sampleIndependent(ctx(all, 100 + j), 'x', X);
      if (a !== b) changed++;
      nearLiar += near(a);
      nearPlain += near(b);
    }
    expect(changed).toBeGreaterThan(0);
    expect(nearLiar).toBeGreaterThan(nearPlain);
    // Without the liar, running trials are invisible.
    expect(without.sampleIndependent(ctx(all, 7), 'x', X)).toBe(
      without.sampleIndependent(ctx(trials, 7), 'x', X),
    );
  });

  it('learns from pruned trials, deeper steps ranking above shallower ones', () => {
    // Only pruned trials: the deep ones (step 50) sit near 0.8, the shallow ones (step 2, better
    // values) near 0.2. "Below" must be the deep ones.
    const trials: TrialRecord[] = [];
    const rng = new Rng(8);
    for (let i = 0; i < 40; i++) {
      const deep = i % 2 === 0;
      const x = (deep ? 0.8 : 0.2) + 0.05 * (rng.uniform() - 0.5);
      const intermediate = deep ? { 1: 9, 50: 5 } : { 1: 3, 2: 1 };
      trials.push({ ...xTrial(i, 'pruned', x, deep ? 5 : 1), intermediate });
    }
    const mean = meanSuggestion(new TpeSampler({ seed: 2 }), trials);
    expect(mean).toBeGreaterThan(0.6);
  });

  it('ignores failed and waiting trials', () => {
    const trials = history(25);
    const noise = [xTrial(25, 'fail', 0.9), xTrial(26, 'waiting', 0.95)];
    const tpe = new TpeSampler({ seed: 6 });
    expect(tpe.sampleIndependent(ctx([...trials, ...noise], 40), 'x', X)).toBe(
      tpe.sampleIndependent(ctx(trials, 40), 'x', X),
    );
  });

  it('maximizes: negated values under maximize give the same suggestions', () => {
    const trials = history(40);
    const negated = trials.map((t) => ({ ...t, value: -(t.value as number) }));
    const tpe = new TpeSampler({ seed: 12 });
    for (let j = 0; j < 5; j++) {
      expect(tpe.sampleIndependent(ctx(negated, 50 + j, 'maximize'), 'x', X)).toBe(
        tpe.sampleIndependent(ctx(trials, 50 + j, 'minimize'), 'x', X),
      );
    }
    // Maximizing −(x − 0.3)² finds 0.3; minimizing it runs to the ends.
    expect(Math.abs(meanSuggestion(tpe, negated, 'maximize') - 0.3)).toBeLessThan(0.1);
    expect(Math.abs(meanSuggestion(tpe, negated, 'minimize') - 0.3)).toBeGreaterThan(0.2);
  });

  it('samples jointly over the intersection search space when multivariate', () => {
    const Y: Distribution = { type: 'int', low: 1, high: 64, log: true, step: 1 };
    const rng = new Rng(4);
    const trials: TrialRecord[] = [];
    for (let i = 0; i < 20; i++) {
      const x = rng.uniform();
      const y = 1 + Math.floor(rng.uniform() * 64);
      const params: Record<string, ParamValue> = { x, y };
      const dists: Record<string, Distribution> = { x: X, y: Y };
      if (i % 2 === 0) {
        params['z'] = 'a';
        dists['z'] = { type: 'categorical', choices: ['a', 'b'] };
      }
      trials.push(
        trialRecord({
          number: i,
          state: 'complete',
          params,
          distributions: dists,
          value: x + y / 64,
        }),
      );
    }
    const tpe = new TpeSampler({ seed: 1, multivariate: true });
    expect(tpe.sampleRelative(ctx(trials.slice(0, 5)))).toEqual({});
    const rel = tpe.sampleRelative(ctx(trials));
    expect(Object.keys(rel).sort()).toEqual(['x', 'y']);
    expect(contains(X, rel['x'] ?? null)).toBe(true);
    expect(contains(Y, rel['y'] ?? null)).toBe(true);
    expect(new TpeSampler({ seed: 1 }).sampleRelative(ctx(trials))).toEqual({});
    expect(new TpeSampler({ seed: 1, multivariate: true }).sampleRelative(ctx(trials))).toEqual(
      rel,
    );
  });

  it('returns the only value of a one-point distribution', () => {
    const tpe = new TpeSampler();
    const trials = history(20);
    expect(
      tpe.sampleIndependent(ctx(trials), 'k', {
        type: 'int',
        low: 3,
        high: 3,
        log: false,
        step: 1,
      }),
    ).toBe(3);
    expect(
      tpe.sampleIndependent(ctx(trials), 'c', { type: 'categorical', choices: ['only'] }),
    ).toBe('only');
  });

  it('rejects invalid options with INVALID_ARGUMENT', () => {
    for (const options of [
      { seed: 0.5 },
      { nStartupTrials: -1 },
      { nEiCandidates: 0 },
      { priorWeight: 0 },
    ]) {
      try {
        new TpeSampler(options);
        expect.unreachable();
      } catch (error) {
        expect(isTradelabError(error, 'INVALID_ARGUMENT')).toBe(true);
      }
    }
    const bad = new TpeSampler({ weights: (n) => new Array<number>(n).fill(-1) });
    expect(() => bad.sampleIndependent(ctx(history(20)), 'x', X)).toThrow(/weights/);
  });

  it('describes itself', () => {
    expect(new TpeSampler({ seed: 1, multivariate: true }).description).toBe(
      'tpe (multivariate, constant liar, seed 1)',
    );
  });
});

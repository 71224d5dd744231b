import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../../core/index.js';
import {
  trialRecord,
  type Distribution,
  type ParamValue,
  type TrialRecord,
  type TrialState,
} from '../../storage/records.js';
import { GridSampler } from './grid-sampler.js';
import { samplerContext } from './sampler-test-support.js';

const SPACE = { lr: [0.1, 0.01, 0.001], batch: [32, 64], act: ['relu', 'tanh'] };
const LR: Distribution = { type: 'float', low: 0.0001, high: 1, log: true, step: null };

function withParams(
  number: number,
  state: TrialState,
  params: Record<string, ParamValue>,
): TrialRecord {
  return trialRecord({ number, state, params });
}

/** Runs n trials, each finishing before the next asks; returns each trial's params. */
function run(sampler: GridSampler, n: number): Record<string, ParamValue>[] {
  const trials: TrialRecord[] = [];
  for (let i = 0; i < n; i++) {
    trials.push(withParams(i, 'complete', sampler.sampleRelative(samplerContext([...trials]))));
  }
  return trials.map((t) => t.params);
}

describe('GridSampler', () => {
  it('visits every grid point once, in a seed-shuffled order', () => {
    const sampler = new GridSampler({ searchSpace: SPACE, seed: 1 });
    expect(sampler.size).toBe(12);
    const points = run(sampler, 12).map((p) => JSON.stringify(p));
    expect(new Set(points).size).toBe(12);
    expect(sampler.exhausted).toBe(false);
    const other = run(new GridSampler({ searchSpace: SPACE, seed: 2 }), 12).map((p) =>
      JSON.stringify(p),
    );
    expect(other).not.toEqual(points);
    expect(new Set(other)).toEqual(new Set(points));
    expect(
      run(new GridSampler({ searchSpace: SPACE, seed: 1 }), 12).map((p) => JSON.stringify(p)),
    ).toEqual(points);
  });

  it('skips points held by running, pruned and failed trials, not waiting ones', () => {
    const sampler = new GridSampler({ searchSpace: { x: [1, 2, 3, 4] }, seed: 0 });
    const first = sampler.sampleRelative(samplerContext());
    const all = [1, 2, 3, 4];
    const held = all.filter((v) => v !== first['x']).slice(0, 3);
    const trials = [
      withParams(0, 'running', { x: held[0] ?? 0 }),
      withParams(1, 'pruned', { x: held[1] ?? 0 }),
      withParams(2, 'fail', { x: held[2] ?? 0 }),
      withParams(3, 'waiting', { x: first['x'] ?? 0 }),
    ];
    const next = sampler.sampleRelative(samplerContext(trials));
    expect(next).toEqual(first);
    expect(sampler.exhausted).toBe(false);
    expect(sampler.isExhausted(trials)).toBe(false);
  });

  it('repeats a random point and says so once the grid is used up', () => {
    const sampler = new GridSampler({ searchSpace: { x: [1, 2] } });
    const trials = [withParams(0, 'complete', { x: 1 }), withParams(1, 'complete', { x: 2 })];
    expect(sampler.isExhausted(trials)).toBe(true);
    const again = sampler.sampleRelative(samplerContext(trials));
    expect([1, 2]).toContain(again['x']);
    expect(sampler.exhausted).toBe(true);
  });

  it('answers sampleIndependent with the trial’s grid value', () => {
    const sampler = new GridSampler({ searchSpace: SPACE, seed: 3 });
    const ctx = samplerContext();
    const relative = sampler.sampleRelative(ctx);
    expect(sampler.sampleIndependent(ctx, 'lr', LR)).toBe(relative['lr']);
  });

  it('rejects names outside the grid and values outside the distribution', () => {
    const sampler = new GridSampler({ searchSpace: SPACE });
    const ctx = samplerContext();
    expect(() => sampler.sampleIndependent(ctx, 'momentum', LR)).toThrow(/not in the grid/);
    const narrow: Distribution = { type: 'float', low: 0.5, high: 1, log: false, step: null };
    expect(() => sampler.sampleIndependent(ctx, 'lr', narrow)).toThrow(/outside its distribution/);
  });

  it('rejects empty or repeated value lists', () => {
    for (const searchSpace of [{}, { x: [] }, { x: [1, 1] }, { x: [Number.NaN] }]) {
      try {
        new GridSampler({ searchSpace });
        expect.unreachable();
      } catch (error) {
        expect(isTradelabError(error, 'INVALID_ARGUMENT')).toBe(true);
      }
    }
  });
});

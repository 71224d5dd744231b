import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import { errorOf } from '../../test/support/assertions.js';
import { openMemoryStorage } from '../storage/memory-storage.js';
import type { Distribution, ParamValue } from '../storage/records.js';
import { openSqliteStorage } from '../storage/sqlite-storage.js';
import type { StudyStorage } from '../storage/study-storage.js';
import type { TradelabError } from '../core/index.js';
import { fromInternal } from './distributions.js';
import { optimize } from './optimize.js';
import { createSampler, type SamplerSpec } from './sampler-spec.js';
import { runWorkers } from './worker-pool.js';
import type { Pruner } from './pruner.js';
import type { Sampler } from './sampler.js';
import { Study } from './study.js';
import type { StudyComponents } from './study-components.js';
import { TrialPruned } from './trial.js';

const dir = tempDir('tradelab-study-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Picks the midpoint of every range (and the first choice): predictable values to assert on. */
const midpoint: Sampler = {
  description: 'midpoint',
  sampleIndependent(_context, _name, d: Distribution): ParamValue {
    if (d.type === 'categorical') return d.choices[0] ?? null;
    const low = d.log ? Math.log(d.low) : d.low;
    const high = d.log ? Math.log(d.high) : d.high;
    return fromInternal(d, (low + high) / 2);
  },
};

/** Prunes every trial whose latest report is above 1. */
const aboveOne: Pruner = {
  description: 'above one',
  shouldPrune: ({ trial, step }) => (trial.intermediate[step] ?? 0) > 1,
};

/** The TradelabError `promise` rejects with. */
async function rejected(promise: Promise<unknown>): Promise<TradelabError> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as TradelabError,
  );
}

const components: StudyComponents = { sampler: midpoint, pruner: aboveOne };

async function newStudy(storage: StudyStorage = openMemoryStorage()): Promise<Study> {
  return Study.create(storage, { name: 's', direction: 'minimize' }, components);
}

describe('Study ask/tell', () => {
  it('suggests, persists parameters and ends trials', async () => {
    const study = await newStudy();
    const trial = await study.ask('w');
    expect(trial.suggestFloat('lr', 1e-4, 1e-2, { log: true })).toBeCloseTo(1e-3, 12);
    expect(trial.suggestInt('units', 16, 48, { step: 16 })).toBe(32);
    expect(trial.suggestCategorical('act', ['relu', 'tanh'])).toBe('relu');
    // The same question again gets the same answer.
    expect(trial.suggestInt('units', 16, 48, { step: 16 })).toBe(32);
    const done = await study.tell(trial, 0.5);
    expect(done).toMatchObject({
      state: 'complete',
      value: 0.5,
      params: { units: 32, act: 'relu' },
    });
    expect(done.distributions.lr).toEqual({
      type: 'float',
      low: 1e-4,
      high: 1e-2,
      log: true,
      step: null,
    });
    expect((await study.bestTrial())?.number).toBe(0);
  });

  it('refuses a parameter asked again with another distribution', async () => {
    const study = await newStudy();
    const trial = await study.ask();
    trial.suggestFloat('x', 0, 1);
    const error = errorOf(() => trial.suggestFloat('x', 0, 2));
    expect(error.code).toBe('INVALID_SUGGESTION');
    expect(error.message).toContain('float [0, 1]');
    expect(error.message).toContain('float [0, 2]');
    expect(errorOf(() => trial.suggestInt('n', 5, 1)).code).toBe('INVALID_SUGGESTION');
    expect(errorOf(() => trial.suggestFloat('l', 0, 1, { log: true })).code).toBe(
      'INVALID_SUGGESTION',
    );
  });

  it('runs enqueued trials first with their values, and checks them against the ask', async () => {
    const study = await newStudy();
    await study.enqueueTrial({ x: 0.9, kind: 'b' });
    await study.enqueueTrial({ x: 5 });
    const first = await study.ask();
    expect(first.suggestFloat('x', 0, 1)).toBe(0.9);
    expect(first.suggestCategorical('kind', ['a', 'b'])).toBe('b');
    expect(first.suggestFloat('y', 0, 1)).toBe(0.5);
    const second = await study.ask();
    expect(errorOf(() => second.suggestFloat('x', 0, 1)).message).toContain('enqueued value 5');
    const third = await study.ask();
    expect(third.number).toBe(2);
    expect(third.suggestFloat('x', 0, 1)).toBe(0.5);
  });

  it('loads an existing study only when asked to, and keeps its direction', async () => {
    const storage = openMemoryStorage();
    await newStudy(storage);
    expect((await rejected(newStudy(storage))).code).toBe('STUDY_EXISTS');
    const again = await Study.create(
      storage,
      { name: 's', direction: 'minimize', loadIfExists: true },
      components,
    );
    expect(again.name).toBe('s');
    const other = await rejected(
      Study.create(storage, { name: 's', direction: 'maximize', loadIfExists: true }, components),
    );
    expect(other.message).toContain('direction minimize');
    expect(other.code).toBe('STUDY_CONFLICT');
  });
});

describe('optimize', () => {
  it('completes, prunes and fails trials and counts them', async () => {
    const study = await newStudy();
    let calls = 0;
    const summary = await optimize(
      study,
      async (trial) => {
        const k = calls++;
        trial.suggestFloat('x', 0, 1);
        if (k % 4 === 1) {
          await trial.report(0.5, 0);
          await trial.report(2, 1);
          if (trial.shouldPrune()) throw new TrialPruned();
        }
        if (k % 4 === 2) throw new Error('diverged');
        if (k % 4 === 3) return Number.NaN;
        return k;
      },
      { nTrials: 8 },
    );
    expect([summary.complete, summary.pruned, summary.failed]).toEqual([2, 2, 4]);
    const trials = await study.trials();
    expect(trials.map((t) => t.state)).toEqual([
      'complete',
      'pruned',
      'fail',
      'fail',
      'complete',
      'pruned',
      'fail',
      'fail',
    ]);
    expect(trials[1]?.value).toBe(2);
    expect(trials[1]?.intermediate).toEqual({ 0: 0.5, 1: 2 });
    expect(trials[2]?.failReason).toBe('diverged');
    expect(trials[3]?.failReason).toContain('NaN');
  });

  it("hands a trial's progress, clamped to [0, 1], to onTrialProgress with the trial's number", async () => {
    const study = await newStudy();
    const seen: unknown[] = [];
    await optimize(
      study,
      (trial) => {
        trial.progress(0.5, 'half');
        trial.progress(7);
        trial.progress(Number.NaN, 'nan');
        return trial.number;
      },
      { nTrials: 2, onTrialProgress: (p) => seen.push(p) },
    );
    expect(seen).toEqual([
      { number: 0, fraction: 0.5, detail: 'half' },
      { number: 0, fraction: 1, detail: '' },
      { number: 0, fraction: 0, detail: 'nan' },
      { number: 1, fraction: 0.5, detail: 'half' },
      { number: 1, fraction: 1, detail: '' },
      { number: 1, fraction: 0, detail: 'nan' },
    ]);
  });

  it('stops at the timeout and when aborted', async () => {
    const study = await newStudy();
    const slow = async (): Promise<number> => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 1;
    };
    const timed = await optimize(study, slow, { timeoutMs: 100 });
    expect(timed.trials.length).toBeGreaterThan(1);
    expect(timed.trials.length).toBeLessThan(10);
    const controller = new AbortController();
    let n = 0;
    const aborted = await optimize(
      study,
      () => {
        if (++n === 3) controller.abort();
        return 1;
      },
      { signal: controller.signal },
    );
    expect(aborted.trials.length).toBe(3);
  });

  it('heartbeats from a thread while the objective blocks the event loop (SQLite)', async () => {
    const storage = openSqliteStorage(join(dir, 'heartbeat.db'));
    const study = await newStudy(storage);
    const summary = await optimize(
      study,
      async (trial) => {
        const start = Date.now();
        while (Date.now() - start < 600); // a blocking computation, like a tfjs-wasm update
        const record = await storage.getTrial(trial.id);
        return (record.heartbeatAt ?? 0) - (record.startedAt ?? 0);
      },
      { nTrials: 1, heartbeatIntervalMs: 50 },
    );
    // The heartbeat moved on during the 600 ms the main thread was busy.
    expect(summary.trials[0]?.value).toBeGreaterThan(300);
    await storage.close();
  });

  it('fails a dead worker’s stale trial and retries it first, with the same params', async () => {
    const storage = openSqliteStorage(join(dir, 'stale.db'));
    const study = await newStudy(storage);
    const dead = await study.ask('dead-worker');
    dead.suggestFloat('x', 0, 1);
    dead.suggestInt('n', 1, 9);
    await dead.flush();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const seen: Record<string, ParamValue>[] = [];
    const seeds: number[] = [];
    await optimize(
      study,
      (trial) => {
        seen.push({ x: trial.suggestFloat('x', 0, 1), n: trial.suggestInt('n', 1, 9) });
        seeds.push(trial.seedNumber);
        return 0;
      },
      { nTrials: 2, heartbeatGraceMs: 10 },
    );
    // The retry seeds as its original would have.
    expect(seeds).toEqual([0, 2]);
    const trials = await study.trials();
    expect(trials.map((t) => [t.number, t.state, t.retryOf])).toEqual([
      [0, 'fail', null],
      [1, 'complete', 0],
      [2, 'complete', null],
    ]);
    expect(trials[0]?.failReason).toBe('stale heartbeat');
    expect(seen[0]).toEqual({ x: 0.5, n: 5 });
    await storage.close();
  });

  it('runs in worker processes with optimize(study, module, { workers })', async () => {
    const storage = openSqliteStorage(join(dir, 'workers.db'));
    const study = await Study.create(storage, {
      name: 'w',
      direction: 'minimize',
      sampler: { type: 'random' },
      pruner: { type: 'nop' },
    });
    const summary = await optimize(study, 'quadratic', { nTrials: 6, workers: 2 });
    expect(summary.complete).toBe(6);
    expect((await study.trials(['complete'])).length).toBe(6);
    expect((await study.bestTrial())?.params.x).toBeTypeOf('number');
    const error = await rejected(optimize(study, () => 1, { nTrials: 1, workers: 2 }));
    expect(error.message).toContain('objective as a module');
    await storage.close();
  });

  it('stores the sampler and pruner specs it was created with, whoever creates it', async () => {
    const storage = openMemoryStorage();
    const created = await Study.create(storage, {
      name: 'specs',
      direction: 'maximize',
      sampler: { type: 'random', seed: 3 },
      pruner: { type: 'percentile', percentile: 25 },
    });
    expect(created.created).toBe(true);
    const stored = (await storage.getStudy('specs')).systemAttrs;
    expect(stored.sampler).toEqual({ type: 'random', seed: 3 });
    expect(stored.pruner).toEqual({ type: 'percentile', percentile: 25 });
    const loaded = await Study.load(storage, 'specs');
    expect(loaded.created).toBe(false);
    expect(loaded.sampler.description).toBe(created.sampler.description);
    expect(loaded.pruner.description).toBe(created.pruner.description);
    // Defaults are stored too, so a later reader never guesses.
    await Study.create(storage, { name: 'defaults', direction: 'minimize' });
    expect((await storage.getStudy('defaults')).systemAttrs).toMatchObject({
      sampler: { type: 'tpe' },
      pruner: { type: 'median' },
    });
  });

  it('refuses, in another process, a study created with in-process sampler objects', async () => {
    const storage = openMemoryStorage();
    await Study.create(storage, { name: 'custom', direction: 'minimize' }, components);
    expect((await storage.getStudy('custom')).systemAttrs.customComponents).toEqual({
      sampler: midpoint.description,
      pruner: aboveOne.description,
    });
    const error = await rejected(Study.load(storage, 'custom'));
    expect(error.code).toBe('STUDY_NOT_PORTABLE');
  });

  it('stops when a grid sampler has tried every point, in process and in workers', async () => {
    const grid: SamplerSpec = { type: 'grid', searchSpace: { x: [-1, 0, 1], y: ['a', 'b'] } };
    const inProcess = await Study.create(
      openMemoryStorage(),
      { name: 'g', direction: 'minimize' },
      { sampler: createSampler(grid), pruner: aboveOne },
    );
    const summary = await optimize(
      inProcess,
      (trial) =>
        trial.suggestFloat('x', -1, 1) +
        (trial.suggestCategorical('y', ['a', 'b']) === 'a' ? 0 : 1),
      { nTrials: 20 },
    );
    expect(summary.trials).toHaveLength(6);
    const points = new Set(
      summary.trials.map((t) => `${String(t.params.x)},${String(t.params.y)}`),
    );
    expect(points.size).toBe(6);

    const storage = openSqliteStorage(join(dir, 'grid.db'));
    await storage.createStudy({
      name: 'g',
      direction: 'minimize',
      systemAttrs: {
        sampler: { type: 'grid', searchSpace: { x: [-2, 0, 2] } },
        pruner: { type: 'nop' },
      },
    });
    const pooled = await runWorkers(storage, 'g', {
      workers: 1,
      nTrials: 20,
      objective: 'quadratic',
    });
    expect(pooled.complete).toBe(3);
    await storage.close();
  });
});

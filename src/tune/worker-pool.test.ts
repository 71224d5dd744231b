import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, TEST_POSTGRES_URL } from '../../test/support/postgres-database.js';
import { REPO_ROOT, tempDir } from '../../test/support/run-cli.js';
import { openStorage } from '../storage/open-storage.js';
import { openSqliteStorage } from '../storage/sqlite-storage.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { compiledPath } from '../core/compiled-path.js';
import { registerObjective } from './objective-module.js';
import { runWorkers } from './worker-pool.js';

const dir = tempDir('tradelab-workers-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const objective = (name: string): string => join(REPO_ROOT, 'test', 'fixtures', 'objectives', name);

/** The SIGKILL test, on one storage. */
async function killOneWorker(storage: StudyStorage): Promise<void> {
  await storage.createStudy({
    name: 'k',
    direction: 'minimize',
    systemAttrs: { sampler: { type: 'random', seed: 3 }, pruner: { type: 'nop' } },
  });
  let starts = 0;
  let killed: number | undefined;
  const summary = await runWorkers(storage, 'k', {
    workers: 2,
    nTrials: 8,
    objective: objective('slow-quadratic.mjs'),
    heartbeatIntervalMs: 100,
    onTrialStart: ({ number, pid }) => {
      if (++starts === 3) {
        killed = number;
        process.kill(pid, 'SIGKILL');
      }
    },
  });
  expect(summary.complete).toBe(8);
  expect(summary.lost).toBe(1);
  expect(summary.started).toBe(3);
  const study = await storage.getStudy('k');
  const trials = await storage.getTrials(study.id);
  expect(trials.map((t) => t.number)).toEqual(trials.map((_, i) => i));
  const failed = trials.filter((t) => t.state === 'fail');
  expect(failed.map((t) => [t.number, t.failReason])).toEqual([
    [killed, 'worker exited (SIGKILL)'],
  ]);
  const retry = trials.find((t) => t.retryOf === killed);
  expect(retry?.state).toBe('complete');
  // The retry ran the same parameters (when the killed trial had suggested them already).
  const lostParams = failed[0]?.params ?? {};
  if ('x' in lostParams) expect(retry?.params).toEqual(lostParams);
  expect(trials.filter((t) => t.state === 'complete')).toHaveLength(8);
  expect(trials.filter((t) => t.state === 'running' || t.state === 'waiting')).toEqual([]);
}

describe('runWorkers', () => {
  it('survives a worker killed with SIGKILL mid-trial (SQLite): its trial fails, is retried, the count is reached', async () => {
    const storage = openSqliteStorage(join(dir, 'kill.db'));
    try {
      await killOneWorker(storage);
    } finally {
      await storage.close();
    }
  });

  it.skipIf(TEST_POSTGRES_URL === '')(
    'survives a worker killed with SIGKILL mid-trial (PostgreSQL)',
    async () => {
      const database = await freshPostgresDatabase('tradelab_workers');
      const storage = await openStorage(database.url);
      try {
        await killOneWorker(storage);
      } finally {
        await storage.close();
        await database.drop();
      }
    },
  );

  it('retries a trial whose objective exited the process with the parameters it had asked', async () => {
    const storage = openSqliteStorage(join(dir, 'exit.db'));
    await storage.createStudy({
      name: 'x',
      direction: 'minimize',
      systemAttrs: { sampler: { type: 'random', seed: 5 }, pruner: { type: 'nop' } },
    });
    process.env.TRADELAB_TEST_MARKER_DIR = dir;
    try {
      const summary = await runWorkers(storage, 'x', {
        workers: 1,
        nTrials: 1,
        objective: objective('exit-after-suggest.mjs'),
      });
      expect(summary.lost).toBe(1);
      const trials = await storage.getTrials((await storage.getStudy('x')).id);
      const [exited, retry] = trials;
      expect(exited?.state).toBe('fail');
      expect(exited?.params.x).toBeTypeOf('number');
      expect(retry?.retryOf).toBe(exited?.number);
      expect(retry?.state).toBe('complete');
      expect(retry?.params.x).toBe(exited?.params.x);
    } finally {
      delete process.env.TRADELAB_TEST_MARKER_DIR;
      await storage.close();
    }
  });

  it("hands each worker the run's objective settings in its start message, for an objective registered by name in this process; refuses an unknown name before starting workers", async () => {
    registerObjective('renamed-settings-echo', {
      module: objective('settings-echo.mjs'),
      description: 'settings-echo under a name only this process knows',
    });
    const storage = openSqliteStorage(join(dir, 'settings.db'));
    await storage.createStudy({
      name: 's',
      direction: 'minimize',
      systemAttrs: { sampler: { type: 'random', seed: 1 }, pruner: { type: 'nop' } },
    });
    try {
      // The workers load the module the name stands for: the echo of the settings shows it.
      const summary = await runWorkers(storage, 's', {
        workers: 2,
        nTrials: 4,
        objective: 'renamed-settings-echo',
        objectiveOptions: { offset: 10 },
      });
      expect([summary.complete, summary.failed]).toEqual([4, 0]);
      for (const trial of summary.trials) {
        expect(trial.userAttrs).toEqual({ workers: 2, offset: 10 });
        expect(trial.value).toBeGreaterThanOrEqual(10);
      }
      let started = 0;
      await expect(
        runWorkers(storage, 's', {
          workers: 2,
          nTrials: 2,
          objective: 'renamed-settings-echk',
          onTrialStart: () => started++,
        }),
      ).rejects.toThrow(/no objective named "renamed-settings-echk".*/);
      expect(started).toBe(0);
    } finally {
      await storage.close();
    }
  });

  it('runs 8 worker processes on one SQLite file without a "database is locked" failure', async () => {
    const storage = openSqliteStorage(join(dir, 'eight.db'));
    await storage.createStudy({
      name: 'e',
      direction: 'minimize',
      systemAttrs: { sampler: { type: 'tpe', seed: 1 }, pruner: { type: 'nop' } },
    });
    try {
      const summary = await runWorkers(storage, 'e', {
        workers: 8,
        nTrials: 80,
        objective: compiledPath('tune/objectives/quadratic.js'),
      });
      expect([summary.complete, summary.failed, summary.lost]).toEqual([80, 0, 0]);
      const study = await storage.getStudy('e');
      const trials = await storage.getTrials(study.id);
      expect(trials.map((t) => t.state)).toEqual(trials.map(() => 'complete'));
    } finally {
      await storage.close();
    }
  });

  it('keeps heartbeating workers whose objective blocks the event loop', async () => {
    const storage = openSqliteStorage(join(dir, 'block.db'));
    await storage.createStudy({
      name: 'b',
      direction: 'minimize',
      systemAttrs: { sampler: { type: 'random' }, pruner: { type: 'nop' } },
    });
    process.env.TRADELAB_TEST_TRIAL_MS = '800';
    // Watch, from this process, how far running trials' heartbeats get past their start.
    const study = await storage.getStudy('b');
    let advanced = 0;
    const watch = setInterval(() => {
      void storage.getTrials(study.id, ['running']).then((running) => {
        for (const t of running)
          advanced = Math.max(advanced, (t.heartbeatAt ?? 0) - (t.startedAt ?? 0));
      });
    }, 50);
    try {
      const summary = await runWorkers(storage, 'b', {
        workers: 2,
        // One trial a worker: each spins a core for 800 ms, and one shows the heartbeats go on.
        nTrials: 2,
        objective: objective('blocking-quadratic.mjs'),
        heartbeatIntervalMs: 50,
        heartbeatGraceMs: 400,
      });
      // A grace period shorter than a trial, yet nothing was failed as stale.
      expect(summary.complete).toBe(2);
      expect(summary.lost).toBe(0);
      expect(advanced).toBeGreaterThan(300);
    } finally {
      clearInterval(watch);
      delete process.env.TRADELAB_TEST_TRIAL_MS;
    }
    await storage.close();
  });

  it("passes each running trial's progress from its worker to the run, before the trial ends", async () => {
    const storage = openSqliteStorage(join(dir, 'progress.db'));
    await storage.createStudy({ name: 'p', direction: 'minimize' });
    const seen: { number: number; fraction: number; detail: string; ended: boolean }[] = [];
    const ended = new Set<number>();
    try {
      const summary = await runWorkers(storage, 'p', {
        workers: 2,
        nTrials: 2,
        objective: objective('progress-steps.mjs'),
        onTrialProgress: (p) => seen.push({ ...p, ended: ended.has(p.number) }),
        onTrialEnd: (trial) => ended.add(trial.number),
      });
      expect(summary.complete).toBe(2);
    } finally {
      await storage.close();
    }
    for (const number of [0, 1]) {
      const mine = seen.filter((p) => p.number === number);
      // 150 ms apart, more than the workers' 100 ms throttle: each step arrives, in order.
      expect(mine.map((p) => [p.fraction, p.detail])).toEqual([
        [0.25, 'step 1/4'],
        [0.5, 'step 2/4'],
        [0.75, 'step 3/4'],
      ]);
      expect(mine.every((p) => !p.ended)).toBe(true);
    }
  });

  it('runs several trials at once in one worker, each ended on its own; a slot freed takes the next trial', async () => {
    const storage = openSqliteStorage(join(dir, 'slots.db'));
    await storage.createStudy({ name: 's', direction: 'minimize' });
    let running = 0;
    let most = 0;
    const pids = new Set<number>();
    try {
      const summary = await runWorkers(storage, 's', {
        workers: 1,
        trialsPerWorker: 3,
        nTrials: 8,
        objective: objective('mixed-outcomes.mjs'),
        onTrialStart: ({ pid }) => {
          pids.add(pid);
          most = Math.max(most, ++running);
        },
        onTrialEnd: () => running--,
      });
      // Per trial, by its number: complete, failed, pruned, complete (mixed-outcomes.mjs).
      expect([summary.complete, summary.failed, summary.pruned]).toEqual([4, 2, 2]);
      expect(summary.started).toBe(1);
      const trials = await storage.getTrials((await storage.getStudy('s')).id);
      expect(trials.map((t) => t.number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(trials.map((t) => t.state)).toEqual(
        trials.map((t) => ['complete', 'fail', 'pruned', 'complete'][t.number % 4]),
      );
    } finally {
      await storage.close();
    }
    expect(pids.size).toBe(1);
    expect(most).toBe(3);
  });

  it('fails and retries every trial of a worker killed while it ran several', async () => {
    const storage = openSqliteStorage(join(dir, 'slots-kill.db'));
    await storage.createStudy({ name: 'k', direction: 'minimize' });
    let starts = 0;
    try {
      const summary = await runWorkers(storage, 'k', {
        workers: 1,
        trialsPerWorker: 3,
        nTrials: 6,
        objective: objective('slow-quadratic.mjs'),
        heartbeatIntervalMs: 100,
        onTrialStart: ({ pid }) => {
          if (++starts === 3) process.kill(pid, 'SIGKILL');
        },
      });
      expect(summary.complete).toBe(6);
      expect(summary.lost).toBe(3);
      expect(summary.started).toBe(2);
      const trials = await storage.getTrials((await storage.getStudy('k')).id);
      const failed = trials.filter((t) => t.state === 'fail');
      expect(failed.map((t) => t.failReason)).toEqual(Array(3).fill('worker exited (SIGKILL)'));
      for (const lost of failed)
        expect(trials.find((t) => t.retryOf === lost.number)?.state).toBe('complete');
      expect(trials.filter((t) => t.state === 'complete')).toHaveLength(6);
    } finally {
      await storage.close();
    }
  });

  it('refuses more trials per worker than it can heartbeat', async () => {
    const storage = openSqliteStorage(join(dir, 'slots-bad.db'));
    await storage.createStudy({ name: 'b', direction: 'minimize' });
    try {
      await expect(
        runWorkers(storage, 'b', {
          workers: 1,
          trialsPerWorker: 65,
          objective: objective('slow-quadratic.mjs'),
        }),
      ).rejects.toThrow('trials per worker: 65 is not a whole number from 1 to 64');
    } finally {
      await storage.close();
    }
  });

  it('gives up with a clear error when workers cannot load the objective', async () => {
    const storage = openSqliteStorage(join(dir, 'bad.db'));
    await storage.createStudy({ name: 'x', direction: 'minimize' });
    await expect(
      runWorkers(storage, 'x', { workers: 2, nTrials: 4, objective: objective('no-export.mjs') }),
    ).rejects.toThrow(/exports no objective/);
    await storage.close();
  });
});

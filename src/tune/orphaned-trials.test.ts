import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemoryStorage } from '../storage/memory-storage.js';
import { failOrphanedTrials } from './orphaned-trials.js';

/** The pid of a process that has exited (a pid nobody holds now). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '']);
  return done.pid;
}

const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
afterAll(() => {
  sleeper.kill();
});

describe('failOrphanedTrials', () => {
  it("fails the running trials of this machine's runs that are gone, and leaves live and other machines' ones", async () => {
    const storage = openMemoryStorage();
    const study = await storage.createStudy({ name: 's', direction: 'maximize' });
    const host = hostname();
    const gone = `${host}:${deadPid()}:0/w0`;
    const live = `${host}:${sleeper.pid ?? 0}:0/w1`;
    const elsewhere = `another-host:${deadPid()}:0/w0`;
    for (const workerId of [gone, live, elsewhere]) {
      await storage.enqueueTrial(study.id, { params: {} });
      await storage.claimTrial(study.id, workerId);
    }
    expect(await failOrphanedTrials(storage, study.id, 2)).toBe(1);
    const trials = await storage.getTrials(study.id);
    const byWorker = new Map(trials.map((t) => [t.workerId, t]));
    expect(byWorker.get(gone)?.state).toBe('fail');
    expect(byWorker.get(gone)?.failReason).toMatch(
      /^interrupted: the run that started its worker \(pid \d+\) is gone$/,
    );
    expect(byWorker.get(live)?.state).toBe('running');
    expect(byWorker.get(elsewhere)?.state).toBe('running');
    // Retried: a waiting trial took its place.
    expect(trials.filter((t) => t.state === 'waiting' && t.retryOf !== null)).toHaveLength(1);
  });
});

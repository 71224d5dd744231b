import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines } from './support/run-cli.js';
import {
  cli,
  cliInProcess,
  createStudy,
  OBJECTIVES,
  project,
  SLOW_QUADRATIC,
  sleep,
  start,
  trialsOf,
  untilRunning,
} from './support/study-project.js';

/*
 * `tradelab study run` stopped part-way, as real processes: Ctrl-C once and twice (to the process
 * or its whole group), the parent killed under its workers, and `study fail-stale` after a crash.
 * The studies are created through the library (createStudy); `study create` is tested in
 * study-cli.test.ts.
 */

describe('study run interrupted', () => {
  it('Ctrl-C once lets running trials finish, starts no more, and exits 130', async () => {
    const dir = project();
    await createStudy(dir, 'stop1');
    const args = ['study', 'run', 'stop1', '--objective', SLOW_QUADRATIC, '--trials', '20'];
    const running = start(dir, [...args, '--workers', '2'], 1500);
    const before = await untilRunning(dir, 'stop1', 2);
    process.kill(running.pid, 'SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('finishing running trials; Ctrl-C again stops them');
    expect(result.stdout).toMatch(/^Interrupted after \d+ trials in /m);
    const after = await trialsOf(dir, 'stop1');
    expect(after.filter((t) => t.state !== 'complete')).toEqual([]);
    expect(after.length).toBeLessThan(20);
    for (const trial of before)
      expect(after.find((t) => t.id === trial.id)?.state, `trial ${trial.number}`).toBe('complete');
  });

  // A terminal's Ctrl-C signals the whole foreground process group, trial workers included: they
  // must leave it to the parent (finish the trial, then stop), not die with their trials.
  it('Ctrl-C in a terminal (SIGINT to the process group) lets running trials finish', async () => {
    const dir = project();
    await createStudy(dir, 'stopg');
    const args = ['study', 'run', 'stopg', '--objective', SLOW_QUADRATIC, '--trials', '20'];
    const running = start(dir, [...args, '--workers', '2'], 1500, true);
    await untilRunning(dir, 'stopg', 2);
    process.kill(-running.pid, 'SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    const after = await trialsOf(dir, 'stopg');
    expect(after.filter((t) => t.state !== 'complete')).toEqual([]);
  });

  it('Ctrl-C twice stops running trials: they fail "interrupted" and are re-enqueued', async () => {
    const dir = project();
    await createStudy(dir, 'stop2');
    const args = ['study', 'run', 'stop2', '--objective', SLOW_QUADRATIC, '--trials', '20'];
    // Three workers: stopping them must not read as three workers dying early.
    const running = start(dir, [...args, '--workers', '3', '--json'], 20_000);
    const before = await untilRunning(dir, 'stop2', 3);
    process.kill(running.pid, 'SIGINT');
    await sleep(200);
    process.kill(running.pid, 'SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Ctrl-C again stops them');
    expect(result.stderr).toContain('stopping running trials');
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({
      type: 'summary',
      complete: 0,
      lost: 3,
      interrupted: 'SIGINT',
      waiting: 3,
    });
    const after = await trialsOf(dir, 'stop2');
    expect(after.filter((t) => t.state === 'running')).toEqual([]);
    for (const trial of before) {
      expect(after.find((t) => t.id === trial.id)).toMatchObject({
        state: 'fail',
        failReason: 'interrupted',
      });
      const retry = after.find((t) => t.retryOf === trial.number);
      expect(retry).toMatchObject({
        state: 'waiting',
        params: after.find((t) => t.id === trial.id)?.params,
      });
    }
  });
});

describe('study run killed', () => {
  /** Whether process `pid` still runs (a zombie, dead but not reaped by PID 1, does not). */
  const alive = (pid: number): boolean => {
    try {
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
    } catch {
      return false;
    }
  };

  it('stops its workers, which fail their trials for a retry instead of training on as orphans', async () => {
    const dir = project();
    await createStudy(dir, 'orphans', { sampler: { type: 'random' } });
    const args = ['study', 'run', 'orphans', '--objective', join(OBJECTIVES, 'long-trial.mjs')];
    const running = start(dir, [...args, '--trials', '2', '--workers', '2'], 0);
    await untilRunning(dir, 'orphans', 2);
    let pids: number[] = [];
    while (pids.length < 2) {
      await sleep(50);
      pids = readdirSync(dir)
        .filter((f) => f.startsWith('worker-'))
        .map((f) => Number(f.slice('worker-'.length)));
    }
    process.kill(running.pid, 'SIGKILL'); // the parent alone: its workers see the channel close
    await running.done;
    const deadline = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(100);
    expect(pids.filter(alive)).toEqual([]);
    const trials = await trialsOf(dir, 'orphans');
    const reason = 'interrupted: the study run that started this worker ended';
    expect(trials.filter((t) => t.state === 'fail').map((t) => t.failReason)).toEqual([
      reason,
      reason,
    ]);
    expect(
      trials
        .filter((t) => t.state === 'waiting')
        .map((t) => t.retryOf)
        .sort(),
    ).toEqual([0, 1]);
  });
});

describe('study fail-stale', () => {
  it('fails a trial left running by a killed process and re-enqueues it', async () => {
    const dir = project();
    await createStudy(dir, 'crash');
    const args = ['study', 'run', 'crash', '--objective', SLOW_QUADRATIC, '--trials', '1'];
    // Its own process group, so one SIGKILL takes the CLI and its worker, as a dead machine would.
    const running = start(dir, [...args, '--workers', '1'], 60_000, true);
    const [trial] = await untilRunning(dir, 'crash', 1);
    process.kill(-running.pid, 'SIGKILL');
    await running.done;

    const fresh = await cli(dir, 'study', 'fail-stale');
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('No running trial in any study has a heartbeat older than 60 s');
    expect((await trialsOf(dir, 'crash')).map((t) => t.state)).toEqual(['running']);

    const refused = await cliInProcess(dir, 'study', 'rm', 'crash');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('study "crash" has 1 running trial; not removed');

    await sleep(1100);
    const stale = await cli(dir, 'study', 'fail-stale', '--study', 'crash', '--grace', '1');
    expect(stale.code).toBe(0);
    expect(stale.stdout).toMatch(
      /^study "crash" trial 0 \(worker .+, last heartbeat \d+ s ago\): failed; retried as trial 1$/m,
    );
    expect(stale.stdout).toContain('Failed 1 stale trial in study "crash", enqueued 1 retry;');
    expect(await trialsOf(dir, 'crash')).toEqual([
      expect.objectContaining({ number: 0, state: 'fail', failReason: 'stale heartbeat' }),
      expect.objectContaining({
        number: 1,
        state: 'waiting',
        retryOf: 0,
        params: trial?.params,
      }),
    ]);
    const show = await cliInProcess(dir, 'study', 'show', 'crash');
    expect(show.stdout).toContain('trials           2 (1 waiting, 1 failed and retried)');
  });
});

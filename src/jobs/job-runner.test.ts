import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import type { JobQueue, JobRecord, JobState } from './job-queue.js';
import { JobRunner, type JobEvent } from './job-runner.js';
import { openSqliteJobQueue } from './sqlite-job-queue.js';

// A stand-in for a tradelab command: real processes, so the runner's spawning, streams, signals
// and exit codes are what is tested.
const dir = tempDir('tradelab-runner-');
const script = join(dir, 'job.mjs');
writeFileSync(
  script,
  `const [mode] = process.argv.slice(2);
if (process.channel) process.channel.unref();
if (mode === 'ok') {
  console.error('progress: 50% (1/2 steps), 1 steps/s, ETA 1 s');
  console.log(JSON.stringify({ type: 'progress', percent: 50, done: 1, total: 2, unit: 'steps', perSecond: 1, etaS: 1, text: '50% (1/2 steps)' }));
  console.log(JSON.stringify({ row: 1 }));
  console.log('plain text');
  console.error('progress: 100% (2/2 steps), 1 steps/s, ETA 0 s');
  console.log(JSON.stringify({ type: 'progress', percent: 100, done: 2, total: 2, unit: 'steps', perSecond: 1, etaS: 0, text: '100% (2/2 steps)' }));
  console.log(JSON.stringify({ row: 2 }));
} else if (mode === 'fail') {
  console.error('error [DATASET_NOT_FOUND]: no dataset "X:1h"');
  process.exitCode = 2;
} else if (mode === 'wait') {
  process.on('SIGTERM', () => { console.error('stopping'); process.exit(130); });
  console.error('waiting');
  setInterval(() => {}, 1000);
}
`,
);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const submit = (queue: JobQueue, mode: string, slots = 1): Promise<JobRecord> =>
  queue.submit({ request: { command: mode, positionals: [], options: {} }, argv: [mode], slots });

/** Waits until job `id` is in `state`. */
async function until(queue: JobQueue, id: number, states: JobState[]): Promise<JobRecord> {
  for (let i = 0; i < 400; i++) {
    const job = await queue.get(id);
    if (states.includes(job.state)) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${id} never reached ${states.join('|')}`);
}

/** Whether job `id` has printed the line `text` by now. */
const printed = (events: JobEvent[], id: number, text: string): boolean =>
  events.some((e) => e.type === 'log' && e.id === id && e.lines.some((l) => l.text === text));

function runnerOf(queue: JobQueue, events: JobEvent[] = [], slots = 2): JobRunner {
  return new JobRunner({
    queue,
    slots,
    command: [process.execPath, script],
    cwd: dir,
    pollMs: 50,
    cancelGraceMs: 2000,
    onEvent: (e) => events.push(e),
  });
}

describe('JobRunner', () => {
  it('runs a job: progress, log, JSON result rows, succeeded', async () => {
    const queue = openSqliteJobQueue(join(dir, 'ok.db'));
    const events: JobEvent[] = [];
    const runner = runnerOf(queue, events);
    await runner.start();
    const { id } = await submit(queue, 'ok');
    runner.wake();
    const job = await until(queue, id, ['succeeded', 'failed']);
    expect(job.state).toBe('succeeded');
    expect(job.exitCode).toBe(0);
    expect(job.result).toEqual([{ row: 1 }, { row: 2 }]);
    expect(job.progress?.percent).toBe(100);
    expect((await queue.readLog(id)).map((l) => l.text)).toEqual([
      '{"row":1}',
      'plain text',
      '{"row":2}',
    ]);
    expect(events.some((e) => e.type === 'job' && e.job.progress?.percent === 50)).toBe(true);
    expect(events.some((e) => e.type === 'log' && e.id === id)).toBe(true);
    await runner.stop();
    await queue.close();
  });

  it('records a failure with the error line the command printed', async () => {
    const queue = openSqliteJobQueue(':memory:');
    const runner = runnerOf(queue);
    await runner.start();
    const { id } = await submit(queue, 'fail');
    runner.wake();
    const job = await until(queue, id, ['succeeded', 'failed']);
    expect(job.state).toBe('failed');
    expect(job.exitCode).toBe(2);
    expect(job.error).toBe('error [DATASET_NOT_FOUND]: no dataset "X:1h"');
    await runner.stop();
    await queue.close();
  });

  it('cancels a running job with SIGTERM, and keeps to its slots', async () => {
    const queue = openSqliteJobQueue(':memory:');
    const events: JobEvent[] = [];
    const runner = runnerOf(queue, events, 1);
    await runner.start();
    const first = await submit(queue, 'wait');
    const second = await submit(queue, 'ok');
    runner.wake();
    // Its SIGTERM handler is in place once it printed "waiting": on a loaded machine Node's
    // start can take longer than any fixed wait, and a SIGTERM before that kills it outright.
    for (let i = 0; i < 400 && !printed(events, first.id, 'waiting'); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(printed(events, first.id, 'waiting')).toBe(true);
    // One slot: the second job waits for the first.
    await new Promise((r) => setTimeout(r, 200));
    expect((await queue.get(second.id)).state).toBe('queued');
    await queue.cancel(first.id);
    runner.wake();
    const cancelled = await until(queue, first.id, ['cancelled', 'failed']);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.exitCode).toBe(130);
    expect((await until(queue, second.id, ['succeeded'])).state).toBe('succeeded');
    await runner.stop();
    await queue.close();
  });

  it('on start, interrupts the jobs of a runner that died; on stop, its own running ones', async () => {
    const queue = openSqliteJobQueue(join(dir, 'restart.db'));
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = await submit(queue, 'ok');
    await queue.claim(`${hostname()}:${deadPid}`, 1);
    const runner = runnerOf(queue);
    const interrupted = await runner.start();
    expect(interrupted.map((j) => j.id)).toEqual([orphan.id]);
    expect((await queue.get(orphan.id)).state).toBe('interrupted');
    const waiting = await submit(queue, 'wait');
    runner.wake();
    await until(queue, waiting.id, ['running']);
    await new Promise((r) => setTimeout(r, 200));
    await runner.stop();
    const stopped = await queue.get(waiting.id);
    expect(stopped.state).toBe('interrupted');
    const retry = await queue.retry(waiting.id);
    expect(retry.state).toBe('queued');
    await queue.close();
  });
});

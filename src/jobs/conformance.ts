import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TradelabError } from '../core/index.js';
import type { JobQueue, NewJob } from './job-queue.js';

/*
 * The job queue contract (job-queue.ts) as tests, run against every implementation with a factory
 * for a fresh queue. Test-only: the build leaves this file out.
 */

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    return error as TradelabError;
  }
  throw new Error('expected a rejection');
}

const job = (command: string, slots = 1): NewJob => ({
  request: { command, positionals: [], options: { steps: '64', quick: true } },
  argv: [...command.split(' '), '--steps', '64'],
  slots,
});

export function describeJobQueueConformance(label: string, open: () => Promise<JobQueue>): void {
  describe(`${label}: job queue contract`, () => {
    let queue: JobQueue;
    beforeEach(async () => {
      queue = await open();
    });
    afterEach(async () => {
      await queue.close();
    });

    it('submits, reads back and lists jobs newest first, with filters', async () => {
      const a = await queue.submit(job('train ppo'));
      const b = await queue.submit(job('bench env'));
      expect(a.state).toBe('queued');
      expect(b.id).toBeGreaterThan(a.id);
      expect(await queue.get(a.id)).toEqual(a);
      expect(a.request).toEqual({
        command: 'train ppo',
        positionals: [],
        options: { steps: '64', quick: true },
      });
      expect(a.argv).toEqual(['train', 'ppo', '--steps', '64']);
      expect((await queue.list()).map((j) => j.id)).toEqual([b.id, a.id]);
      expect((await queue.list({ command: 'bench env' })).map((j) => j.id)).toEqual([b.id]);
      expect((await queue.list({ beforeId: b.id })).map((j) => j.id)).toEqual([a.id]);
      expect(await queue.list({ states: ['running'] })).toEqual([]);
      expect((await queue.list({ limit: 1 })).length).toBe(1);
      const missing = await rejection(queue.get(99_999));
      expect(missing.code).toBe('JOB_NOT_FOUND');
    });

    it('claims the oldest job that fits the free slots, each once', async () => {
      const big = await queue.submit(job('campaign run', 4));
      const small = await queue.submit(job('bench env'));
      const first = await queue.claim('host:1', 2);
      expect(first?.id).toBe(small.id);
      expect(first?.state).toBe('running');
      expect(first?.runner).toBe('host:1');
      expect(first?.startedAt).not.toBeNull();
      expect(await queue.claim('host:2', 2)).toBeUndefined();
      const second = await queue.claim('host:2', 4);
      expect(second?.id).toBe(big.id);
      expect(await queue.claim('host:1', 8)).toBeUndefined();
    });

    it('keeps progress, the pid, the log in order and the outcome', async () => {
      const { id } = await queue.submit(job('train ppo'));
      await queue.claim('host:1', 1);
      await queue.setPid(id, 4242);
      await queue.setProgress(id, { percent: 42, text: '42% (…)', at: 1 });
      await queue.appendLog(id, [
        { stream: 'stderr', text: 'one', at: 1 },
        { stream: 'stdout', text: '{"a":1}', at: 2 },
      ]);
      await queue.appendLog(id, [{ stream: 'stderr', text: 'three', at: 3 }]);
      const log = await queue.readLog(id);
      expect(log.map((l) => [l.seq, l.stream, l.text])).toEqual([
        [1, 'stderr', 'one'],
        [2, 'stdout', '{"a":1}'],
        [3, 'stderr', 'three'],
      ]);
      expect((await queue.readLog(id, 1, 1)).map((l) => l.text)).toEqual(['{"a":1}']);
      const running = await queue.get(id);
      expect(running.pid).toBe(4242);
      expect(running.progress).toEqual({ percent: 42, text: '42% (…)', at: 1 });
      const done = await queue.finish(id, {
        state: 'succeeded',
        exitCode: 0,
        error: null,
        result: [{ a: 1 }],
      });
      expect(done.state).toBe('succeeded');
      expect(done.result).toEqual([{ a: 1 }]);
      expect(done.finishedAt).not.toBeNull();
      // An ended job stays as it ended.
      const again = await queue.finish(id, {
        state: 'failed',
        exitCode: 1,
        error: 'x',
        result: [],
      });
      expect(again.state).toBe('succeeded');
    });

    it('cancels a queued job at once and flags a running one', async () => {
      const queued = await queue.submit(job('bench env'));
      const running = await queue.submit(job('train ppo'));
      // Claim the second: the first is cancelled before it can start.
      const cancelledQueued = await queue.cancel(queued.id);
      expect(cancelledQueued.state).toBe('cancelled');
      expect((await queue.claim('host:1', 1))?.id).toBe(running.id);
      const flagged = await queue.cancel(running.id);
      expect(flagged.state).toBe('running');
      expect(flagged.cancelRequested).toBe(true);
      const ended = await rejection(queue.cancel(queued.id));
      expect(ended.code).toBe('JOB_ENDED');
    });

    it('retries an ended job as a new queued one, never a running one', async () => {
      const { id } = await queue.submit(job('train ppo'));
      await queue.claim('host:1', 1);
      expect((await rejection(queue.retry(id))).code).toBe('JOB_NOT_ENDED');
      await queue.finish(id, { state: 'failed', exitCode: 1, error: 'boom', result: [] });
      const retry = await queue.retry(id);
      expect(retry.state).toBe('queued');
      expect(retry.retryOf).toBe(id);
      expect(retry.argv).toEqual(['train', 'ppo', '--steps', '64']);
    });

    it('interrupts running jobs whose runner stopped, and only those', async () => {
      const a = await queue.submit(job('train ppo'));
      const b = await queue.submit(job('bench env'));
      await queue.claim('host:1', 1);
      await queue.claim('host:2', 1);
      await queue.heartbeat([a.id, b.id]);
      expect(await queue.interruptStale(60_000)).toEqual([]);
      const interrupted = await queue.interruptStale(60_000, ['host:1']);
      expect(interrupted.map((j) => j.id)).toEqual([a.id]);
      expect(interrupted[0]?.state).toBe('interrupted');
      expect(interrupted[0]?.error).toMatch(/host:1/);
      await new Promise((r) => setTimeout(r, 5));
      expect((await queue.interruptStale(1)).map((j) => j.id)).toEqual([b.id]);
      expect((await queue.get(b.id)).state).toBe('interrupted');
    });
  });
}

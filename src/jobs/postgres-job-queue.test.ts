import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshPostgresDatabase,
  TEST_POSTGRES_URL,
  withSchema,
} from '../../test/support/postgres-database.js';
import { TradelabError } from '../core/index.js';
import { openPostgresStorage } from '../storage/postgres-storage.js';
import { describeJobQueueConformance } from './conformance.js';
import type { JobQueue, NewJob } from './job-queue.js';
import { openJobQueue } from './open-job-queue.js';
import { openPostgresJobQueue } from './postgres-job-queue.js';
import { MAX_LOG_LINES } from './job-queue.js';

/*
 * The PostgreSQL job queue against a real server (test/support/postgres-global-setup.ts provides
 * one, or skips this file when there is none). This file gets its own database, and each test its
 * own schema in it, so tests never see each other's jobs.
 */

/** The error `promise` rejects with (fails the test if it resolves or rejects with another type). */
async function rejection(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const job = (command: string): NewJob => ({
  request: { command, positionals: [], options: {} },
  argv: command.split(' '),
  slots: 1,
});

describe.skipIf(TEST_POSTGRES_URL === '')('PostgreSQL job queue', () => {
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let admin = new pg.Client();
  let schemas = 0;
  const opened: { close: () => Promise<void> }[] = [];

  beforeAll(async () => {
    database = await freshPostgresDatabase('tradelab_jobs_test');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await Promise.all(opened.map((q) => q.close()));
    if (database === undefined) return; // beforeAll failed: no database to drop
    await admin.end();
    await database.drop();
  });

  /** The URL of a new, empty schema in this file's database. */
  async function freshSchemaUrl(): Promise<{ url: string; schema: string }> {
    const schema = `s${++schemas}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    return { url: withSchema(database?.url ?? '', schema), schema };
  }

  async function open(url: string): Promise<JobQueue> {
    const queue = await openPostgresJobQueue(url);
    opened.push(queue);
    return queue;
  }

  describeJobQueueConformance('postgres:', async () => open((await freshSchemaUrl()).url));

  describe('PostgreSQL specifics', () => {
    it('gives each queued job to exactly one of two services claiming at once', async () => {
      const { url } = await freshSchemaUrl();
      // Two pools stand in for two services on two machines: no shared state but the database.
      const services = [await open(url), await open(url)];
      const [first] = services as [JobQueue, JobQueue];
      const submitted: number[] = [];
      for (let i = 0; i < 20; i++) submitted.push((await first.submit(job(`bench env`))).id);

      // Each service claims with three loops at once, until nothing is left.
      const claimed = await Promise.all(
        services.flatMap((queue, s) =>
          Array.from({ length: 3 }, async () => {
            const mine: { id: number; runner: string | null }[] = [];
            for (;;) {
              const next = await queue.claim(`host${s}:1`, 1);
              if (next === undefined) return mine;
              mine.push({ id: next.id, runner: next.runner });
            }
          }),
        ),
      );

      const ids = claimed.flat().map((c) => c.id);
      expect(ids.sort((a, b) => a - b)).toEqual(submitted);
      const stored = await first.list({ limit: 100 });
      expect(stored.every((j) => j.state === 'running')).toBe(true);
      for (const c of claimed.flat())
        expect(stored.find((j) => j.id === c.id)?.runner).toBe(c.runner);
      expect(await first.claim('host0:1', 1)).toBeUndefined();
    });

    it('numbers the lines of appends that race without gaps or repeats', async () => {
      const { url } = await freshSchemaUrl();
      const [a, b] = [await open(url), await open(url)];
      const { id } = await a.submit(job('train ppo'));
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).appendLog(
            id,
            Array.from({ length: 5 }, (_, j) => ({
              stream: 'stderr' as const,
              text: `${i}.${j}`,
              at: i,
            })),
          ),
        ),
      );
      const log = await b.readLog(id);
      expect(log.map((l) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      // Each append's lines stay together and in order.
      for (let start = 0; start < 50; start += 5) {
        const batch = log.slice(start, start + 5).map((l) => l.text);
        const append = (batch[0] ?? '').split('.')[0] ?? '';
        expect(batch).toEqual(Array.from({ length: 5 }, (_, j) => `${append}.${j}`));
      }
    });

    it(`keeps the first ${MAX_LOG_LINES} log lines of a job and counts the rest`, async () => {
      const { url, schema } = await freshSchemaUrl();
      const queue = await open(url);
      const { id } = await queue.submit(job('bench env'));
      const lines = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({
          stream: 'stdout' as const,
          text: `line ${from + i}`,
          at: from + i,
        }));
      await queue.appendLog(id, lines(1, MAX_LOG_LINES - 2));
      await queue.appendLog(id, lines(MAX_LOG_LINES - 1, 5));
      await queue.appendLog(id, lines(MAX_LOG_LINES + 4, 1));
      const last = await queue.readLog(id, MAX_LOG_LINES - 3);
      expect(last.map((l) => [l.seq, l.text])).toEqual([
        [MAX_LOG_LINES - 2, `line ${MAX_LOG_LINES - 2}`],
        [MAX_LOG_LINES - 1, `line ${MAX_LOG_LINES - 1}`],
        [MAX_LOG_LINES, `line ${MAX_LOG_LINES}`],
      ]);
      const counted = await admin.query<{ log_lines: number }>(
        `SELECT log_lines FROM ${schema}.tradelab_jobs WHERE id = $1`,
        [id],
      );
      expect(counted.rows).toEqual([{ log_lines: MAX_LOG_LINES + 4 }]);
    });

    it('stores a log line with a NUL character, and says JOB_NOT_FOUND for a missing job', async () => {
      const queue = await open((await freshSchemaUrl()).url);
      const { id } = await queue.submit(job('bench env'));
      await queue.appendLog(id, [{ stream: 'stdout', text: 'a\u0000b', at: 1 }]);
      expect((await queue.readLog(id)).map((l) => l.text)).toEqual(['a\uFFFDb']);
      const missing = 99_999;
      for (const call of [
        () => queue.appendLog(missing, [{ stream: 'stdout', text: 'x', at: 1 }]),
        () => queue.readLog(missing),
        () => queue.finish(missing, { state: 'failed', exitCode: 1, error: null, result: [] }),
        () => queue.cancel(missing),
        () => queue.retry(missing),
      ])
        expect((await rejection(call())).code).toBe('JOB_NOT_FOUND');
    });

    it('shares a database schema with the study storage', async () => {
      const { url, schema } = await freshSchemaUrl();
      const queue = await open(url);
      const storage = await openPostgresStorage(url, {});
      opened.push(storage);
      const study = await storage.createStudy({ name: 's', direction: 'maximize' });
      const trial = await storage.claimTrial(study.id, 'w');
      const submitted = await queue.submit(job('study run'));
      const claimed = await queue.claim('host:1', 1);
      expect(claimed?.id).toBe(submitted.id);
      expect(typeof claimed?.startedAt).toBe('number');

      const tables = await admin.query<{ tablename: string }>(
        'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
        [schema],
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual([
        'artifacts',
        'studies',
        'tradelab_job_log',
        'tradelab_jobs',
        'tradelab_schema',
        'trials',
      ]);
      // Both open again over each other's tables, and each finds what it left.
      const reopened = await open(url);
      const storageAgain = await openPostgresStorage(url, {});
      opened.push(storageAgain);
      expect((await reopened.get(submitted.id)).state).toBe('running');
      expect((await storageAgain.getTrial(trial.id)).state).toBe('running');
    });

    it('creates the tables once when several services open a fresh schema at once', async () => {
      const { url } = await freshSchemaUrl();
      const queues = await Promise.all(Array.from({ length: 6 }, () => open(url)));
      const { id } = await (queues[0] as JobQueue).submit(job('bench env'));
      expect((await (queues[5] as JobQueue).get(id)).state).toBe('queued');
    });

    it('is what openJobQueue opens for a postgres:// URL, its password masked', async () => {
      const { url } = await freshSchemaUrl();
      // Trust auth ignores the password; what matters is where it shows.
      const withPassword = new URL(url);
      withPassword.password = 's3cret';
      const queue = await openJobQueue(withPassword.toString(), '/');
      opened.push(queue);
      expect(queue.url).toContain(':***@');
      expect(queue.url).not.toContain('s3cret');
      const { id } = await queue.submit(job('bench env'));
      expect((await (await open(url)).get(id)).id).toBe(id);
      await queue.close();
      await queue.close();
      expect((await rejection(queue.get(id))).code).toBe('STORAGE_UNAVAILABLE');
    });

    it('says STORAGE_UNAVAILABLE, password masked, when the server cannot be reached', async () => {
      // Port 1 on 127.0.0.1: nothing listens there.
      const error = await rejection(
        openPostgresJobQueue('postgres://tradelab:s3cret@127.0.0.1:1/studies'),
      );
      expect(error.code).toBe('STORAGE_UNAVAILABLE');
      expect(error.message).toContain('postgres://tradelab:***@127.0.0.1:1/studies');
      expect(error.message).not.toContain('s3cret');
      expect(error.hint).toContain('running');

      const noDatabase = new URL(database?.url ?? '');
      noDatabase.pathname = `${noDatabase.pathname}_missing`;
      const missing = await rejection(openPostgresJobQueue(noDatabase.toString()));
      expect(missing.code).toBe('STORAGE_UNAVAILABLE');
      expect(missing.hint).toContain('createdb');

      expect((await rejection(openPostgresJobQueue('mysql://h/db'))).code).toBe(
        'INVALID_STORAGE_URL',
      );
      expect((await rejection(openJobQueue('mysql://h/db', '/'))).code).toBe('INVALID_STORAGE_URL');
    });
  });
});

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import { TradelabError } from '../core/index.js';
import { describeStorageConformance } from './conformance.js';
import { openPostgresStorage } from './postgres-storage.js';
import { maskPostgresUrl } from './postgres-url.js';
import type { Distribution, TrialRecord } from './records.js';
import type { StorageOptions } from './storage-options.js';
import type { StudyStorage } from './study-storage.js';
import { withDatabase, withSchema } from '../../test/support/postgres-database.js';

/*
 * The PostgreSQL storage against a real server (test/support/postgres-global-setup.ts provides
 * one, or skips this file when there is none). This file gets its own database, and each test its
 * own schema in it, so test files and tests never see each other's studies.
 */

const ADMIN_URL = inject('postgresUrl');
const FLOAT: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };

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

describe.skipIf(ADMIN_URL === '')('PostgreSQL storage', () => {
  const database = `tradelab_test_${process.pid}_${Date.now()}`;
  let artifactDir = '';
  let databaseUrl = '';
  let admin = new pg.Client();
  let schemas = 0;
  const opened: StudyStorage[] = [];

  beforeAll(async () => {
    artifactDir = tempDir('tradelab-pg-artifacts-');
    const server = new pg.Client({ connectionString: ADMIN_URL });
    try {
      await server.connect();
    } catch (error) {
      throw new Error(
        `cannot reach the test PostgreSQL server ${maskPostgresUrl(ADMIN_URL)}: ${String(error)}`,
        { cause: error },
      );
    }
    try {
      await server.query(`CREATE DATABASE ${database}`);
    } finally {
      await server.end();
    }
    databaseUrl = withDatabase(ADMIN_URL, database);
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
  });

  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    if (artifactDir !== '') rmSync(artifactDir, { recursive: true, force: true });
    if (databaseUrl === '') return; // beforeAll failed: no database to drop
    await admin.end();
    const server = new pg.Client({ connectionString: ADMIN_URL });
    await server.connect();
    try {
      await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await server.end();
    }
  });

  /** The URL of a new, empty schema in this file's database. */
  async function freshSchemaUrl(): Promise<{ url: string; schema: string }> {
    const schema = `s${++schemas}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    return { url: withSchema(databaseUrl, schema), schema };
  }

  async function open(url: string, options: StorageOptions = {}): Promise<StudyStorage> {
    const storage = await openPostgresStorage(url, options);
    opened.push(storage);
    return storage;
  }

  describeStorageConformance('postgres:', async () => open((await freshSchemaUrl()).url));

  describe('PostgreSQL specifics', () => {
    it('gives each waiting trial to exactly one of 8 processes, numbers dense and unique', async () => {
      const { url } = await freshSchemaUrl();
      // Eight pools stand in for eight worker processes: separate connections, no shared state.
      const workers = await Promise.all(Array.from({ length: 8 }, () => open(url)));
      const first = workers[0] as StudyStorage;
      const study = await first.createStudy({ name: 's', direction: 'minimize' });
      const waiting: TrialRecord[] = [];
      for (let i = 0; i < 24; i++)
        waiting.push(await first.enqueueTrial(study.id, { params: { i } }));

      const claims = (
        await Promise.all(
          workers.map((worker, w) =>
            Promise.all(Array.from({ length: 6 }, () => worker.claimTrial(study.id, `w${w}`))),
          ),
        )
      ).flat();

      expect(claims.map((t) => t.number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 48 }, (_, i) => i),
      );
      const claimedWaiting = claims.filter((t) => 'i' in t.params).map((t) => t.id);
      expect(claimedWaiting.sort((a, b) => a - b)).toEqual(waiting.map((t) => t.id));
      const stored = await first.getTrials(study.id);
      expect(stored).toHaveLength(48);
      expect(stored.every((t) => t.state === 'running')).toBe(true);
      for (const claim of claims)
        expect(stored.find((t) => t.id === claim.id)?.workerId).toBe(claim.workerId);
    });

    it('stops 8 processes claiming against one target exactly at it, while trials end meanwhile', async () => {
      const { url } = await freshSchemaUrl();
      // Eight pools stand in for `campaign run` on eight machines sharing the database; closed
      // here, not with the file's others: their 48 connections would crowd the server.
      const workers = await Promise.all(
        Array.from({ length: 8 }, () => openPostgresStorage(url, {})),
      );
      try {
        await claimToTarget(workers);
      } finally {
        await Promise.all(workers.map((w) => w.close()));
      }
    });

    /** Eight storages claim against one study's target of 18 at once; exactly 18 are claimed. */
    async function claimToTarget(workers: StudyStorage[]): Promise<void> {
      const first = workers[0] as StudyStorage;
      const study = await first.createStudy({ name: 's', direction: 'minimize' });
      for (let i = 0; i < 4; i++) await first.enqueueTrial(study.id, { params: { i } });
      const claims = (
        await Promise.all(
          workers.map((worker, w) =>
            Promise.all(
              Array.from({ length: 6 }, async () => {
                const trial = await worker.claimTrial(study.id, `w${w}`, { maxTrials: 18 });
                // Ending a trial changes nothing of the count: a claim racing it still stops.
                if (trial !== undefined)
                  await worker.finishTrial(trial.id, { state: 'complete', value: trial.number });
                return trial;
              }),
            ),
          ),
        )
      ).flat();
      const claimed = claims.filter((t) => t !== undefined);
      expect(claimed.map((t) => t.number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 18 }, (_, i) => i),
      );
      expect(claimed.filter((t) => 'i' in t.params)).toHaveLength(4);
      expect(await first.getTrials(study.id)).toHaveLength(18);
    }

    it('retries a stale trial once when two processes fail stale trials at once', async () => {
      const { url, schema } = await freshSchemaUrl();
      const [a, b] = [await open(url), await open(url)];
      const study = await a.createStudy({ name: 's', direction: 'minimize' });
      const running = await Promise.all(
        Array.from({ length: 12 }, (_, i) => a.claimTrial(study.id, `w${i}`)),
      );
      for (const trial of running) await a.setTrialParam(trial.id, 'x', FLOAT, trial.number / 16);
      // Their workers died long ago.
      await admin.query(`UPDATE ${schema}.trials SET heartbeat_at = 0`);

      const results = await Promise.all([
        a.failStale(study.id, 60_000, { maxRetries: 1 }),
        b.failStale(study.id, 60_000, { maxRetries: 1 }),
        a.failStale(null, 60_000, { maxRetries: 1 }),
        b.failStale(null, 60_000, { maxRetries: 1 }),
      ]);

      const failed = results.flatMap((r) => r.failed.map((t) => t.number));
      const retried = results.flatMap((r) => r.retries.map((t) => t.retryOf));
      const numbers = running.map((t) => t.number).sort((x, y) => x - y);
      expect(failed.sort((x, y) => x - y)).toEqual(numbers);
      expect(retried.sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(numbers);
      const retries = await a.getTrials(study.id, ['waiting']);
      expect(retries.map((t) => t.number)).toEqual(Array.from({ length: 12 }, (_, i) => 12 + i));
      for (const retry of retries)
        expect(retry.params).toEqual({ x: (retry.retryOf ?? Number.NaN) / 16 });
    });

    it('creates the tables once when several processes open a fresh database at once', async () => {
      const { url, schema } = await freshSchemaUrl();
      const storages = await Promise.all(Array.from({ length: 6 }, () => open(url)));
      const versions = await admin.query(`SELECT version FROM ${schema}.tradelab_schema`);
      expect(versions.rows).toEqual([{ version: 1 }]);
      await (storages[0] as StudyStorage).createStudy({ name: 's', direction: 'maximize' });
      expect((await (storages[5] as StudyStorage).getStudy('s')).direction).toBe('maximize');
    });

    it('refuses a schema written by a newer tradelab', async () => {
      const { url, schema } = await freshSchemaUrl();
      await (await open(url)).close();
      await admin.query(`UPDATE ${schema}.tradelab_schema SET version = 2`);
      const error = await rejection(openPostgresStorage(url, {}));
      expect(error.code).toBe('STORAGE_SCHEMA');
      expect(error.message).toContain('schema 2, this one knows 1');
      expect(error.hint).toContain('upgrade tradelab');
    });

    it('says STORAGE_UNAVAILABLE, password masked, when the server cannot be reached', async () => {
      // Port 1 on 127.0.0.1: nothing listens there.
      const unreachable = 'postgres://tradelab:s3cret@127.0.0.1:1/studies';
      const error = await rejection(openPostgresStorage(unreachable, {}));
      expect(error.code).toBe('STORAGE_UNAVAILABLE');
      expect(error.message).toContain('postgres://tradelab:***@127.0.0.1:1/studies');
      expect(error.message).not.toContain('s3cret');
      expect(error.hint).toContain('running');

      const noDatabase = await rejection(
        openPostgresStorage(withDatabase(ADMIN_URL, `${database}_missing`), {}),
      );
      expect(noDatabase.code).toBe('STORAGE_UNAVAILABLE');
      expect(noDatabase.hint).toContain('createdb');

      const noRole = new URL(databaseUrl);
      noRole.username = 'tradelab_no_such_role';
      noRole.password = 'hunter2';
      const refused = await rejection(openPostgresStorage(noRole.toString(), {}));
      expect(refused.code).toBe('STORAGE_UNAVAILABLE');
      expect(refused.message).not.toContain('hunter2');
      expect(refused.hint).toContain('user name and password');

      expect((await rejection(openPostgresStorage('mysql://h/db', {}))).code).toBe(
        'INVALID_STORAGE_URL',
      );
    });

    it('masks passwords in the storage URL', async () => {
      expect(maskPostgresUrl('postgres://u:p%40ss@db.example:5432/x?sslmode=require')).toBe(
        'postgres://u:***@db.example:5432/x?sslmode=require',
      );
      expect(maskPostgresUrl('postgresql://db/x?password=pw&user=u')).toBe(
        'postgresql://db/x?password=***&user=u',
      );
      const { url } = await freshSchemaUrl();
      // Trust auth ignores the password; what matters is which URL carries it.
      const withPassword = new URL(url);
      withPassword.password = 'se cret';
      const storage = await open(withPassword.toString());
      expect(storage.url).toBe(maskPostgresUrl(withPassword.toString()));
      expect(storage.url).not.toContain('se%20cret');
      // Worker processes and heartbeat threads connect with the real URL.
      expect(storage.connection()?.url).toBe(withPassword.toString());
      await storage.close();
      await storage.close();
      expect((await rejection(storage.listStudies())).code).toBe('STORAGE_UNAVAILABLE');
    });

    it('writes an artifact over the inline limit as a file under artifactDir', async () => {
      const { url, schema } = await freshSchemaUrl();
      const storage = await open(url, { artifactDir, maxInlineArtifactBytes: 64 });
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      const big = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
      await storage.putArtifact(trial.id, 'model.bin', big);
      await storage.putArtifact(trial.id, 'small.bin', big.subarray(0, 64));

      const dir = join(artifactDir, String(study.id), String(trial.number));
      const files = () => readdirSync(dir);
      expect(files().filter((f) => f.endsWith('-model.bin'))).toHaveLength(1);
      const path = join(dir, files()[0] ?? '');
      expect(new Uint8Array(readFileSync(path))).toEqual(big);
      expect(await storage.getArtifact(trial.id, 'model.bin')).toEqual(big);
      expect(await storage.getArtifact(trial.id, 'small.bin')).toEqual(big.subarray(0, 64));
      const rows = await admin.query<{ name: string; inline: boolean; path: string | null }>(
        `SELECT name, bytes IS NOT NULL AS inline, path FROM ${schema}.artifacts ORDER BY name`,
      );
      expect(rows.rows).toEqual([
        { name: 'model.bin', inline: false, path },
        { name: 'small.bin', inline: true, path: null },
      ]);

      const noDir = await open(url, { maxInlineArtifactBytes: 64 });
      const tooBig = await rejection(noDir.putArtifact(trial.id, 'other.bin', big));
      expect(tooBig.code).toBe('INVALID_ARGUMENT');
      expect(tooBig.hint).toContain('paths.artifacts');
      expect(await noDir.listArtifacts(trial.id)).toEqual(['model.bin', 'small.bin']);
      expect(files()).toEqual([files()[0]]);
      // Replacing the artifact writes a new file and removes the old one; removing the study
      // removes its files.
      await storage.putArtifact(trial.id, 'model.bin', big.subarray(1));
      expect(files()).toHaveLength(1);
      expect(existsSync(path)).toBe(false);
      await storage.deleteStudy('s');
      expect(files()).toEqual([]);
    });

    it('keeps doubles bit for bit and timestamps as numbers', async () => {
      const { url } = await freshSchemaUrl();
      const storage = await open(url);
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      const values = {
        tiny: 5e-324,
        small: -1e-300,
        third: 1 / 3,
        max: Number.MAX_VALUE,
        big: 1e21,
        sum: 0.1 + 0.2,
      };
      for (const [name, value] of Object.entries(values))
        await storage.setTrialParam(trial.id, name, FLOAT, value);
      await storage.reportIntermediate(trial.id, 0, Number.NEGATIVE_INFINITY);
      await storage.reportIntermediate(trial.id, 1, 5e-324);
      const done = await storage.finishTrial(trial.id, { state: 'complete', value: 1 / 3 });
      // Another pool reads what this one committed.
      const read = await (await open(url)).getTrial(trial.id);
      for (const [name, value] of Object.entries(values))
        expect(Object.is(read.params[name], value)).toBe(true);
      expect(read.intermediate).toEqual({ 0: Number.NEGATIVE_INFINITY, 1: 5e-324 });
      expect(read.value).toBe(1 / 3);
      expect(read).toEqual(done);
      expect(typeof read.createdAt).toBe('number');
      expect(read.finishedAt).toBeGreaterThanOrEqual(read.createdAt);
    });
  });
});

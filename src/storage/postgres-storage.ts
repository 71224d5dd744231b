import pg from 'pg';
import { TradelabError } from '../core/index.js';
import {
  pgErrorCode,
  openPgPool,
  pgFailure,
  pgQuery,
  pgTransaction,
  type Queryable,
} from './postgres-client.js';
import {
  artifactNotFound,
  checkOutcome,
  checkReport,
  notInState,
  paramConflict,
  studyExists,
  studyNotFound,
  trialNotFound,
} from './storage-errors.js';
import {
  checkArtifactName,
  readArtifactFile,
  spillsToFile,
  removeArtifactFiles,
  writeArtifactFile,
} from './artifact-files.js';
import { decodeIntermediate, encodeIntermediate } from './record-json.js';
import type {
  Attributes,
  Distribution,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from './records.js';
import type { StorageOptions } from './storage-options.js';
import { countTowardTargetSql } from './target-count.js';
import type {
  ClaimTarget,
  NewStudy,
  NewWaitingTrial,
  RetryPolicy,
  StaleResult,
  StorageConnection,
  StudyStorage,
  TrialOutcome,
} from './study-storage.js';

/*
 * `postgres://…`: studies shared by workers on any number of machines. Every state change is one
 * READ COMMITTED transaction that locks exactly the rows it changes: trial numbers come from an
 * UPDATE of the study row (so concurrent inserts queue on it and numbers stay dense), and
 * claimTrial / failStale take trials with FOR UPDATE SKIP LOCKED, so two workers never take the
 * same row and never wait on each other. Params and attributes are jsonb; PostgreSQL keeps a
 * JSON number's decimal digits exactly and JavaScript prints the shortest digits that round-trip,
 * so doubles come back bit for bit (like JSON everywhere, -0 comes back as 0).
 */

/** The schema this code writes; see {@link MIGRATIONS}. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** Migrations by the version they lead to; MIGRATIONS[0] creates version 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE studies (
     id serial PRIMARY KEY,
     name text UNIQUE NOT NULL,
     direction text NOT NULL,
     user_attrs jsonb NOT NULL,
     system_attrs jsonb NOT NULL,
     created_at bigint NOT NULL,
     next_number integer NOT NULL DEFAULT 0
   );
   CREATE TABLE trials (
     id serial PRIMARY KEY,
     study_id integer NOT NULL REFERENCES studies ON DELETE CASCADE,
     number integer NOT NULL,
     state text NOT NULL,
     params jsonb NOT NULL,
     distributions jsonb NOT NULL,
     value double precision,
     intermediate jsonb NOT NULL,
     user_attrs jsonb NOT NULL,
     created_at bigint NOT NULL,
     started_at bigint,
     finished_at bigint,
     heartbeat_at bigint,
     worker_id text,
     retry_of integer,
     fail_reason text,
     UNIQUE (study_id, number)
   );
   CREATE INDEX trials_by_state ON trials (study_id, state, number);
   CREATE TABLE artifacts (
     trial_id integer REFERENCES trials ON DELETE CASCADE,
     name text,
     bytes bytea,
     path text,
     size bigint NOT NULL,
     PRIMARY KEY (trial_id, name)
   );`,
];

interface StudyRow {
  id: number;
  name: string;
  direction: string;
  user_attrs: Attributes;
  system_attrs: Attributes;
  created_at: number;
}

interface TrialRow {
  id: number;
  study_id: number;
  number: number;
  state: string;
  params: Record<string, ParamValue>;
  distributions: Record<string, Distribution>;
  value: number | null;
  intermediate: Record<string, unknown>;
  user_attrs: Attributes;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  heartbeat_at: number | null;
  worker_id: string | null;
  retry_of: number | null;
  fail_reason: string | null;
}

function studyFromRow(row: StudyRow): StudyRecord {
  return {
    id: row.id,
    name: row.name,
    direction: row.direction as StudyDirection,
    userAttrs: row.user_attrs,
    systemAttrs: row.system_attrs,
    createdAt: row.created_at,
  };
}

function trialFromRow(row: TrialRow): TrialRecord {
  return {
    id: row.id,
    studyId: row.study_id,
    number: row.number,
    state: row.state as TrialState,
    params: row.params,
    distributions: row.distributions,
    value: row.value,
    intermediate: decodeIntermediate(row.intermediate),
    userAttrs: row.user_attrs,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    heartbeatAt: row.heartbeat_at,
    workerId: row.worker_id,
    retryOf: row.retry_of,
    failReason: row.fail_reason,
  };
}

/**
 * Opens the PostgreSQL study storage at `url` (`postgres://user:password@host:port/database`),
 * creating or upgrading its tables. Throws STORAGE_UNAVAILABLE when the server cannot be reached
 * and STORAGE_SCHEMA when the tables were written by a newer tradelab.
 */
export async function openPostgresStorage(
  url: string,
  options: StorageOptions,
): Promise<StudyStorage> {
  const { pool, masked } = openPgPool(url);
  const storage = new PostgresStorage(pool, masked, options, url);
  try {
    await storage.migrate();
  } catch (error) {
    await pool.end();
    throw error;
  }
  return storage;
}

class PostgresStorage implements StudyStorage {
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly url: string,
    private readonly options: StorageOptions,
    /** The unmasked URL, for worker processes and heartbeat threads: never printed. */
    private readonly connectionUrl: string,
  ) {}

  connection(): StorageConnection {
    return { url: this.connectionUrl, options: this.options };
  }

  /** Creates or upgrades the tables, one process at a time (an advisory lock per schema). */
  async migrate(): Promise<void> {
    await this.transaction(async (c) => {
      await c.query(
        "SELECT pg_advisory_xact_lock(hashtext('tradelab schema ' || coalesce(current_schema(), '')))",
      );
      const table = await c.query<{ exists: boolean }>(
        "SELECT to_regclass('tradelab_schema') IS NOT NULL AS exists",
      );
      if (table.rows[0]?.exists !== true)
        await c.query('CREATE TABLE tradelab_schema (version integer NOT NULL)');
      const row = (await c.query<{ version: number }>('SELECT version FROM tradelab_schema'))
        .rows[0];
      const version = row?.version ?? 0;
      if (version > POSTGRES_SCHEMA_VERSION)
        throw new TradelabError(
          'STORAGE_SCHEMA',
          `${this.url} was written by a newer tradelab (schema ${version}, this one knows ${POSTGRES_SCHEMA_VERSION})`,
          { hint: 'upgrade tradelab on this machine', details: { version } },
        );
      for (let v = version; v < POSTGRES_SCHEMA_VERSION; v++) await c.query(MIGRATIONS[v] ?? '');
      if (row === undefined)
        await c.query('INSERT INTO tradelab_schema (version) VALUES ($1)', [
          POSTGRES_SCHEMA_VERSION,
        ]);
      else if (version !== POSTGRES_SCHEMA_VERSION)
        await c.query('UPDATE tradelab_schema SET version = $1', [POSTGRES_SCHEMA_VERSION]);
    });
  }

  /** One statement outside a transaction, again when it loses a deadlock. */
  private query<R extends pg.QueryResultRow>(
    sql: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    this.checkOpen();
    return pgQuery<R>(this.pool, sql, values, (error) => this.wrap(error));
  }

  /** Runs `fn` in one transaction, again when it loses a deadlock, and commits. */
  private transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.checkOpen();
    return pgTransaction(this.pool, fn, (error) => this.wrap(error));
  }

  private checkOpen(): void {
    if (this.closed)
      throw new TradelabError('STORAGE_UNAVAILABLE', `the study storage ${this.url} is closed`, {
        hint: 'open the storage again; close() ends it for good',
      });
  }

  /**
   * A TradelabError for a failure of PostgreSQL or of the connection to it; any other error (a bug
   * of ours, say) passes through unchanged.
   */
  private wrap(error: unknown): Error {
    return pgFailure(error, 'study storage', this.url);
  }

  private async studyNames(db: Queryable): Promise<string[]> {
    const rows = await db.query<{ name: string }>('SELECT name FROM studies ORDER BY name');
    return rows.rows.map((r) => r.name);
  }

  private async trialRow(db: Queryable, trialId: number, lock = false): Promise<TrialRow> {
    const sql = `SELECT * FROM trials WHERE id = $1${lock ? ' FOR UPDATE' : ''}`;
    const row = (await db.query<TrialRow>(sql, [trialId])).rows[0];
    if (row === undefined) throw trialNotFound(trialId);
    return row;
  }

  /** The trial (locked), if it is in one of `allowed`; else STORAGE_CONFLICT. */
  private async lockTrialIn(
    c: pg.PoolClient,
    trialId: number,
    action: string,
    allowed: readonly TrialState[],
  ): Promise<TrialRecord> {
    const trial = trialFromRow(await this.trialRow(c, trialId, true));
    if (!allowed.includes(trial.state)) throw notInState(trial, action, allowed);
    return trial;
  }

  /**
   * Runs `sql`, an UPDATE of trial $1 guarded by `AND state IN (allowed)` … RETURNING *, and
   * returns the changed row. When it changes nothing, says why: TRIAL_NOT_FOUND, or the
   * STORAGE_CONFLICT naming the trial's state. (A trial that moved into an allowed state between
   * the two statements, a waiting one just claimed, say, is updated on the next round.)
   */
  private async updateTrialIn(
    sql: string,
    values: unknown[],
    action: string,
    allowed: readonly TrialState[],
  ): Promise<TrialRow> {
    const trialId = values[0] as number;
    for (;;) {
      const updated = (await this.query<TrialRow>(sql, values)).rows[0];
      if (updated !== undefined) return updated;
      const row = (await this.query<TrialRow>('SELECT * FROM trials WHERE id = $1', [trialId]))
        .rows[0];
      if (row === undefined) throw trialNotFound(trialId);
      const trial = trialFromRow(row);
      if (!allowed.includes(trial.state)) throw notInState(trial, action, allowed);
    }
  }

  async createStudy(study: NewStudy): Promise<StudyRecord> {
    this.checkOpen();
    try {
      const result = await this.pool.query<StudyRow>(
        `INSERT INTO studies (name, direction, user_attrs, system_attrs, created_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [
          study.name,
          study.direction,
          JSON.stringify(study.userAttrs ?? {}),
          JSON.stringify(study.systemAttrs ?? {}),
          Date.now(),
        ],
      );
      return studyFromRow(result.rows[0] as StudyRow);
    } catch (error) {
      if (pgErrorCode(error) === '23505') throw studyExists(study.name);
      throw this.wrap(error);
    }
  }

  async getStudy(name: string): Promise<StudyRecord> {
    const row = (await this.query<StudyRow>('SELECT * FROM studies WHERE name = $1', [name]))
      .rows[0];
    if (row === undefined)
      throw studyNotFound(name, await this.wrapped(() => this.studyNames(this.pool)));
    return studyFromRow(row);
  }

  async listStudies(): Promise<StudyRecord[]> {
    const rows = await this.query<StudyRow>('SELECT * FROM studies ORDER BY name');
    return rows.rows.map(studyFromRow);
  }

  async deleteStudy(name: string): Promise<void> {
    // The artifact files' paths are read in the same statement, before the cascade removes them.
    const result = await this.query<{ deleted: number; paths: string[] | null }>(
      `WITH files AS (
         SELECT a.path FROM artifacts a JOIN trials t ON a.trial_id = t.id
           JOIN studies s ON t.study_id = s.id WHERE s.name = $1 AND a.path IS NOT NULL),
       gone AS (DELETE FROM studies WHERE name = $1 RETURNING id)
       SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT array_agg(path) FROM files) AS paths`,
      [name],
    );
    const row = result.rows[0];
    if (row === undefined || row.deleted === 0)
      throw studyNotFound(name, await this.wrapped(() => this.studyNames(this.pool)));
    removeArtifactFiles(row.paths ?? []);
  }

  async setStudyUserAttrs(studyId: number, attrs: Attributes): Promise<void> {
    const updated = await this.query(
      'UPDATE studies SET user_attrs = user_attrs || $2::jsonb WHERE id = $1',
      [studyId, JSON.stringify(attrs)],
    );
    if (updated.rowCount === 0) throw studyNotFound(`#${studyId}`, []);
  }

  /** Inserts a trial with the study's next number; the study row stays locked until commit. */
  private async insertTrial(
    c: pg.PoolClient,
    studyId: number,
    state: 'waiting' | 'running',
    trial: NewWaitingTrial,
    workerId: string | null,
  ): Promise<TrialRecord> {
    const next = (
      await c.query<{ number: number }>(
        'UPDATE studies SET next_number = next_number + 1 WHERE id = $1 RETURNING next_number - 1 AS number',
        [studyId],
      )
    ).rows[0];
    if (next === undefined) throw studyNotFound(`#${studyId}`, []);
    const now = Date.now();
    const running = state === 'running';
    const row = (
      await c.query<TrialRow>(
        `INSERT INTO trials (study_id, number, state, params, distributions, value, intermediate,
           user_attrs, created_at, started_at, heartbeat_at, worker_id, retry_of)
         VALUES ($1, $2, $3, $4, $5, NULL, '{}', $6, $7, $8, $9, $10, $11) RETURNING *`,
        [
          studyId,
          next.number,
          state,
          JSON.stringify(trial.params),
          JSON.stringify(trial.distributions ?? {}),
          JSON.stringify(trial.userAttrs ?? {}),
          now,
          running ? now : null,
          running ? now : null,
          workerId,
          trial.retryOf ?? null,
        ],
      )
    ).rows[0] as TrialRow;
    return trialFromRow(row);
  }

  enqueueTrial(studyId: number, trial: NewWaitingTrial): Promise<TrialRecord> {
    return this.transaction((c) => this.insertTrial(c, studyId, 'waiting', trial, null));
  }

  claimTrial(studyId: number, workerId: string): Promise<TrialRecord>;
  claimTrial(
    studyId: number,
    workerId: string,
    target: ClaimTarget,
  ): Promise<TrialRecord | undefined>;
  claimTrial(
    studyId: number,
    workerId: string,
    target?: ClaimTarget,
  ): Promise<TrialRecord | undefined> {
    return this.transaction(async (c) => {
      if (target !== undefined) {
        // The study row locked first: claims against a target queue here, on every machine, so
        // each counts what the one before it committed (READ COMMITTED reads afresh per statement).
        const locked = await c.query('SELECT 1 FROM studies WHERE id = $1 FOR UPDATE', [studyId]);
        if (locked.rowCount === 0) throw studyNotFound(`#${studyId}`, []);
        const counted = (await c.query<{ n: number }>(countTowardTargetSql('$1'), [studyId]))
          .rows[0];
        if ((counted?.n ?? 0) >= target.maxTrials) return undefined;
      }
      // SKIP LOCKED: a waiting trial another worker is claiming right now is theirs.
      const waiting = (
        await c.query<{ id: number }>(
          `SELECT id FROM trials WHERE study_id = $1 AND state = 'waiting'
           ORDER BY number LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [studyId],
        )
      ).rows[0];
      if (waiting === undefined)
        return this.insertTrial(c, studyId, 'running', { params: {} }, workerId);
      const now = Date.now();
      const row = (
        await c.query<TrialRow>(
          `UPDATE trials SET state = 'running', started_at = $2, heartbeat_at = $2, worker_id = $3
           WHERE id = $1 RETURNING *`,
          [waiting.id, now, workerId],
        )
      ).rows[0] as TrialRow;
      return trialFromRow(row);
    });
  }

  async setTrialParam(
    trialId: number,
    name: string,
    distribution: Distribution,
    value: ParamValue,
  ): Promise<void> {
    await this.transaction(async (c) => {
      const trial = await this.lockTrialIn(c, trialId, `set parameter "${name}" of`, ['running']);
      if (Object.hasOwn(trial.params, name)) {
        const stored = trial.params[name] ?? null;
        if (stored !== value) throw paramConflict(trial.number, name, stored, value);
        if (Object.hasOwn(trial.distributions, name)) return;
      }
      trial.params[name] = value;
      trial.distributions[name] = distribution;
      await c.query('UPDATE trials SET params = $2, distributions = $3 WHERE id = $1', [
        trialId,
        JSON.stringify(trial.params),
        JSON.stringify(trial.distributions),
      ]);
    });
  }

  async reportIntermediate(trialId: number, step: number, value: number): Promise<void> {
    checkReport(step, value);
    await this.updateTrialIn(
      `UPDATE trials SET intermediate = intermediate || $2::jsonb
       WHERE id = $1 AND state = 'running' RETURNING *`,
      [trialId, encodeIntermediate({ [step]: value })],
      'report to',
      ['running'],
    );
  }

  async setTrialUserAttrs(trialId: number, attrs: Attributes): Promise<void> {
    await this.updateTrialIn(
      `UPDATE trials SET user_attrs = user_attrs || $2::jsonb
       WHERE id = $1 AND state IN ('waiting', 'running') RETURNING *`,
      [trialId, JSON.stringify(attrs)],
      'set attributes of',
      ['waiting', 'running'],
    );
  }

  async heartbeat(trialId: number): Promise<void> {
    await this.updateTrialIn(
      "UPDATE trials SET heartbeat_at = $2 WHERE id = $1 AND state = 'running' RETURNING *",
      [trialId, Date.now()],
      'heartbeat',
      ['running'],
    );
  }

  async finishTrial(trialId: number, outcome: TrialOutcome): Promise<TrialRecord> {
    checkOutcome(outcome);
    const row = await this.updateTrialIn(
      `UPDATE trials SET state = $2, value = $3, finished_at = $4, heartbeat_at = NULL,
         fail_reason = $5
       WHERE id = $1 AND state = 'running' RETURNING *`,
      [
        trialId,
        outcome.state,
        outcome.state === 'fail' ? null : outcome.value,
        Date.now(),
        outcome.state === 'fail' ? (outcome.failReason ?? null) : null,
      ],
      `end (${outcome.state})`,
      ['running'],
    );
    return trialFromRow(row);
  }

  failStale(
    studyId: number | null,
    graceMs: number,
    policy: RetryPolicy & { reason?: string; workerId?: string },
  ): Promise<StaleResult> {
    return this.transaction(async (c) => {
      const now = Date.now();
      // SKIP LOCKED: a trial another failStale is failing right now is theirs to retry, and one
      // whose worker is writing to it (a heartbeat, say) is evidently alive.
      const stale = await c.query<{ id: number }>(
        `SELECT id FROM trials WHERE state = 'running' AND heartbeat_at < $1
           AND ($2::integer IS NULL OR study_id = $2) AND ($3::text IS NULL OR worker_id = $3)
         ORDER BY study_id, number FOR UPDATE SKIP LOCKED`,
        [now - graceMs, studyId, policy.workerId ?? null],
      );
      const failed: TrialRecord[] = [];
      const retries: TrialRecord[] = [];
      for (const { id } of stale.rows) {
        const done = trialFromRow(
          (
            await c.query<TrialRow>(
              `UPDATE trials SET state = 'fail', value = NULL, finished_at = $2, heartbeat_at = NULL,
                 fail_reason = $3
               WHERE id = $1 RETURNING *`,
              [id, now, policy.reason ?? 'stale heartbeat'],
            )
          ).rows[0] as TrialRow,
        );
        failed.push(done);
        if ((await retryDepth(c, done)) < policy.maxRetries)
          retries.push(
            await this.insertTrial(
              c,
              done.studyId,
              'waiting',
              {
                params: done.params,
                distributions: done.distributions,
                userAttrs: done.userAttrs,
                retryOf: done.number,
              },
              null,
            ),
          );
      }
      return { failed, retries };
    });
  }

  async refreshTrials(
    studyId: number,
    fromNumber: number,
    numbers: readonly number[],
  ): Promise<TrialRecord[]> {
    const rows = (
      await this.query<TrialRow>(
        `SELECT * FROM trials WHERE study_id = $1
           AND (number >= $2 OR number = ANY($3::integer[]) OR state IN ('waiting', 'running'))
         ORDER BY number`,
        [studyId, fromNumber, numbers],
      )
    ).rows;
    if (rows.length === 0) await this.checkStudy(studyId);
    return rows.map(trialFromRow);
  }

  importStudy(study: StudyRecord, trials: readonly TrialRecord[]): Promise<StudyRecord> {
    return this.transaction(async (c) => {
      let row: StudyRow;
      try {
        row = (
          await c.query<StudyRow>(
            `INSERT INTO studies (name, direction, user_attrs, system_attrs, created_at, next_number)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
            [
              study.name,
              study.direction,
              JSON.stringify(study.userAttrs),
              JSON.stringify(study.systemAttrs),
              study.createdAt,
              trials.reduce((n, t) => Math.max(n, t.number + 1), 0),
            ],
          )
        ).rows[0] as StudyRow;
      } catch (error) {
        if (pgErrorCode(error) === '23505') throw studyExists(study.name);
        throw error;
      }
      for (const t of trials)
        await c.query(
          `INSERT INTO trials (study_id, number, state, params, distributions, value, intermediate,
             user_attrs, created_at, started_at, finished_at, heartbeat_at, worker_id, retry_of,
             fail_reason)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
          [
            row.id,
            t.number,
            t.state,
            JSON.stringify(t.params),
            JSON.stringify(t.distributions),
            t.value,
            encodeIntermediate(t.intermediate),
            JSON.stringify(t.userAttrs),
            t.createdAt,
            t.startedAt,
            t.finishedAt,
            t.heartbeatAt,
            t.workerId,
            t.retryOf,
            t.failReason,
          ],
        );
      return studyFromRow(row);
    });
  }

  async getTrial(trialId: number): Promise<TrialRecord> {
    return trialFromRow(await this.wrapped(() => this.trialRow(this.pool, trialId)));
  }

  async getTrials(studyId: number, states?: readonly TrialState[]): Promise<TrialRecord[]> {
    const rows = (
      await this.query<TrialRow>(
        `SELECT * FROM trials WHERE study_id = $1 AND ($2::text[] IS NULL OR state = ANY($2))
         ORDER BY number`,
        [studyId, states ?? null],
      )
    ).rows;
    if (rows.length === 0) await this.checkStudy(studyId);
    return rows.map(trialFromRow);
  }

  /** Throws STUDY_NOT_FOUND unless study `studyId` exists. */
  private async checkStudy(studyId: number): Promise<void> {
    const study = await this.query('SELECT 1 FROM studies WHERE id = $1', [studyId]);
    if (study.rowCount === 0) throw studyNotFound(`#${studyId}`, []);
  }

  async putArtifact(trialId: number, name: string, bytes: Uint8Array): Promise<void> {
    checkArtifactName(name);
    const trial = await this.wrapped(() => this.trialRow(this.pool, trialId));
    const dir = this.options.artifactDir;
    const path =
      spillsToFile(bytes, this.options) && dir !== undefined
        ? writeArtifactFile(dir, trial.study_id, trial.number, name, bytes)
        : null;
    const replaced = await this.query<{ path: string | null }>(
      'SELECT path FROM artifacts WHERE trial_id = $1 AND name = $2',
      [trialId, name],
    );
    let inserted: pg.QueryResult;
    try {
      inserted = await this.query(
        `INSERT INTO artifacts (trial_id, name, bytes, path, size)
       SELECT id, $2::text, $3::bytea, $4::text, $5::bigint FROM trials WHERE id = $1
       ON CONFLICT (trial_id, name) DO UPDATE
         SET bytes = excluded.bytes, path = excluded.path, size = excluded.size`,
        [
          trialId,
          name,
          path === null ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null,
          path,
          bytes.byteLength,
        ],
      );
    } catch (error) {
      removeArtifactFiles([path]);
      throw error;
    }
    // The trial (and its study) was deleted since we looked it up.
    if (inserted.rowCount === 0) {
      removeArtifactFiles([path]);
      throw trialNotFound(trialId);
    }
    removeArtifactFiles([replaced.rows[0]?.path]);
  }

  async getArtifact(trialId: number, name: string): Promise<Uint8Array> {
    const row = (
      await this.query<{ bytes: Buffer | null; path: string | null }>(
        'SELECT bytes, path FROM artifacts WHERE trial_id = $1 AND name = $2',
        [trialId, name],
      )
    ).rows[0];
    if (row === undefined) {
      await this.wrapped(() => this.trialRow(this.pool, trialId));
      throw artifactNotFound(trialId, name);
    }
    if (row.path !== null) return readArtifactFile(row.path, trialId, name);
    // A copy, not a view: pg may hand out slices of a shared buffer.
    return new Uint8Array(row.bytes ?? []);
  }

  async listArtifacts(trialId: number): Promise<string[]> {
    const rows = (
      await this.query<{ name: string }>(
        'SELECT name FROM artifacts WHERE trial_id = $1 ORDER BY name',
        [trialId],
      )
    ).rows;
    if (rows.length === 0) await this.wrapped(() => this.trialRow(this.pool, trialId));
    return rows.map((r) => r.name);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** `fn()`, with a database failure turned into a TradelabError. */
  private async wrapped<T>(fn: () => Promise<T>): Promise<T> {
    this.checkOpen();
    try {
      return await fn();
    } catch (error) {
      throw this.wrap(error);
    }
  }
}

/** How many retries led to `trial` (0 for an original), following retry_of within its study. */
async function retryDepth(c: pg.PoolClient, trial: TrialRecord): Promise<number> {
  if (trial.retryOf === null) return 0;
  const result = await c.query<{ depth: number }>(
    `WITH RECURSIVE chain (number, retry_of) AS (
       SELECT number, retry_of FROM trials WHERE study_id = $1 AND number = $2
       UNION ALL
       SELECT t.number, t.retry_of FROM trials t JOIN chain ON t.number = chain.retry_of
       WHERE t.study_id = $1
     )
     SELECT count(*) AS depth FROM chain`,
    [trial.studyId, trial.retryOf],
  );
  return result.rows[0]?.depth ?? 0;
}

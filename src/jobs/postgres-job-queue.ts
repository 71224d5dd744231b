import pg from 'pg';
import { TradelabError } from '../core/index.js';
// Not through storage's index, which must not load `pg`: this module is itself loaded on demand.
import {
  openPgPool,
  pgFailure,
  pgQuery,
  pgTransaction,
  type Queryable,
} from '../storage/postgres-client.js';
import { jobEnded, jobNotEnded, jobNotFound } from './job-errors.js';
import {
  ENDED_JOB_STATES,
  MAX_LOG_LINES,
  type JobFilter,
  type JobLogLine,
  type JobOutcome,
  type JobProgress,
  type JobQueue,
  type JobRecord,
  type JobRequest,
  type JobState,
  type NewJob,
} from './job-queue.js';

/*
 * The queue for several services sharing one PostgreSQL server: two tables beside the study
 * storage's, in the connection's current schema. A ready-made queue does not fit: pg-boss 10 (the
 * last release for Node 20) expires an active job within 24 h and has no heartbeat, and our jobs
 * run for days. So, as the study storage does for trials, `claim` takes the oldest queued job with
 * FOR UPDATE SKIP LOCKED: two runners never take the same row and never wait on each other. A
 * change that reads before it writes (appendLog's next line number, cancel's state check) locks the
 * job row first, so two of them on one job run one after the other; a transaction PostgreSQL
 * aborts for a deadlock is run again.
 */

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS tradelab_jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request jsonb NOT NULL,
    argv jsonb NOT NULL,
    slots integer NOT NULL,
    state text NOT NULL,
    created_at bigint NOT NULL,
    started_at bigint,
    finished_at bigint,
    heartbeat_at bigint,
    runner text,
    pid integer,
    progress jsonb,
    cancel_requested boolean NOT NULL DEFAULT false,
    exit_code integer,
    error text,
    result jsonb NOT NULL DEFAULT '[]',
    retry_of bigint,
    log_lines integer NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS tradelab_jobs_by_state ON tradelab_jobs (state, id);
  CREATE TABLE IF NOT EXISTS tradelab_job_log (
    job_id bigint NOT NULL REFERENCES tradelab_jobs ON DELETE CASCADE,
    seq integer NOT NULL,
    stream text NOT NULL,
    text text NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (job_id, seq)
  );`;

interface JobRow {
  id: number;
  request: JobRequest;
  argv: string[];
  slots: number;
  state: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  heartbeat_at: number | null;
  runner: string | null;
  pid: number | null;
  progress: JobProgress | null;
  cancel_requested: boolean;
  exit_code: number | null;
  error: string | null;
  result: unknown[];
  retry_of: number | null;
}

function jobOf(row: JobRow): JobRecord {
  return {
    id: row.id,
    request: row.request,
    argv: row.argv,
    slots: row.slots,
    state: row.state as JobState,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    heartbeatAt: row.heartbeat_at,
    runner: row.runner,
    pid: row.pid,
    progress: row.progress,
    cancelRequested: row.cancel_requested,
    exitCode: row.exit_code,
    error: row.error,
    result: row.result,
    retryOf: row.retry_of,
  };
}

/**
 * A value for a jsonb parameter. pg would send a JS array as a PostgreSQL array, not JSON, so
 * everything goes as JSON text.
 */
const json = (value: unknown): string => JSON.stringify(value);

/** PostgreSQL text cannot hold NUL; a process that prints one must not lose its log line. */
const storable = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

/**
 * Opens the job queue at PostgreSQL `url` (`postgres://user:password@host:port/database`),
 * creating its tables when missing. Throws STORAGE_UNAVAILABLE when the server cannot be reached.
 */
export async function openPostgresJobQueue(url: string): Promise<JobQueue> {
  const { pool, masked } = openPgPool(url);
  const queue = new PostgresJobQueue(pool, masked);
  try {
    await queue.createTables();
  } catch (error) {
    await pool.end();
    throw error;
  }
  return queue;
}

class PostgresJobQueue implements JobQueue {
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly url: string,
  ) {}

  /** Creates the tables, one process at a time (an advisory lock per schema). */
  async createTables(): Promise<void> {
    await this.transaction(async (c) => {
      await c.query(
        "SELECT pg_advisory_xact_lock(hashtext('tradelab jobs ' || coalesce(current_schema(), '')))",
      );
      await c.query(SCHEMA);
    });
  }

  async submit(job: NewJob): Promise<JobRecord> {
    return jobOf(await this.insert(job));
  }

  async get(id: number): Promise<JobRecord> {
    return jobOf(await this.wrapped(() => this.row(this.pool, id)));
  }

  async list(filter: JobFilter = {}): Promise<JobRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown): string => `$${values.push(value)}`;
    if (filter.states !== undefined && filter.states.length > 0)
      where.push(`state = ANY(${param(filter.states)}::text[])`);
    if (filter.command !== undefined) where.push(`request->>'command' = ${param(filter.command)}`);
    if (filter.beforeId !== undefined) where.push(`id < ${param(filter.beforeId)}`);
    const sql = `SELECT * FROM tradelab_jobs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY id DESC LIMIT ${param(filter.limit ?? 100)}`;
    return (await this.query<JobRow>(sql, values)).rows.map(jobOf);
  }

  async claim(runner: string, freeSlots: number): Promise<JobRecord | undefined> {
    const row = await this.transaction(async (c) => {
      const next = await c.query<{ id: number }>(
        `SELECT id FROM tradelab_jobs WHERE state = 'queued' AND slots <= $1
         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [freeSlots],
      );
      const id = next.rows[0]?.id;
      if (id === undefined) return undefined;
      const now = Date.now();
      return returned(
        await c.query<JobRow>(
          `UPDATE tradelab_jobs SET state = 'running', runner = $2, started_at = $3, heartbeat_at = $3
           WHERE id = $1 RETURNING *`,
          [id, runner, now],
        ),
      );
    });
    return row === undefined ? undefined : jobOf(row);
  }

  async setPid(id: number, pid: number): Promise<void> {
    await this.query('UPDATE tradelab_jobs SET pid = $2 WHERE id = $1', [id, pid]);
  }

  async setProgress(id: number, progress: JobProgress): Promise<void> {
    await this.query('UPDATE tradelab_jobs SET progress = $2::jsonb WHERE id = $1', [
      id,
      json(progress),
    ]);
  }

  async appendLog(id: number, lines: readonly Omit<JobLogLine, 'seq'>[]): Promise<void> {
    if (lines.length === 0) return;
    await this.transaction(async (c) => {
      // The row lock makes a concurrent append for this job wait for our line numbers.
      const stored = (
        await c.query<{ log_lines: number }>(
          'SELECT log_lines FROM tradelab_jobs WHERE id = $1 FOR UPDATE',
          [id],
        )
      ).rows[0]?.log_lines;
      if (stored === undefined) throw jobNotFound(id, this.url);
      const kept = lines.slice(0, Math.max(0, MAX_LOG_LINES - stored));
      if (kept.length > 0)
        await c.query(
          `INSERT INTO tradelab_job_log (job_id, seq, stream, text, at)
           SELECT $1, $2 + n, stream, text, at
           FROM unnest($3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS l (stream, text, at, n)`,
          [
            id,
            stored,
            kept.map((l) => l.stream),
            kept.map((l) => storable(l.text)),
            kept.map((l) => l.at),
          ],
        );
      await c.query('UPDATE tradelab_jobs SET log_lines = $2 WHERE id = $1', [
        id,
        stored + lines.length,
      ]);
    });
  }

  async readLog(id: number, afterSeq = 0, limit = 1000): Promise<JobLogLine[]> {
    const rows = (
      await this.query<JobLogLine>(
        `SELECT seq, stream, text, at FROM tradelab_job_log WHERE job_id = $1 AND seq > $2
         ORDER BY seq LIMIT $3`,
        [id, afterSeq, limit],
      )
    ).rows;
    if (rows.length === 0) await this.wrapped(() => this.row(this.pool, id));
    return rows;
  }

  async heartbeat(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.query(
      `UPDATE tradelab_jobs SET heartbeat_at = $2 WHERE id = ANY($1::bigint[]) AND state = 'running'`,
      [ids, Date.now()],
    );
  }

  async finish(id: number, outcome: JobOutcome): Promise<JobRecord> {
    const finished = (
      await this.query<JobRow>(
        `UPDATE tradelab_jobs SET state = $2, exit_code = $3, error = $4, result = $5::jsonb,
           finished_at = $6, heartbeat_at = NULL
         WHERE id = $1 AND state = 'running' RETURNING *`,
        [id, outcome.state, outcome.exitCode, outcome.error, json(outcome.result), Date.now()],
      )
    ).rows[0];
    return jobOf(finished ?? (await this.wrapped(() => this.row(this.pool, id))));
  }

  async cancel(id: number): Promise<JobRecord> {
    return jobOf(
      await this.transaction(async (c) => {
        const job = jobOf(await this.row(c, id, true));
        if (ENDED_JOB_STATES.includes(job.state)) throw jobEnded(id, job.state);
        const sql =
          job.state === 'queued'
            ? `UPDATE tradelab_jobs SET state = 'cancelled', finished_at = $2, cancel_requested = true
               WHERE id = $1 RETURNING *`
            : 'UPDATE tradelab_jobs SET cancel_requested = true WHERE id = $1 RETURNING *';
        const values = job.state === 'queued' ? [id, Date.now()] : [id];
        return returned(await c.query<JobRow>(sql, values));
      }),
    );
  }

  async retry(id: number): Promise<JobRecord> {
    // An ended job never changes again, so reading it and inserting need no transaction.
    const job = jobOf(await this.wrapped(() => this.row(this.pool, id)));
    if (!ENDED_JOB_STATES.includes(job.state)) throw jobNotEnded(id, job.state);
    return jobOf(
      await this.insert({
        request: job.request,
        argv: job.argv,
        slots: job.slots,
        retryOf: id,
      }),
    );
  }

  async interruptStale(staleMs: number, deadRunners: readonly string[] = []): Promise<JobRecord[]> {
    const now = Date.now();
    // One statement: of two services interrupting at once, the second finds the row no longer
    // running (PostgreSQL re-checks the WHERE after the first commits), so each job is returned once.
    const rows = (
      await this.query<JobRow>(
        `UPDATE tradelab_jobs SET state = 'interrupted', finished_at = $1, heartbeat_at = NULL,
           error = 'interrupted: the service running it (' || coalesce(runner, 'unknown') || ') stopped'
         WHERE state = 'running' AND (coalesce(heartbeat_at, 0) < $2 OR runner = ANY($3::text[]))
         RETURNING *`,
        [now, now - staleMs, deadRunners],
      )
    ).rows;
    return rows.map(jobOf).sort((a, b) => a.id - b.id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async insert(job: NewJob): Promise<JobRow> {
    const result = await this.query<JobRow>(
      `INSERT INTO tradelab_jobs (request, argv, slots, state, created_at, retry_of)
       VALUES ($1::jsonb, $2::jsonb, $3, 'queued', $4, $5) RETURNING *`,
      [json(job.request), json(job.argv), job.slots, Date.now(), job.retryOf ?? null],
    );
    return returned(result);
  }

  /** Job `id`'s row (locked FOR UPDATE with `lock`); JOB_NOT_FOUND when there is none. */
  private async row(db: Queryable, id: number, lock = false): Promise<JobRow> {
    const sql = `SELECT * FROM tradelab_jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`;
    const found = (await db.query<JobRow>(sql, [id])).rows[0];
    if (found === undefined) throw jobNotFound(id, this.url);
    return found;
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

  /** `fn()`, with a database failure turned into a TradelabError. */
  private async wrapped<T>(fn: () => Promise<T>): Promise<T> {
    this.checkOpen();
    try {
      return await fn();
    } catch (error) {
      throw this.wrap(error);
    }
  }

  private checkOpen(): void {
    if (this.closed)
      throw new TradelabError('STORAGE_UNAVAILABLE', `the job queue ${this.url} is closed`, {
        hint: 'open the queue again; close() ends it for good',
      });
  }

  /**
   * STORAGE_UNAVAILABLE for a failure of PostgreSQL or of the connection to it; our own errors (a
   * TradelabError, a bug) pass through unchanged.
   */
  private wrap(error: unknown): Error {
    return pgFailure(error, 'job queue', this.url);
  }
}

/** The first row of an INSERT or UPDATE … RETURNING that must return one. */
function returned<R extends pg.QueryResultRow>(result: pg.QueryResult<R>): R {
  const row = result.rows[0];
  if (row === undefined) throw new Error(`${result.command} … RETURNING returned no row`);
  return row;
}

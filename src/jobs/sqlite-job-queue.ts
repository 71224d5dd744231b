import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { retryBusy } from '../storage/index.js';
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
import { makeDirectory } from '../core/index.js';

/*
 * The embedded queue: two tables in the study storage's SQLite file, so the jobs of a project live
 * and are backed up with its studies. Every change is one IMMEDIATE transaction, retried while
 * another process (a campaign's workers) holds the write lock, as the study storage does.
 */

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    request TEXT NOT NULL,
    argv TEXT NOT NULL,
    slots INTEGER NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    heartbeat_at INTEGER,
    runner TEXT,
    pid INTEGER,
    progress TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    error TEXT,
    result TEXT NOT NULL DEFAULT '[]',
    retry_of INTEGER,
    log_lines INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, id);
  CREATE TABLE IF NOT EXISTS job_log (
    job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    stream TEXT NOT NULL,
    text TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (job_id, seq)
  );`;

interface JobRow {
  id: number;
  request: string;
  argv: string;
  slots: number;
  state: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  heartbeat_at: number | null;
  runner: string | null;
  pid: number | null;
  progress: string | null;
  cancel_requested: number;
  exit_code: number | null;
  error: string | null;
  result: string;
  retry_of: number | null;
}

function jobOf(row: JobRow): JobRecord {
  return {
    id: row.id,
    request: JSON.parse(row.request) as JobRequest,
    argv: JSON.parse(row.argv) as string[],
    slots: row.slots,
    state: row.state as JobState,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    heartbeatAt: row.heartbeat_at,
    runner: row.runner,
    pid: row.pid,
    progress: row.progress === null ? null : (JSON.parse(row.progress) as JobProgress),
    cancelRequested: row.cancel_requested !== 0,
    exitCode: row.exit_code,
    error: row.error,
    result: JSON.parse(row.result) as unknown[],
    retryOf: row.retry_of,
  };
}

/** `fn`'s value as a promise, and what it throws as a rejection (callers await, never catch). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Opens the job queue in SQLite file `path` (`:memory:` for a queue that lives as long as the
 * process), creating its tables when missing. `url` names it in messages.
 */
export function openSqliteJobQueue(path: string, url = `sqlite:${path}`): JobQueue {
  if (path !== ':memory:') makeDirectory(dirname(path));
  const db = new Database(path, { timeout: 0 });
  retryBusy(() => {
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
  });
  retryBusy(() => db.exec(SCHEMA));
  const write = <T>(fn: () => T): T => retryBusy(() => db.transaction(fn).immediate());
  const row = (id: number): JobRow => {
    const found = db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    if (found === undefined) throw jobNotFound(id, url);
    return found;
  };
  const insert = (job: NewJob): JobRecord => {
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO jobs (request, argv, slots, state, created_at, retry_of)
         VALUES (?, ?, ?, 'queued', ?, ?)`,
      )
      .run(
        JSON.stringify(job.request),
        JSON.stringify(job.argv),
        job.slots,
        Date.now(),
        job.retryOf ?? null,
      );
    return jobOf(row(Number(lastInsertRowid)));
  };
  return {
    url,
    submit: (job) => settle(() => write(() => insert(job))),
    get: (id) => settle(() => jobOf(retryBusy(() => row(id)))),
    list(filter: JobFilter = {}) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (filter.states !== undefined && filter.states.length > 0) {
        where.push(`state IN (${filter.states.map(() => '?').join(', ')})`);
        values.push(...filter.states);
      }
      if (filter.command !== undefined) {
        where.push(`json_extract(request, '$.command') = ?`);
        values.push(filter.command);
      }
      if (filter.beforeId !== undefined) {
        where.push('id < ?');
        values.push(filter.beforeId);
      }
      const sql = `SELECT * FROM jobs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY id DESC LIMIT ?`;
      return settle(() =>
        retryBusy(() => db.prepare(sql).all(...values, filter.limit ?? 100) as JobRow[]).map(jobOf),
      );
    },
    claim(runner, freeSlots) {
      return settle(() =>
        write(() => {
          const next = db
            .prepare(
              `SELECT id FROM jobs WHERE state = 'queued' AND slots <= ? ORDER BY id LIMIT 1`,
            )
            .get(freeSlots) as { id: number } | undefined;
          if (next === undefined) return undefined;
          const now = Date.now();
          db.prepare(
            `UPDATE jobs SET state = 'running', runner = ?, started_at = ?, heartbeat_at = ?
             WHERE id = ?`,
          ).run(runner, now, now, next.id);
          return jobOf(row(next.id));
        }),
      );
    },
    setPid(id, pid) {
      return settle(() => {
        write(() => db.prepare('UPDATE jobs SET pid = ? WHERE id = ?').run(pid, id));
      });
    },
    setProgress(id, progress) {
      return settle(() => {
        write(() =>
          db.prepare('UPDATE jobs SET progress = ? WHERE id = ?').run(JSON.stringify(progress), id),
        );
      });
    },
    appendLog(id, lines) {
      if (lines.length === 0) return Promise.resolve();
      return settle(() => {
        write(() => {
          const found = db.prepare('SELECT log_lines FROM jobs WHERE id = ?').get(id) as
            { log_lines: number } | undefined;
          if (found === undefined) throw jobNotFound(id, url);
          const stored = found.log_lines;
          const add = db.prepare(
            'INSERT INTO job_log (job_id, seq, stream, text, at) VALUES (?, ?, ?, ?, ?)',
          );
          let seq = stored;
          for (const line of lines) {
            seq++;
            if (seq <= MAX_LOG_LINES) add.run(id, seq, line.stream, line.text, line.at);
          }
          db.prepare('UPDATE jobs SET log_lines = ? WHERE id = ?').run(seq, id);
        });
      });
    },
    readLog(id, afterSeq = 0, limit = 1000) {
      return settle(() => {
        row(id);
        return retryBusy(
          () =>
            db
              .prepare(
                `SELECT seq, stream, text, at FROM job_log WHERE job_id = ? AND seq > ?
               ORDER BY seq LIMIT ?`,
              )
              .all(id, afterSeq, limit) as JobLogLine[],
        );
      });
    },
    heartbeat(ids) {
      if (ids.length === 0) return Promise.resolve();
      return settle(() => {
        write(() => {
          const beat = db.prepare(
            `UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND state = 'running'`,
          );
          const now = Date.now();
          for (const id of ids) beat.run(now, id);
        });
      });
    },
    finish(id, outcome: JobOutcome) {
      return settle(() =>
        write(() => {
          db.prepare(
            `UPDATE jobs SET state = ?, exit_code = ?, error = ?, result = ?, finished_at = ?,
               heartbeat_at = NULL
             WHERE id = ? AND state = 'running'`,
          ).run(
            outcome.state,
            outcome.exitCode,
            outcome.error,
            JSON.stringify(outcome.result),
            Date.now(),
            id,
          );
          return jobOf(row(id));
        }),
      );
    },
    cancel(id) {
      return settle(() =>
        write(() => {
          const job = jobOf(row(id));
          if (ENDED_JOB_STATES.includes(job.state)) throw jobEnded(id, job.state);
          if (job.state === 'queued') {
            db.prepare(
              `UPDATE jobs SET state = 'cancelled', finished_at = ?, cancel_requested = 1
               WHERE id = ?`,
            ).run(Date.now(), id);
          } else {
            db.prepare('UPDATE jobs SET cancel_requested = 1 WHERE id = ?').run(id);
          }
          return jobOf(row(id));
        }),
      );
    },
    retry(id) {
      return settle(() =>
        write(() => {
          const job = jobOf(row(id));
          if (!ENDED_JOB_STATES.includes(job.state)) throw jobNotEnded(id, job.state);
          return insert({ request: job.request, argv: job.argv, slots: job.slots, retryOf: id });
        }),
      );
    },
    interruptStale(staleMs, deadRunners = []) {
      return settle(() =>
        write(() => {
          const cutoff = Date.now() - staleMs;
          const dead = new Set(deadRunners);
          const running = db
            .prepare(`SELECT * FROM jobs WHERE state = 'running'`)
            .all() as JobRow[];
          const stale = running.filter(
            (r) => (r.heartbeat_at ?? 0) < cutoff || (r.runner !== null && dead.has(r.runner)),
          );
          const mark = db.prepare(
            `UPDATE jobs SET state = 'interrupted', finished_at = ?, heartbeat_at = NULL,
               error = ? WHERE id = ?`,
          );
          for (const r of stale) {
            mark.run(
              Date.now(),
              `interrupted: the service running it (${r.runner ?? 'unknown'}) stopped`,
              r.id,
            );
          }
          return stale.map((r) => jobOf(row(r.id)));
        }),
      );
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

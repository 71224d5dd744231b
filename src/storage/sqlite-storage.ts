import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { TradelabError, makeDirectory } from '../core/index.js';
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
import { isDiskFull, sqliteFailure } from './sqlite-errors.js';
import { retryBusy } from './sqlite-busy.js';
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
 * The embedded default: one SQLite file in WAL mode, shared by any number of local processes.
 * Every state change is one IMMEDIATE transaction (it takes the write lock up front, so two
 * writers never deadlock upgrading a read lock), and a long busy timeout makes writers queue
 * instead of failing with "database is locked". synchronous=NORMAL: a commit survives any process
 * crash; a power loss may lose the last commits, never corrupt the file.
 */

/** The schema this code writes; see {@link MIGRATIONS}. */
export const SQLITE_SCHEMA_VERSION = 1;

/** Migrations by the version they lead to; MIGRATIONS[0] creates version 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE studies (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE,
     direction TEXT NOT NULL,
     user_attrs TEXT NOT NULL,
     system_attrs TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     next_number INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE trials (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     study_id INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
     number INTEGER NOT NULL,
     state TEXT NOT NULL,
     params TEXT NOT NULL,
     distributions TEXT NOT NULL,
     value REAL,
     intermediate TEXT NOT NULL,
     user_attrs TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     finished_at INTEGER,
     heartbeat_at INTEGER,
     worker_id TEXT,
     retry_of INTEGER,
     fail_reason TEXT,
     UNIQUE (study_id, number)
   );
   CREATE INDEX trials_by_state ON trials (study_id, state, number);
   CREATE TABLE artifacts (
     trial_id INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     bytes BLOB,
     path TEXT,
     size INTEGER NOT NULL,
     PRIMARY KEY (trial_id, name)
   );`,
];

interface StudyRow {
  id: number;
  name: string;
  direction: string;
  user_attrs: string;
  system_attrs: string;
  created_at: number;
}

interface TrialRow {
  id: number;
  study_id: number;
  number: number;
  state: string;
  params: string;
  distributions: string;
  value: number | null;
  intermediate: string;
  user_attrs: string;
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
    userAttrs: JSON.parse(row.user_attrs) as Attributes,
    systemAttrs: JSON.parse(row.system_attrs) as Attributes,
    createdAt: row.created_at,
  };
}

function trialFromRow(row: TrialRow): TrialRecord {
  return {
    id: row.id,
    studyId: row.study_id,
    number: row.number,
    state: row.state as TrialState,
    params: JSON.parse(row.params) as Record<string, ParamValue>,
    distributions: JSON.parse(row.distributions) as Record<string, Distribution>,
    value: row.value,
    intermediate: decodeIntermediate(row.intermediate),
    userAttrs: JSON.parse(row.user_attrs) as Attributes,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    heartbeatAt: row.heartbeat_at,
    workerId: row.worker_id,
    retryOf: row.retry_of,
    failReason: row.fail_reason,
  };
}

/** How {@link openSqliteStorage} opens the file. */
export type SqliteAccess = 'read-write' | 'read-only';

/**
 * Opens (creating if needed) the SQLite study storage at `path` (`:memory:` for a private one).
 * `read-only` (for commands that only read) never writes: not the file, not its directory (no
 * -wal or -shm made), and a missing file reads as an empty storage instead of being created.
 */
export function openSqliteStorage(
  path: string,
  options: StorageOptions = {},
  url = `sqlite:${path}`,
  access: SqliteAccess = 'read-write',
): StudyStorage {
  if (access === 'read-only' && path !== ':memory:') {
    const db = openReadOnly(path);
    if (db !== undefined) return new SqliteStorage(db, url, options, `sqlite:${path}`, path);
    // An older schema: opened as usual, so it is migrated (which needs write access).
  }
  let db: Database.Database | undefined;
  try {
    if (path !== ':memory:') makeDirectory(dirname(path));
    const opened = new Database(path, { timeout: 0 });
    db = opened;
    retryBusy(() => {
      opened.pragma('journal_mode = WAL');
      opened.pragma('synchronous = NORMAL');
      opened.pragma('foreign_keys = ON');
      migrate(opened, path);
    });
  } catch (error) {
    if (db !== undefined && db.open) db.close();
    throw sqliteFailure(error, path, 'open');
  }
  return new SqliteStorage(
    db,
    url,
    options,
    path === ':memory:' ? undefined : `sqlite:${path}`,
    path,
  );
}

/**
 * The file opened read-only; an empty in-memory storage when there is no file; undefined when its
 * schema is older than this code's (the caller migrates it). In a read-only directory (or on a
 * full disk) SQLite cannot make the -shm file a WAL database needs to be read, so the file is read
 * into memory instead (marked as a rollback-journal database there, which SQLite can read without
 * -shm).
 */
function openReadOnly(path: string): Database.Database | undefined {
  if (!existsSync(path)) {
    const empty = new Database(':memory:');
    migrate(empty, path);
    return empty;
  }
  let db: Database.Database | undefined;
  try {
    try {
      db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
      retryBusy(() => db?.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get());
    } catch (error) {
      db?.close();
      db = undefined;
      const code = (error as { code?: unknown }).code;
      const noShm =
        code === 'SQLITE_READONLY_DIRECTORY' ||
        code === 'SQLITE_CANTOPEN' ||
        isDiskFull(error, path);
      if (!noShm) throw error;
      db = snapshot(path, error);
    }
    const version = schemaVersion(db, path);
    if (version === SQLITE_SCHEMA_VERSION) return db;
    db.close();
    return undefined;
  } catch (error) {
    if (db?.open === true) db.close();
    throw sqliteFailure(error, path, 'open');
  }
}

/** The database file in memory, read-only, for a WAL file whose directory cannot be written. */
function snapshot(path: string, cause: unknown): Database.Database {
  const wal = `${path}-wal`;
  // Commits not yet checkpointed live in the -wal file, which only a -shm file can index.
  if (existsSync(wal) && statSync(wal).size > 0) throw cause;
  const bytes = readFileSync(path);
  // Header bytes 18 and 19: file format 2 is WAL, 1 the rollback journal an in-memory copy uses.
  if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) bytes.fill(1, 18, 20);
  return new Database(bytes, { readonly: true });
}

/** The schema version stored in `db` (0 for a file tradelab never wrote to). */
function schemaVersion(db: Database.Database, path: string): number {
  const table = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'tradelab_schema'")
    .get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT version FROM tradelab_schema').get() as
    { version: number } | undefined;
  const version = row?.version ?? 0;
  if (version > SQLITE_SCHEMA_VERSION)
    throw new TradelabError(
      'STORAGE_SCHEMA',
      `${path} was written by a newer tradelab (schema ${version}, this one knows ${SQLITE_SCHEMA_VERSION})`,
      { hint: 'upgrade tradelab on this machine', details: { version } },
    );
  return version;
}

function migrate(db: Database.Database, path: string): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS tradelab_schema (version INTEGER NOT NULL)');
    const row = db.prepare('SELECT version FROM tradelab_schema').get() as
      { version: number } | undefined;
    const version = row?.version ?? 0;
    if (version > SQLITE_SCHEMA_VERSION)
      throw new TradelabError(
        'STORAGE_SCHEMA',
        `${path} was written by a newer tradelab (schema ${version}, this one knows ${SQLITE_SCHEMA_VERSION})`,
        { hint: 'upgrade tradelab on this machine', details: { version } },
      );
    for (let v = version; v < SQLITE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] ?? '');
    if (row === undefined)
      db.prepare('INSERT INTO tradelab_schema (version) VALUES (?)').run(SQLITE_SCHEMA_VERSION);
    else db.prepare('UPDATE tradelab_schema SET version = ?').run(SQLITE_SCHEMA_VERSION);
  }).immediate();
}

class SqliteStorage implements StudyStorage {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    readonly url: string,
    private readonly options: StorageOptions,
    /** The URL other processes open it with (absolute path); undefined for `:memory:`. */
    private readonly shareableUrl: string | undefined,
    /** The file, for messages (`:memory:` for a private one). */
    private readonly path: string,
  ) {
    const p = (sql: string): Database.Statement => db.prepare(sql);
    this.statements = {
      studyByName: p('SELECT * FROM studies WHERE name = ?'),
      studyById: p('SELECT * FROM studies WHERE id = ?'),
      studyNames: p('SELECT name FROM studies ORDER BY name'),
      studies: p('SELECT * FROM studies ORDER BY name'),
      insertStudy: p(
        'INSERT INTO studies (name, direction, user_attrs, system_attrs, created_at) VALUES (?, ?, ?, ?, ?)',
      ),
      importStudy: p(
        'INSERT INTO studies (name, direction, user_attrs, system_attrs, created_at, next_number) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      importTrial: p(
        `INSERT INTO trials (study_id, number, state, params, distributions, value, intermediate,
           user_attrs, created_at, started_at, finished_at, heartbeat_at, worker_id, retry_of, fail_reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      setStudyAttrs: p('UPDATE studies SET user_attrs = ? WHERE id = ?'),
      deleteStudy: p('DELETE FROM studies WHERE id = ?'),
      nextNumber: p(
        'UPDATE studies SET next_number = next_number + 1 WHERE id = ? RETURNING next_number - 1 AS number',
      ),
      insertTrial: p(
        `INSERT INTO trials (study_id, number, state, params, distributions, value, intermediate,
           user_attrs, created_at, started_at, heartbeat_at, worker_id, retry_of)
         VALUES (?, ?, ?, ?, ?, NULL, '{}', ?, ?, ?, ?, ?, ?) RETURNING *`,
      ),
      towardTarget: p(countTowardTargetSql('?')),
      oldestWaiting: p(
        "SELECT * FROM trials WHERE study_id = ? AND state = 'waiting' ORDER BY number LIMIT 1",
      ),
      start: p(
        "UPDATE trials SET state = 'running', started_at = ?, heartbeat_at = ?, worker_id = ? WHERE id = ? RETURNING *",
      ),
      trial: p('SELECT * FROM trials WHERE id = ?'),
      trials: p('SELECT * FROM trials WHERE study_id = ? ORDER BY number'),
      refresh: p(
        // Three indexed lookups: an OR of them would scan the whole study on every ask.
        `SELECT * FROM trials WHERE study_id = @study AND number >= @from
         UNION SELECT * FROM trials INDEXED BY trials_by_state
           WHERE study_id = @study AND state IN ('waiting', 'running')
         UNION SELECT * FROM trials WHERE study_id = @study
           AND number IN (SELECT value FROM json_each(@numbers))
         ORDER BY number`,
      ),
      setParams: p('UPDATE trials SET params = ?, distributions = ? WHERE id = ?'),
      setIntermediate: p('UPDATE trials SET intermediate = ? WHERE id = ?'),
      setTrialAttrs: p('UPDATE trials SET user_attrs = ? WHERE id = ?'),
      heartbeat: p("UPDATE trials SET heartbeat_at = ? WHERE id = ? AND state = 'running'"),
      finish: p(
        'UPDATE trials SET state = ?, value = ?, finished_at = ?, heartbeat_at = NULL, fail_reason = ? WHERE id = ? RETURNING *',
      ),
      stale: p(
        `SELECT * FROM trials WHERE state = 'running' AND heartbeat_at < ?
           AND (? IS NULL OR study_id = ?) AND (? IS NULL OR worker_id = ?) ORDER BY study_id, number`,
      ),
      trialByNumber: p('SELECT * FROM trials WHERE study_id = ? AND number = ?'),
      putArtifact: p(
        'INSERT OR REPLACE INTO artifacts (trial_id, name, bytes, path, size) VALUES (?, ?, ?, ?, ?)',
      ),
      artifact: p('SELECT bytes, path FROM artifacts WHERE trial_id = ? AND name = ?'),
      artifactFiles: p(
        `SELECT a.path FROM artifacts a JOIN trials t ON a.trial_id = t.id
         WHERE t.study_id = ? AND a.path IS NOT NULL`,
      ),
      artifactNames: p('SELECT name FROM artifacts WHERE trial_id = ? ORDER BY name'),
    };
  }

  connection(): StorageConnection | undefined {
    return this.shareableUrl === undefined
      ? undefined
      : { url: this.shareableUrl, options: this.options };
  }

  /** Runs `fn` in one IMMEDIATE transaction (the write lock taken up front). */
  private write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private studyRow(name: string): StudyRow {
    const row = this.statements.studyByName.get(name) as StudyRow | undefined;
    if (row === undefined) {
      const names = (this.statements.studyNames.all() as { name: string }[]).map((r) => r.name);
      throw studyNotFound(name, names);
    }
    return row;
  }

  private trialRow(trialId: number): TrialRow {
    const row = this.statements.trial.get(trialId) as TrialRow | undefined;
    if (row === undefined) throw trialNotFound(trialId);
    return row;
  }

  private studyById(studyId: number): StudyRow {
    const row = this.statements.studyById.get(studyId) as StudyRow | undefined;
    if (row === undefined) throw studyNotFound(`#${studyId}`, []);
    return row;
  }

  /** The trial, if it is in one of `allowed`; else STORAGE_CONFLICT. */
  private trialIn(trialId: number, action: string, allowed: readonly TrialState[]): TrialRecord {
    const trial = trialFromRow(this.trialRow(trialId));
    if (!allowed.includes(trial.state)) throw notInState(trial, action, allowed);
    return trial;
  }

  createStudy(study: NewStudy): Promise<StudyRecord> {
    return this.settle(() =>
      this.write(() => {
        if (this.statements.studyByName.get(study.name) !== undefined)
          throw studyExists(study.name);
        const info = this.statements.insertStudy.run(
          study.name,
          study.direction,
          JSON.stringify(study.userAttrs ?? {}),
          JSON.stringify(study.systemAttrs ?? {}),
          Date.now(),
        );
        return studyFromRow(
          this.statements.studyById.get(Number(info.lastInsertRowid)) as StudyRow,
        );
      }),
    );
  }

  getStudy(name: string): Promise<StudyRecord> {
    return this.settle(() => studyFromRow(this.studyRow(name)));
  }

  listStudies(): Promise<StudyRecord[]> {
    return this.settle(() => (this.statements.studies.all() as StudyRow[]).map(studyFromRow));
  }

  deleteStudy(name: string): Promise<void> {
    return this.settle(() => {
      const files = this.write(() => {
        const id = this.studyRow(name).id;
        const paths = (this.statements.artifactFiles.all(id) as { path: string }[]).map(
          (r) => r.path,
        );
        this.statements.deleteStudy.run(id);
        return paths;
      });
      removeArtifactFiles(files);
    });
  }

  setStudyUserAttrs(studyId: number, attrs: Attributes): Promise<void> {
    return this.settle(() => {
      this.write(() => {
        const row = this.statements.studyById.get(studyId) as StudyRow | undefined;
        if (row === undefined) throw studyNotFound(`#${studyId}`, []);
        const merged = { ...(JSON.parse(row.user_attrs) as Attributes), ...attrs };
        this.statements.setStudyAttrs.run(JSON.stringify(merged), studyId);
      });
    });
  }

  private insertTrial(
    studyId: number,
    state: 'waiting' | 'running',
    trial: NewWaitingTrial,
    workerId: string | null,
  ): TrialRecord {
    const next = this.statements.nextNumber.get(studyId) as { number: number } | undefined;
    if (next === undefined) throw studyNotFound(`#${studyId}`, []);
    const now = Date.now();
    const running = state === 'running';
    return trialFromRow(
      this.statements.insertTrial.get(
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
      ) as TrialRow,
    );
  }

  enqueueTrial(studyId: number, trial: NewWaitingTrial): Promise<TrialRecord> {
    return this.settle(() => this.write(() => this.insertTrial(studyId, 'waiting', trial, null)));
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
    return this.settle(() =>
      this.write(() => {
        // Inside the write lock: no other claim can count or claim in between.
        if (target !== undefined) {
          const { n } = this.statements.towardTarget.get(studyId) as { n: number };
          if (n >= target.maxTrials) return undefined;
        }
        const waiting = this.statements.oldestWaiting.get(studyId) as TrialRow | undefined;
        if (waiting === undefined)
          return this.insertTrial(studyId, 'running', { params: {} }, workerId);
        const now = Date.now();
        return trialFromRow(this.statements.start.get(now, now, workerId, waiting.id) as TrialRow);
      }),
    );
  }

  setTrialParam(
    trialId: number,
    name: string,
    distribution: Distribution,
    value: ParamValue,
  ): Promise<void> {
    return this.settle(() => {
      this.write(() => {
        const trial = this.trialIn(trialId, `set parameter "${name}" of`, ['running']);
        if (Object.hasOwn(trial.params, name)) {
          const stored = trial.params[name] ?? null;
          if (stored !== value) throw paramConflict(trial.number, name, stored, value);
          if (Object.hasOwn(trial.distributions, name)) return;
        }
        trial.params[name] = value;
        trial.distributions[name] = distribution;
        this.statements.setParams.run(
          JSON.stringify(trial.params),
          JSON.stringify(trial.distributions),
          trialId,
        );
      });
    });
  }

  reportIntermediate(trialId: number, step: number, value: number): Promise<void> {
    return this.settle(() => {
      checkReport(step, value);
      this.write(() => {
        const trial = this.trialIn(trialId, 'report to', ['running']);
        trial.intermediate[step] = value;
        this.statements.setIntermediate.run(encodeIntermediate(trial.intermediate), trialId);
      });
    });
  }

  setTrialUserAttrs(trialId: number, attrs: Attributes): Promise<void> {
    return this.settle(() => {
      this.write(() => {
        const trial = this.trialIn(trialId, 'set attributes of', ['waiting', 'running']);
        this.statements.setTrialAttrs.run(
          JSON.stringify({ ...trial.userAttrs, ...attrs }),
          trialId,
        );
      });
    });
  }

  heartbeat(trialId: number): Promise<void> {
    return this.settle(() => {
      const changed = this.statements.heartbeat.run(Date.now(), trialId).changes;
      if (changed === 0) this.trialIn(trialId, 'heartbeat', ['running']);
    });
  }

  finishTrial(trialId: number, outcome: TrialOutcome): Promise<TrialRecord> {
    return this.settle(() => {
      checkOutcome(outcome);
      return this.write(() => {
        this.trialIn(trialId, `end (${outcome.state})`, ['running']);
        return trialFromRow(
          this.statements.finish.get(
            outcome.state,
            outcome.value,
            Date.now(),
            outcome.state === 'fail' ? (outcome.failReason ?? null) : null,
            trialId,
          ) as TrialRow,
        );
      });
    });
  }

  failStale(
    studyId: number | null,
    graceMs: number,
    policy: RetryPolicy & { reason?: string; workerId?: string },
  ): Promise<StaleResult> {
    return this.settle(() =>
      this.write(() => {
        const now = Date.now();
        const workerId = policy.workerId ?? null;
        const rows = this.statements.stale.all(
          now - graceMs,
          studyId,
          studyId,
          workerId,
          workerId,
        ) as TrialRow[];
        const failed: TrialRecord[] = [];
        const retries: TrialRecord[] = [];
        for (const row of rows) {
          const done = trialFromRow(
            this.statements.finish.get(
              'fail',
              null,
              now,
              policy.reason ?? 'stale heartbeat',
              row.id,
            ) as TrialRow,
          );
          failed.push(done);
          if (this.retryDepth(done) < policy.maxRetries)
            retries.push(
              this.insertTrial(
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
      }),
    );
  }

  /** How many retries led to `trial` (0 for an original). */
  private retryDepth(trial: TrialRecord): number {
    let depth = 0;
    let of = trial.retryOf;
    while (of !== null) {
      depth++;
      const parent = this.statements.trialByNumber.get(trial.studyId, of) as TrialRow | undefined;
      of = parent?.retry_of ?? null;
    }
    return depth;
  }

  importStudy(study: StudyRecord, trials: readonly TrialRecord[]): Promise<StudyRecord> {
    return this.settle(() =>
      this.write(() => {
        if (this.statements.studyByName.get(study.name) !== undefined)
          throw studyExists(study.name);
        const info = this.statements.importStudy.run(
          study.name,
          study.direction,
          JSON.stringify(study.userAttrs),
          JSON.stringify(study.systemAttrs),
          study.createdAt,
          trials.reduce((n, t) => Math.max(n, t.number + 1), 0),
        );
        const studyId = Number(info.lastInsertRowid);
        for (const t of trials)
          this.statements.importTrial.run(
            studyId,
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
          );
        return studyFromRow(this.statements.studyById.get(studyId) as StudyRow);
      }),
    );
  }

  getTrial(trialId: number): Promise<TrialRecord> {
    return this.settle(() => trialFromRow(this.trialRow(trialId)));
  }

  getTrials(studyId: number, states?: readonly TrialState[]): Promise<TrialRecord[]> {
    return this.settle(() => {
      this.studyById(studyId);
      const rows = (this.statements.trials.all(studyId) as TrialRow[]).map(trialFromRow);
      return states === undefined ? rows : rows.filter((t) => states.includes(t.state));
    });
  }

  refreshTrials(
    studyId: number,
    fromNumber: number,
    numbers: readonly number[],
  ): Promise<TrialRecord[]> {
    return this.settle(() => {
      this.studyById(studyId);
      return (
        this.statements.refresh.all({
          study: studyId,
          from: fromNumber,
          numbers: JSON.stringify(numbers),
        }) as TrialRow[]
      ).map(trialFromRow);
    });
  }

  putArtifact(trialId: number, name: string, bytes: Uint8Array): Promise<void> {
    return this.settle(() => {
      checkArtifactName(name);
      const trial = trialFromRow(this.trialRow(trialId));
      const dir = this.options.artifactDir;
      const path =
        spillsToFile(bytes, this.options) && dir !== undefined
          ? writeArtifactFile(dir, trial.studyId, trial.number, name, bytes)
          : null;
      let replaced: string | null = null;
      try {
        this.write(() => {
          this.trialRow(trialId);
          const old = this.statements.artifact.get(trialId, name) as
            { path: string | null } | undefined;
          replaced = old?.path ?? null;
          this.statements.putArtifact.run(
            trialId,
            name,
            path === null ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null,
            path,
            bytes.byteLength,
          );
        });
      } catch (error) {
        removeArtifactFiles([path]);
        throw error;
      }
      removeArtifactFiles([replaced]);
    });
  }

  getArtifact(trialId: number, name: string): Promise<Uint8Array> {
    return this.settle(() => {
      this.trialRow(trialId);
      const row = this.statements.artifact.get(trialId, name) as
        { bytes: Buffer | null; path: string | null } | undefined;
      if (row === undefined) throw artifactNotFound(trialId, name);
      if (row.path !== null) return readArtifactFile(row.path, trialId, name);
      const bytes = row.bytes ?? Buffer.alloc(0);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
  }

  listArtifacts(trialId: number): Promise<string[]> {
    return this.settle(() => {
      this.trialRow(trialId);
      return (this.statements.artifactNames.all(trialId) as { name: string }[]).map((r) => r.name);
    });
  }

  close(): Promise<void> {
    return this.settle(() => {
      if (this.db.open) this.db.close();
    });
  }

  /**
   * Runs synchronous database work as a promise, so callers handle SQLite like PostgreSQL, and
   * turns a SQLite failure (a full disk, a read-only or damaged file) into a clear TradelabError.
   */
  private settle<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(retryBusy(fn));
    } catch (error) {
      return Promise.reject(sqliteFailure(error, this.path, 'use'));
    }
  }
}

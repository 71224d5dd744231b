import pg from 'pg';
import { TradelabError } from '../core/index.js';
import { maskPostgresUrl } from './postgres-url.js';

/*
 * What every PostgreSQL table set of ours (the study storage, the service's job queue) does with
 * its pool the same way: statements and transactions run again when PostgreSQL aborted them for a
 * deadlock or a serialization failure (nothing was written then), and failures become
 * STORAGE_UNAVAILABLE errors that say whether the server could not be reached or a statement
 * failed. Loaded only with a postgres:// URL (it loads `pg`).
 */

/** Tries of a statement or transaction that PostgreSQL keeps aborting for deadlocks. */
const MAX_ATTEMPTS = 5;

/** How long to wait for a connection (a new one, or a free one from the pool). */
const CONNECT_TIMEOUT_MS = 30_000;

/** int8 (bigint, count(*)) as a JavaScript number: our bigints are ms timestamps and sizes. */
const INT8_OID = 20;

function invalidUrl(masked: string, cause?: unknown): TradelabError {
  return new TradelabError('INVALID_STORAGE_URL', `"${masked}" is not a PostgreSQL URL`, {
    hint: 'write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    cause,
  });
}

/**
 * A pool for `url` (`postgres://user:password@host:port/database`) and the URL masked for
 * messages; INVALID_STORAGE_URL when it is not one. No connection is made yet. int8 comes back as a
 * number; a pool its owner forgot to close does not keep the process alive.
 */
export function openPgPool(url: string): { pool: pg.Pool; masked: string } {
  const masked = maskPostgresUrl(url);
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch (error) {
    throw invalidUrl(masked, error);
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') throw invalidUrl(masked);
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  const pool = new pg.Pool({
    connectionString: url,
    types,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    allowExitOnIdle: true,
  });
  // An idle connection that breaks (server restart, network) is dropped by the pool, which
  // connects afresh for the next query; without a listener the 'error' event would crash us.
  pool.on('error', () => undefined);
  return { pool, masked };
}

/** A pool or one of its clients. */
export type Queryable = pg.Pool | pg.PoolClient;

/** The SQLSTATE of a PostgreSQL error, or the Node code (ECONNREFUSED, …) of a socket error. */
export function pgErrorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error)
    if (typeof error.code === 'string') return error.code;
  return 'unknown';
}

/**
 * Whether `error` is the socket's or the driver's "no connection": a Node system error
 * (ECONNREFUSED, ECONNRESET, ENOTFOUND, …, possibly several in an AggregateError) or pg's own
 * (connection terminated, connect timeout), which carry no code.
 */
function isConnectionFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (/^E[A-Z]+$/.test(pgErrorCode(error))) return true;
  return /connection|connect|terminated|timeout|not queryable/i.test(error.message);
}

/** deadlock_detected, serialization_failure: PostgreSQL rolled back; running again is safe. */
function isRetryable(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === '40P01' || code === '40001';
}

/** SQLSTATEs that mean "no usable connection" rather than "this statement failed". */
function isConnectionCode(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('28') || // invalid authorization (bad password, no such role)
    code === '3D000' || // no such database
    code === '53300' || // too many connections
    code.startsWith('57P') // server shutting down or starting up
  );
}

function connectionHint(code: string): string {
  if (code.startsWith('28'))
    return 'check the user name and password in the URL (or PGPASSWORD / ~/.pgpass)';
  if (code === '3D000') return 'create the database (createdb NAME) or fix its name in the URL';
  if (code === '53300') return 'the server has no free connections: raise max_connections';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'check the host name in the URL';
  return 'check the PostgreSQL server is running and reachable at the host and port in the URL';
}

/**
 * `error` of `what` (e.g. `study storage`) at masked `url` as the error to throw: a statement
 * that failed, or a server that cannot be reached, as STORAGE_UNAVAILABLE; a TradelabError (ours,
 * thrown inside a transaction) or any other error as it is.
 */
export function pgFailure(error: unknown, what: string, url: string): Error {
  if (error instanceof TradelabError) return error;
  const code = pgErrorCode(error);
  if (error instanceof pg.DatabaseError && !isConnectionCode(code))
    return new TradelabError(
      'STORAGE_UNAVAILABLE',
      `PostgreSQL ${what} ${url} failed: ${error.message} (SQLSTATE ${code})`,
      {
        hint: "check the server's log and that the user may read and write tradelab's tables",
        cause: error,
        details: { url, code },
      },
    );
  if (error instanceof pg.DatabaseError || isConnectionFailure(error))
    return new TradelabError(
      'STORAGE_UNAVAILABLE',
      `cannot reach the PostgreSQL ${what} ${url}: ${error.message || code}`,
      { hint: connectionHint(code), cause: error, details: { url, code } },
    );
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * One statement outside a transaction (a single statement is atomic by itself), again when
 * PostgreSQL aborts it for a deadlock; other failures go through `fail`.
 */
export async function pgQuery<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string,
  values: unknown[],
  fail: (error: unknown) => Error,
): Promise<pg.QueryResult<R>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.query<R>(sql, values);
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && isRetryable(error)) continue;
      throw fail(error);
    }
  }
}

/**
 * Runs `fn` in one transaction on one connection, again when PostgreSQL aborts it for a deadlock
 * or serialization failure (nothing was written then), and commits; other failures go through
 * `fail`.
 */
export async function pgTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  fail: (error: unknown) => Error,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw fail(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is gone; the server rolls back on disconnect. Drop the client.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < MAX_ATTEMPTS && isRetryable(error)) continue;
      throw fail(error);
    } finally {
      client.release(broken);
    }
  }
}

import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import { isDiskFull, sqliteFailure } from './sqlite-errors.js';

const dir = tempDir('tradelab-sqlite-errors-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('SQLite failures', () => {
  it('says the disk is full for SQLITE_FULL, as SQLite raises it when a database cannot grow', () => {
    const path = join(dir, 'capped.db');
    const db = new Database(path);
    // A database capped at 8 pages fails exactly as one on a full disk: SQLITE_FULL.
    db.pragma('max_page_count = 8');
    db.exec('CREATE TABLE t (b BLOB)');
    const error = thrown(() => db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024)));
    db.close();
    expect((error as { code: string }).code).toBe('SQLITE_FULL');
    expect(isDiskFull(error, path)).toBe(true);
    const failure = sqliteFailure(error, path, 'use');
    expect(failure.code).toBe('STORAGE_UNAVAILABLE');
    expect(failure.message).toContain(
      `cannot write to the SQLite study storage: the disk holding ${path} is full (SQLITE_FULL`,
    );
    expect(failure.hint).toContain(`df -h ${dir}`);
  });

  it('says the disk is full for ENOSPC, as Node raises it writing an artifact file', () => {
    // /dev/full answers every write with ENOSPC.
    const error = thrown(() => {
      writeFileSync('/dev/full', 'x');
    });
    expect((error as { code: string }).code).toBe('ENOSPC');
    expect(sqliteFailure(error, join(dir, 'x.db'), 'use').message).toContain('is full (ENOSPC');
  });

  it('says a file is read-only rather than "attempt to write a readonly database"', () => {
    const path = join(dir, 'ro.db');
    new Database(path).exec('CREATE TABLE t (x)');
    const db = new Database(path, { readonly: true });
    const error = thrown(() => db.exec('INSERT INTO t VALUES (1)'));
    db.close();
    expect((error as { code: string }).code).toBe('SQLITE_READONLY');
    const failure = sqliteFailure(error, path, 'use');
    expect(failure.message).toBe(
      `cannot write to the SQLite study storage: ${path} is read-only (the file or its directory is not writable; SQLITE_READONLY)`,
    );
    expect(failure.hint).toContain('read commands (study list, show, trials) work');
  });

  it('keeps an I/O error an I/O error while the disk has room', () => {
    const error = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    expect(isDiskFull(error, join(dir, 'x.db'))).toBe(false);
    expect(sqliteFailure(error, join(dir, 'x.db'), 'open').message).toContain('disk I/O error');
  });
});

import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { shellQuote, TradelabError } from '../core/index.js';

/*
 * SQLite reports a full disk as SQLITE_FULL when a write runs out of room, but as SQLITE_IOERR
 * ("disk I/O error") when it cannot even grow its shared-memory file on open, and a read-only
 * file or directory as SQLITE_READONLY ("attempt to write a readonly database"). Passed through,
 * each reads like a damaged disk or a bug. This says which it is, with the path and the fix.
 */

/** Below this many free bytes, an I/O error on the storage's disk is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** The code of a SQLite error (`SQLITE_FULL`, `SQLITE_IOERR_WRITE`…) or of a Node file error (`ENOSPC`). */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** Free bytes on the file system holding `path`, if it can be asked. */
function freeBytes(path: string): number | undefined {
  try {
    const stats = statfsSync(dirname(path));
    return stats.bavail * stats.bsize;
  } catch {
    // statfs is only asked to word the message better; without it the error is reported as is.
    return undefined;
  }
}

/** Whether `error` means the disk (of the storage at `path`) is out of space. */
export function isDiskFull(error: unknown, path: string): boolean {
  const code = codeOf(error);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return true;
  if (!code.startsWith('SQLITE_IOERR') || path === ':memory:') return false;
  const free = freeBytes(path);
  return free !== undefined && free < NEARLY_FULL_BYTES;
}

/**
 * The TradelabError for a failure of the SQLite storage at `path` while doing `doing` ("open",
 * "use"): a full disk, a read-only file or directory, a damaged file, or else SQLite's own words.
 */
export function sqliteFailure(error: unknown, path: string, doing: string): TradelabError {
  if (error instanceof TradelabError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  const dir = dirname(path);
  if (isDiskFull(error, path)) {
    const free = freeBytes(path);
    return new TradelabError(
      'STORAGE_UNAVAILABLE',
      `cannot ${doing === 'open' ? 'open' : 'write to'} the SQLite study storage: the disk holding ${path} is full (${code}: ${message}${free === undefined ? '' : `; ${Math.floor(free / 1024)} KiB free`})`,
      {
        hint: `free space on the disk holding ${dir} (\`df -h ${shellQuote(dir)}\` shows it), then run the command again; a write that failed left nothing behind`,
        cause: error,
        details: { path, code },
      },
    );
  }
  if (code.startsWith('SQLITE_READONLY'))
    return new TradelabError(
      'STORAGE_UNAVAILABLE',
      `cannot ${doing === 'open' ? 'open' : 'write to'} the SQLite study storage: ${path} is read-only (the file or its directory is not writable; ${code})`,
      {
        hint: `read commands (study list, show, trials) work as it is; to write, make both writable (chmod u+w ${shellQuote(path)} ${shellQuote(dir)}) or copy the study elsewhere (tradelab study export NAME --to sqlite:./copy.db)`,
        cause: error,
        details: { path, code },
      },
    );
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB')
    return new TradelabError(
      'STORAGE_UNAVAILABLE',
      `cannot ${doing} the SQLite study storage ${path}: the file is damaged or not a SQLite database (${code}: ${message})`,
      {
        hint: `check it (\`sqlite3 ${shellQuote(path)} "PRAGMA integrity_check"\`), restore it from a backup, or point --storage at another file`,
        cause: error,
        details: { path, code },
      },
    );
  return new TradelabError(
    'STORAGE_UNAVAILABLE',
    `cannot ${doing} the SQLite study storage ${path}: ${message}`,
    {
      hint:
        doing === 'open'
          ? 'check the path is a SQLite file written by tradelab (or a new file) in a writable directory'
          : `check the disk has space and the file is not damaged (\`sqlite3 ${shellQuote(path)} "PRAGMA integrity_check"\`)`,
      cause: error,
      details: { path, ...(code === '' ? {} : { code }) },
    },
  );
}

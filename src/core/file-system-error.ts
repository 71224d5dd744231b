import { TradelabError } from './tradelab-error.js';

/** What to do about each file-system failure a user can fix, by Node's errno code. */
const FILE_SYSTEM_HINTS: Readonly<Record<string, string>> = {
  EACCES: 'check the permissions of that path, or choose another',
  EPERM: 'check the permissions of that path, or choose another',
  EROFS: 'that file system is read-only; choose a writable path',
  ENOSPC: 'the disk is full; free some space, or choose another disk',
  EDQUOT: 'the disk quota is used up; free some space, or choose another disk',
  EFBIG: 'the file is larger than this system allows (ulimit -f); raise the limit',
  EEXIST: 'something already has that name; remove it, or choose another path',
  ENOENT: 'a folder on that path does not exist; check the path',
  ENOTDIR: 'part of that path is a file, not a folder; check the path',
  EISDIR: 'that path is a folder; name a file',
  EMFILE: 'too many open files; raise the limit (ulimit -n), or run fewer workers',
};

/**
 * An ordinary file-system failure (permission denied, disk full, a name in the way) as a
 * FILE_ACCESS error naming the path and the fix: it is not a bug in tradelab. `path` names the
 * file where Node's error does not (a write to an open file reports no path) or names a temp
 * file the user never chose. Undefined for anything else. `details` carries `path`, `code`,
 * `syscall` and `reason` ("no space left on device") for callers that say more.
 */
export function fileSystemError(error: unknown, path?: string): TradelabError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  const where = path ?? (error as NodeJS.ErrnoException).path;
  const hint = code === undefined ? undefined : FILE_SYSTEM_HINTS[code];
  if (hint === undefined || where === undefined) return undefined;
  // Node's message reads "EACCES: permission denied, open '/a/b'": keep the words in between.
  const reason = /^[A-Z]+: ([^,]+)/.exec(error.message)?.[1] ?? code;
  return new TradelabError('FILE_ACCESS', `cannot ${syscall ?? 'use'} ${where}: ${reason}`, {
    hint,
    cause: error,
    details: { path: where, code, reason, ...(syscall === undefined ? {} : { syscall }) },
  });
}

import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { fileSystemError } from './file-system-error.js';

/**
 * Writes `content` to `path` atomically: a temp file in the same directory, fsync, rename. A
 * failure leaves `path` as it was and no temp file; an ordinary one (a full disk, no permission)
 * is a FILE_ACCESS error naming `path`, not the temp file nor nothing (a write to an open file
 * reports no path).
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  try {
    writeThenRename(path, content);
  } catch (error) {
    throw fileSystemError(error, path) ?? error;
  }
}

function writeThenRename(path: string, content: string | Uint8Array): void {
  const temp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = openSync(temp, 'w');
  try {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    // writeSync may write less than asked (a disk filling up): loop, so the next write throws
    // ENOSPC instead of a short file being renamed into place.
    for (let done = 0; done < bytes.byteLength;)
      done += writeSync(fd, bytes, done, bytes.byteLength - done);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

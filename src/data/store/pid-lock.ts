import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileSystemError, TradelabError, makeDirectory } from '../../core/index.js';

/** Options for {@link withPidLock}. */
export interface PidLockOptions {
  /** How long to wait for a live owner before giving up, in ms. */
  waitMs: number;
  /** What the lock guards, for the error when the wait runs out (e.g. "the data store /x"). */
  what: string;
}

/**
 * Runs `work` holding an exclusive lock: a file created with O_EXCL holding the owner's pid. A lock
 * whose owner is gone (killed, crashed) is taken over; a live owner is waited for, up to
 * `waitMs`. Two async callers in one process exclude each other too (the file is the lock, not
 * the process). The pid test only sees this machine's processes: a store shared over a network
 * file system by several machines needs one writer machine at a time.
 */
export async function withPidLock<T>(
  path: string,
  options: PidLockOptions,
  work: () => Promise<T> | T,
): Promise<T> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    try {
      createWithPid(path);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // The folder was removed meanwhile (a failed first write tidying up after itself).
        makeDirectory(dirname(path));
        continue;
      }
      if (code !== 'EEXIST') throw fileSystemError(error, path) ?? error;
      if (!ownerAlive(path)) {
        takeOverStaleLock(path);
        continue;
      }
      if (Date.now() > deadline) {
        throw new TradelabError(
          'DATA_STORE_LOCKED',
          `${options.what} is locked by another tradelab process (pid ${lockOwner(path) ?? '?'})`,
          {
            hint: `wait for it to finish; if none is running, remove ${path}`,
            details: { lock: path },
          },
        );
      }
      await sleep(20 + Math.random() * 30);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(path, { force: true });
  }
}

/**
 * Creates the lock file with the pid already in it: written to a temp file, then hard-linked to the
 * lock's name, which fails with EEXIST when the lock is taken. (Creating the lock with O_EXCL and
 * then writing the pid would let another process read it empty in between, think its owner dead
 * and take it over while it is held.)
 */
function createWithPid(path: string): void {
  const temp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = openSync(temp, 'wx');
  try {
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } finally {
    // Also when the write failed (a full disk): no temp is left behind.
    rmSync(temp, { force: true });
  }
}

/** Whether a process with this pid runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a lock whose owner is gone without racing another process that takes it over at the same
 * time: move it aside under a unique name (only one mover wins), then check that the moved file is
 * still the dead owner's before deleting it; a live owner's lock is put back.
 */
function takeOverStaleLock(lock: string): void {
  const aside = `${lock}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else moved it first
    throw error;
  }
  if (ownerAlive(aside)) {
    // A live process took the lock between our check and the move: give it back.
    try {
      linkSync(aside, lock);
    } finally {
      rmSync(aside, { force: true });
    }
    return;
  }
  rmSync(aside, { force: true });
}

function lockOwner(lock: string): number | undefined {
  try {
    return Number(readFileSync(lock, 'utf8'));
  } catch {
    // Gone between our open and read: free now.
    return undefined;
  }
}

function ownerAlive(lock: string): boolean {
  const pid = lockOwner(lock);
  return pid !== undefined && processAlive(pid);
}

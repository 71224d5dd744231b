import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './process-alive.js';

/*
 * Temporary directories that a process owns and that never outlive it. A `finally` that removes
 * one does not run when the process exits first (a trial worker leaves with `process.exit` when
 * its run is gone, or is killed), and each left behind is megabytes in the system temp dir. So
 * each directory's name carries its owner (host and pid), the process removes its own ones when
 * it exits, and each new one first sweeps those whose owner on this host no longer exists.
 */

/** Directories of this process not yet removed: removed at its exit. */
const owned = new Set<string>();
let hooked = false;

/** The host part of a name: no separators, so a name splits back into its parts. */
function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9]/g, '_');
}

/**
 * Removes `prefix` directories in the temp dir whose owner was a process of this host that is
 * gone. Directories of other hosts (a temp dir shared by containers) are left to their own.
 */
export function sweepOwnedTempDirs(prefix: string, dir = tmpdir()): void {
  const mine = `${prefix}${hostTag()}-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    // A temp dir that cannot be listed is reported by the mkdtemp that follows, with its path.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    if (!name.startsWith(mine)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(mine.length))?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Makes a directory `<temp dir>/<prefix><host>-<pid>-XXXXXX` that this process owns: removed by
 * {@link removeOwnedTempDir}, or at the latest when the process exits, or by the next process
 * that makes one when this one died without exiting (killed).
 */
export function makeOwnedTempDir(prefix: string): string {
  sweepOwnedTempDirs(prefix);
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${hostTag()}-${process.pid}-`));
  owned.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const path of owned) rmSync(path, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Removes a directory made by {@link makeOwnedTempDir}. */
export function removeOwnedTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  owned.delete(dir);
}

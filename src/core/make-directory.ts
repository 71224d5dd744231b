import { mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileSystemError } from './file-system-error.js';
import { TradelabError } from './tradelab-error.js';

/*
 * `mkdirSync(path, { recursive: true })` loops forever, synchronously, where a parent exists but
 * refuses children with ENOENT (`/proc/x`): the process spins at full CPU and no signal handler
 * runs, so even SIGTERM cannot stop it. This walks up to the deepest folder that exists, checks
 * that it is a folder, and makes each missing one below it once, so such a path fails at once.
 */

/**
 * Makes the folder `path` and any missing parents; returns the first folder it made (undefined
 * when `path` already existed), as `mkdirSync(…, { recursive: true })` does. A failure is a
 * FILE_ACCESS error naming the folder.
 */
export function makeDirectory(path: string): string | undefined {
  const target = resolve(path);
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    const stats = statOrUndefined(existing);
    if (stats !== undefined) {
      if (!stats.isDirectory())
        throw new TradelabError(
          'FILE_ACCESS',
          `cannot make the folder ${target}: ${existing} is not a folder`,
          { hint: 'choose a path whose parent is a folder', details: { path: existing } },
        );
      break;
    }
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Another process made it meanwhile: what was asked is there.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(folder).isDirectory())
        continue;
      throw fileSystemError(error, folder) ?? error;
    }
  }
  return missing[0];
}

/** The stats of `path`, undefined where it is missing or a parent on the way is not a folder. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    // ENOTDIR: a file on the way; the walk up finds it and says so.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw fileSystemError(error, path) ?? error;
  }
}

import { readdirSync, rmSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './pid-lock.js';

/**
 * Finding what killed writers left in the data store. Every temp file our writers make ends in
 * `.tmp-<pid>-<tag>` (Parquet files, the catalog, lock files; a lock moved aside to be taken over
 * ends in `.stale-<pid>-<tag>`), so a temp whose pid is not a running process is garbage: its
 * writer was killed or crashed before it could rename or remove it. A temp of a running process
 * is never touched, whoever it is. Before the pid went into the names, Parquet temps were
 * `.<name>.tmp-<12 hex>`: those are taken to be stale once an hour old (a write takes seconds).
 */
const PID_TEMP = /\.(?:tmp|stale)-(\d+)-[0-9a-z]+$/;
const LEGACY_TEMP = /^\..+\.tmp-[0-9a-f]{12}$/;
const LEGACY_AGE_MS = 3_600_000;

/**
 * Removes the temp files of dead writers in the store directory and its symbol folders; returns
 * the paths removed.
 */
export function sweepStaleTemps(dir: string): string[] {
  const removed: string[] = [];
  for (const folder of [dir, ...subfolders(dir)]) {
    for (const name of names(folder)) {
      const path = join(folder, name);
      if (isStaleTemp(path, name) && removeFile(path)) removed.push(path);
    }
  }
  return removed;
}

function isStaleTemp(path: string, name: string): boolean {
  const pid = PID_TEMP.exec(name)?.[1];
  if (pid !== undefined) return !processAlive(Number(pid)) && isFile(path);
  if (!LEGACY_TEMP.test(name)) return false;
  const stat = statOf(path);
  return stat !== undefined && stat.isFile() && Date.now() - stat.mtimeMs > LEGACY_AGE_MS;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function names(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function isFile(path: string): boolean {
  return statOf(path)?.isFile() ?? false;
}

/** A file's stat; undefined when it is gone (renamed or removed by its writer meanwhile). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes a file; false when it was already gone (another process swept it first). */
function removeFile(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

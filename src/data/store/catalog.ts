import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TradelabError, writeFileAtomic } from '../../core/index.js';
import type { CalendarName } from '../calendar.js';
import type { GapReport } from '../import/clean-bars.js';
import type { Timeframe } from '../timeframe.js';

/** A source file a dataset was imported from. */
export interface DatasetSource {
  path: string;
  sha256: string;
  bytes: number;
  rows: number;
  format: string;
  importedAt: string;
}

/** What the catalog knows about one dataset. */
export interface DatasetEntry {
  symbol: string;
  timeframe: Timeframe;
  calendar: CalendarName;
  rows: number;
  firstMs: number;
  lastMs: number;
  gaps: GapReport;
  /** Parquet file, relative to the store directory. */
  file: string;
  columns: string[];
  /** Close is the adjusted close (Yahoo `--adjusted`). */
  adjusted: boolean;
  sources: DatasetSource[];
  /** Set for datasets made by `data resample` or `data synth`. */
  derivedFrom?: string;
  createdAt: string;
  updatedAt: string;
}

/** The catalog file's content. */
export interface CatalogFile {
  version: 1;
  datasets: Record<string, DatasetEntry>;
}

/** Name of the catalog file in the store directory. */
export const CATALOG_FILE = 'catalog.json';
const LOCK_FILE = 'catalog.lock';

/** Reads the catalog; an absent one is empty. */
export function readCatalog(dir: string): CatalogFile {
  const path = join(dir, CATALOG_FILE);
  if (!existsSync(path)) return { version: 1, datasets: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new TradelabError('DATA_STORE_INVALID', `${path} is not valid JSON`, {
      hint: 'the catalog was edited by hand or damaged; restore it from a backup, or remove it and import the data again',
      cause,
    });
  }
  const damaged = (what: string): TradelabError =>
    new TradelabError('DATA_STORE_INVALID', `${path} is not a tradelab catalog: ${what}`, {
      hint: 'the catalog was edited by hand or damaged; restore it from a backup, or remove it and import the data again',
    });
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw damaged('expected a JSON object');
  const catalog = parsed as Partial<CatalogFile>;
  const datasets: unknown = catalog.datasets;
  if (catalog.version === 1 && (typeof datasets !== 'object' || datasets === null))
    throw damaged('"datasets" is not an object');
  if (catalog.version !== 1 || typeof catalog.datasets !== 'object') {
    throw new TradelabError(
      'DATA_STORE_INVALID',
      `${path} has version ${String(catalog.version)}; this tradelab reads version 1`,
      {
        hint: 'upgrade tradelab, or point --data-dir at another store',
      },
    );
  }
  return catalog as CatalogFile;
}

/**
 * Runs `change` on the catalog under an exclusive lock (a lock file holding the owner's pid; a
 * lock whose owner is gone is taken over), then writes it atomically.
 */
export async function updateCatalog<T>(
  dir: string,
  change: (catalog: CatalogFile) => Promise<T> | T,
): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, LOCK_FILE);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!ownerAlive(lock)) {
        takeOverStaleLock(lock);
        continue;
      }
      if (Date.now() > deadline) {
        throw new TradelabError(
          'DATA_STORE_LOCKED',
          `the data store ${dir} is locked by another tradelab process`,
          {
            hint: `wait for it to finish; if none is running, remove ${lock}`,
          },
        );
      }
      await sleep(50);
    }
  }
  try {
    const catalog = readCatalog(dir);
    const result = await change(catalog);
    writeFileAtomic(join(dir, CATALOG_FILE), `${JSON.stringify(catalog, null, 2)}\n`);
    return result;
  } finally {
    rmSync(lock, { force: true });
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

function ownerAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    // Gone between our open and read: free now.
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import { isAbsolute, resolve } from 'node:path';
import { TradelabError } from '../core/index.js';
import { openMemoryStorage } from './memory-storage.js';
import { openSqliteStorage } from './sqlite-storage.js';
import type { StorageOptions } from './storage-options.js';
import type { StudyStorage } from './study-storage.js';

/** The embedded default storage URL. */
export const DEFAULT_STORAGE_URL = 'sqlite:./tradelab.db';

/** Options of {@link openStorage}. */
export interface OpenStorageOptions extends StorageOptions {
  /** Relative `sqlite:` paths resolve against this directory (the project root). Default: cwd. */
  baseDir?: string;
  /**
   * For commands that only read: a SQLite file is opened read-only (so a read-only file or
   * directory can be read) and never created. Memory and PostgreSQL storages ignore it. Default
   * false.
   */
  readOnly?: boolean;
}

/**
 * Opens a study storage from its URL: `memory:`, `sqlite:PATH` (created if missing; a relative
 * PATH is relative to `baseDir`) or `postgres://user:password@host:port/database` (the `pg`
 * driver is loaded only then).
 */
export async function openStorage(
  url: string,
  options: OpenStorageOptions = {},
): Promise<StudyStorage> {
  const { baseDir, readOnly, ...storageOptions } = options;
  if (url === 'memory:') return openMemoryStorage();
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw badUrl(url, 'the SQLite file path is missing');
    const absolute =
      path === ':memory:' || isAbsolute(path) ? path : resolve(baseDir ?? process.cwd(), path);
    return openSqliteStorage(
      absolute,
      storageOptions,
      url,
      readOnly === true ? 'read-only' : 'read-write',
    );
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresStorage } = await import('./postgres-storage.js');
    return openPostgresStorage(url, storageOptions);
  }
  throw badUrl(url, 'unknown storage');
}

function badUrl(url: string, why: string): TradelabError {
  return new TradelabError('INVALID_STORAGE_URL', `storage URL "${url}": ${why}`, {
    hint: 'use memory:, sqlite:PATH (e.g. sqlite:./tradelab.db) or postgres://user:password@host:5432/db',
    details: { url },
  });
}

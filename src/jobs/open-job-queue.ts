import { isAbsolute, resolve } from 'node:path';
import { TradelabError } from '../core/index.js';
import type { JobQueue } from './job-queue.js';
import { openSqliteJobQueue } from './sqlite-job-queue.js';

/**
 * The job queue of a study storage URL, beside its studies: `sqlite:PATH` puts it in the same file
 * (a relative PATH is relative to `baseDir`), `memory:` in memory for the life of the process, and
 * `postgres://user:password@host:port/database` in two tables of that database (the `pg` driver is
 * loaded only then), which several services may share.
 */
export async function openJobQueue(url: string, baseDir: string): Promise<JobQueue> {
  if (url === 'memory:') return openSqliteJobQueue(':memory:', url);
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    const absolute = path === ':memory:' || isAbsolute(path) ? path : resolve(baseDir, path);
    return openSqliteJobQueue(absolute, url);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresJobQueue } = await import('./postgres-job-queue.js');
    return openPostgresJobQueue(url);
  }
  throw new TradelabError('INVALID_STORAGE_URL', `the job queue cannot use storage "${url}"`, {
    hint: 'use memory:, sqlite:PATH (e.g. sqlite:./tradelab.db) or postgres://user:password@host:5432/db',
    details: { url },
  });
}

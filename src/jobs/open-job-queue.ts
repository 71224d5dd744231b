import { isAbsolute, resolve } from 'node:path';
import { TradelabError } from '../core/index.js';
import type { JobQueue } from './job-queue.js';
import { openSqliteJobQueue } from './sqlite-job-queue.js';

/**
 * The job queue of a study storage URL: `sqlite:PATH` puts it in the same file (a relative PATH is
 * relative to `baseDir`), `memory:` in memory for the life of the process.
 */
export function openJobQueue(url: string, baseDir: string): Promise<JobQueue> {
  if (url === 'memory:') return Promise.resolve(openSqliteJobQueue(':memory:', url));
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    const absolute = path === ':memory:' || isAbsolute(path) ? path : resolve(baseDir, path);
    return Promise.resolve(openSqliteJobQueue(absolute, url));
  }
  return Promise.reject(
    new TradelabError('STORAGE_UNAVAILABLE', `the job queue cannot use storage ${url} yet`, {
      hint: 'serve with the embedded storage (--storage sqlite:./tradelab.db); PostgreSQL studies can still be run by `tradelab study run` on each machine',
      details: { url },
    }),
  );
}

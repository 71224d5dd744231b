import { TradelabError } from '../core/index.js';
import type { JobState } from './job-queue.js';

/*
 * The errors every job queue throws, so that SQLite and PostgreSQL say the same thing the same way.
 */

/** JOB_NOT_FOUND: no job `id` in the queue at `url`. */
export function jobNotFound(id: number, url: string): TradelabError {
  return new TradelabError('JOB_NOT_FOUND', `no job ${id} in ${url}`, {
    hint: 'list the jobs: GET /api/jobs',
    details: { id },
  });
}

/** JOB_ENDED: job `id` cannot be cancelled, it already ended in `state`. */
export function jobEnded(id: number, state: JobState): TradelabError {
  return new TradelabError('JOB_ENDED', `job ${id} already ended (${state})`, {
    hint: `retry it instead: POST /api/jobs/${id}/retry`,
    details: { id, state },
  });
}

/** JOB_NOT_ENDED: job `id` cannot be retried while it is `state`. */
export function jobNotEnded(id: number, state: JobState): TradelabError {
  return new TradelabError('JOB_NOT_ENDED', `job ${id} is ${state}, not ended`, {
    hint: `cancel it first (POST /api/jobs/${id}/cancel), or wait for it to end`,
    details: { id, state },
  });
}

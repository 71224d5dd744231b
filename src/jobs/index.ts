export {
  ENDED_JOB_STATES,
  JOB_STATES,
  MAX_LOG_LINES,
  type JobFilter,
  type JobLogLine,
  type JobOutcome,
  type JobProgress,
  type JobQueue,
  type JobRecord,
  type JobRequest,
  type JobState,
  type NewJob,
} from './job-queue.js';
export { openJobQueue } from './open-job-queue.js';
export { openSqliteJobQueue } from './sqlite-job-queue.js';
export { JobRunner, type JobEvent, type JobRunnerOptions } from './job-runner.js';
export { jobProgressOf, progressRecord, type ProgressRecord } from './progress-record.js';

import type { Project } from '../app/index.js';
import type { JobQueue, JobRunner } from '../jobs/index.js';
import type { PlanHere } from '../app/index.js';
import type { StudyStorage } from '../storage/index.js';
import type { JobCommand } from './job-commands.js';
import type { LiveEvents } from './live-events.js';

/** What every route of the service reads: opened once when it starts. */
export interface ServiceContext {
  project: Project;
  /** The project root: jobs run here; no path may leave it. */
  root: string;
  storage: StudyStorage;
  queue: JobQueue;
  runner: JobRunner;
  /** The commands jobs may run. */
  commands: readonly JobCommand[];
  /** The profile and the planner's worker plan behind the pool. */
  plan: PlanHere;
  /** Worker slots of the job pool. */
  poolSlots: number;
  events: LiveEvents;
  version: string;
}

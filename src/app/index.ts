export { openProject, type OpenProjectOptions, type Project } from './open-project.js';
export { tradelabVersion } from './version.js';
export {
  DEFAULT_DATASET,
  planHere,
  resolvePlanBackend,
  type PlanHere,
  type PlanRequest,
} from './plan-here.js';
export { startBackend } from './start-backend.js';

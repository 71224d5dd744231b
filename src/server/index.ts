export {
  commandName,
  jobArgv,
  type JobCommand,
  type JobOption,
  type JobPositional,
} from './job-commands.js';
export { isLoopback, TOKEN_COOKIE } from './security.js';
export { loadServerToken, TOKEN_FILE, type TokenCheck } from './server-token.js';
export {
  createServiceApp,
  MAX_BODY_BYTES,
  startService,
  type RunningService,
  type ServiceOptions,
} from './service.js';

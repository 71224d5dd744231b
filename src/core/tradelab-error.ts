/**
 * The one error type tradelab throws on purpose. Each has a stable `code` that scripts may match on,
 * a message that says what failed and with which value, and a `hint` that says how to fix it.
 */

/** How an error code is reported: usage and config errors exit 2, runtime failures exit 1. */
export type ErrorCategory = 'usage' | 'config' | 'runtime';

/**
 * Stable error codes and the category each belongs to; docs/errors.md says what each means and how
 * to fix it. A code is something a user or a script acts on. Never rename one: scripts match on it.
 */
export const ERROR_CODES = {
  USAGE: 'usage',
  UNKNOWN_COMMAND: 'usage',
  UNKNOWN_OPTION: 'usage',
  INVALID_ARGUMENT: 'usage',
  UNKNOWN_PROFILE: 'usage',
  AMBIGUOUS_PROFILE: 'usage',
  CONFIG_NOT_FOUND: 'config',
  CONFIG_PARSE: 'config',
  CONFIG_INVALID: 'config',
  PROFILE_INVALID: 'config',
  PLAN_DOES_NOT_FIT: 'runtime',
  STUDY_NOT_FOUND: 'usage',
  STUDY_EXISTS: 'usage',
  CAMPAIGN_NOT_FOUND: 'usage',
  TRIAL_NOT_FOUND: 'usage',
  JOB_NOT_FOUND: 'usage',
  // A job asked to change in a way its state does not allow (cancel an ended one, retry a running one).
  JOB_ENDED: 'usage',
  JOB_NOT_ENDED: 'usage',
  // A path given to the service (an option, a name) that would leave the project's directory.
  PATH_OUTSIDE_PROJECT: 'usage',
  ARTIFACT_NOT_FOUND: 'usage',
  INVALID_STORAGE_URL: 'usage',
  STORAGE_CONFLICT: 'runtime',
  STORAGE_SCHEMA: 'runtime',
  STORAGE_UNAVAILABLE: 'runtime',
  INVALID_SUGGESTION: 'usage',
  MODEL_NOT_FOUND: 'usage',
  // A damaged model is found at run time, like damaged data; it is not configuration.
  MODEL_INVALID: 'runtime',
  // Training produced weights that are not finite (NaN, ±Infinity); they are not saved.
  TRAINING_DIVERGED: 'runtime',
  OUT_OF_MEMORY: 'runtime',
  // Something named on the command line is not there, or is already there.
  FILE_NOT_FOUND: 'usage',
  DATASET_NOT_FOUND: 'usage',
  // A write would replace a dataset of another origin (imported files, synth, another parent).
  DATASET_EXISTS: 'usage',
  RUN_EXISTS: 'usage',
  // A module the user wrote to set up the work (an objective) is wrong.
  OBJECTIVE_INVALID: 'config',
  // The command was well-formed; what it found at run time made it fail.
  DATA_INVALID: 'runtime',
  DATA_MISMATCH: 'runtime',
  DATA_TOO_SHORT: 'runtime',
  DATA_STORE_INVALID: 'runtime',
  DATA_STORE_LOCKED: 'runtime',
  FORMAT_UNSUPPORTED: 'runtime',
  FILE_ACCESS: 'runtime',
  NOT_ENOUGH_TRIALS: 'runtime',
  STUDY_RUNNING: 'runtime',
  BACKEND_UNAVAILABLE: 'runtime',
  WORKER_FAILED: 'runtime',
  // A study's own setup is at odds with what was asked (another direction, objects of this process).
  STUDY_CONFLICT: 'usage',
  STUDY_NOT_PORTABLE: 'usage',
  OBJECTIVE_NOT_FOUND: 'usage',
  // A study run whose every trial failed.
  TRIALS_FAILED: 'runtime',
  INTERNAL: 'runtime',
} as const satisfies Record<string, ErrorCategory>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Options for {@link TradelabError}. */
export interface TradelabErrorOptions {
  /** How to fix it, in one sentence. */
  hint?: string;
  /** The lower-level error this one explains. */
  cause?: unknown;
  /** Machine-readable context (file, key path, value) for `--json` output. */
  details?: Record<string, unknown>;
}

/** An error with a stable code, an actionable message and an optional hint. */
export class TradelabError extends Error {
  override readonly name = 'TradelabError';
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: TradelabErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  /** Whether the user (command line, config) or the run itself is at fault. */
  get category(): ErrorCategory {
    return ERROR_CODES[this.code];
  }

  /** The process exit code the CLI uses for this error: 2 for usage/config, 1 for runtime. */
  get exitCode(): 1 | 2 {
    return this.category === 'runtime' ? 1 : 2;
  }
}

/** Whether a value is a {@link TradelabError}, optionally with the given code. */
export function isTradelabError(value: unknown, code?: ErrorCode): value is TradelabError {
  return value instanceof TradelabError && (code === undefined || value.code === code);
}

import { existsSync } from 'node:fs';
import { z } from '@hono/zod-openapi';
import { pathInsideProject, TradelabError } from '../core/index.js';
import { parseWorkersRequest } from '../app/index.js';
import type { JobRequest } from '../jobs/index.js';

/*
 * What a job may run: a fixed list of tradelab commands, each with the options it allows. The
 * service gets the list from the CLI (which owns the commands) and turns it into the request
 * schema, so the API and `--help` never drift apart. Nothing else reaches a command line: no
 * setting flags (--storage, --data-dir: the service's own are used), no objective modules (code),
 * and every path stays inside the project.
 */

/** An option a job may pass. */
export interface JobOption {
  name: string;
  type: 'string' | 'boolean';
  /** Placeholder, e.g. `N`, `DIR`. */
  value?: string;
  description: string;
  /** Its value is a path (checked to stay inside the project). */
  path: boolean;
  /** Values starting with this prefix name a path after it, checked as one (`tcn:DIR`). */
  pathAfter?: string;
}

/** A positional a job may pass. */
export interface JobPositional {
  name: string;
  description: string;
  required: boolean;
  path: boolean;
  /** It names an input that must exist (a campaign file), checked when the job is submitted. */
  mustExist: boolean;
  /**
   * The extensions its file may have (`.yaml`, `.yml`, `.json` for a campaign file), checked when
   * the job is submitted: a job is never pointed at another kind of file (`.env`). Default any.
   */
  extensions?: readonly string[];
}

/** A command jobs may run. */
export interface JobCommand {
  /** Its words, e.g. `['train', 'ppo']`. */
  words: readonly string[];
  summary: string;
  positionals: readonly JobPositional[];
  options: readonly JobOption[];
  /** It prints plain progress lines with `--progress-interval`. */
  progress: boolean;
  /** It runs trial workers of its own (`--workers`): it occupies that many slots. */
  usesWorkers: boolean;
  /**
   * It takes `--inside-project`, which keeps the paths its input file names (a campaign file's
   * storage, policy and study files) inside the project: every job of it runs with it.
   */
  confined: boolean;
}

/** The name of a command in requests: its words joined by a space. */
export function commandName(command: JobCommand): string {
  return command.words.join(' ');
}

const SAFE_TEXT = z
  .string()
  .max(1000)
  .refine((s) => !s.includes('\0') && !s.startsWith('-'), {
    message: 'must not contain NUL or start with "-"',
  });

/** The zod schema of one command's job requests. */
function requestSchemaOf(command: JobCommand) {
  const options: Record<string, z.ZodType> = {};
  for (const o of command.options) {
    // A value is a string as on the command line; a number is taken as it would be written.
    options[o.name] = (o.type === 'boolean' ? z.boolean() : z.union([SAFE_TEXT, z.number()]))
      .optional()
      .openapi({ description: `${o.value === undefined ? '' : `${o.value}: `}${o.description}` });
  }
  const name = commandName(command);
  return z
    .object({
      command: z.literal(name).openapi({ description: command.summary }),
      positionals: z
        .array(SAFE_TEXT)
        .max(command.positionals.length)
        .default([])
        .openapi({
          description:
            command.positionals.length === 0
              ? 'none'
              : command.positionals.map((p) => `${p.name}: ${p.description}`).join('; '),
        }),
      options: z.strictObject(options).default({}),
    })
    .openapi(`Job_${name.replace(/[^a-z0-9]+/gi, '_')}`);
}

/** The schema of a job request: one of the commands, with its own options. */
export function jobRequestSchema(commands: readonly JobCommand[]): z.ZodType<JobRequest> {
  const [first, ...rest] = commands.map(requestSchemaOf);
  if (first === undefined) throw new Error('no job commands');
  // Keyed by `command`: a bad option is reported at its own path (options.steps), not as "no
  // alternative matched".
  return z.discriminatedUnion('command', [first, ...rest], {
    error: (issue) =>
      typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input)
        ? `not a command jobs may run; one of: ${commands.map(commandName).join(', ')}`
        : 'expected a JSON object {"command", "positionals", "options"}',
  }) as unknown as z.ZodType<JobRequest>;
}

/** What {@link jobArgv} makes of a request. */
export interface JobLaunch {
  argv: string[];
  slots: number;
}

/**
 * The command line of a validated request, and the slots it takes out of `poolSlots`: paths are
 * checked against `root`; `--json` makes the command's results rows of the job's result,
 * `--progress-records` its progress records the job's progress (jobs/progress-record.ts),
 * `--inside-project` keeps what its input file names inside the project too (checked by the job's
 * process when it reads the file, which may change after this), and `--progress-interval 1` makes
 * progress records come every second.
 */
export function jobArgv(
  commands: readonly JobCommand[],
  request: JobRequest,
  root: string,
  poolSlots: number,
  /** The worker processes `--workers auto` means for this request (plannedJobWorkers), if known. */
  plannedWorkers?: number,
): JobLaunch {
  const command = commands.find((c) => commandName(c) === request.command);
  if (command === undefined) {
    throw new TradelabError('INVALID_ARGUMENT', `jobs cannot run "${request.command}"`, {
      hint: `one of: ${commands.map(commandName).join(', ')}`,
    });
  }
  const missing = command.positionals.filter(
    (p, i) => p.required && request.positionals[i] === undefined,
  );
  if (missing.length > 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${request.command} needs ${missing.map((p) => p.name).join(' and ')}`,
      { hint: `positionals: ${command.positionals.map((p) => p.name).join(' ')}` },
    );
  }
  const argv = [...command.words];
  request.positionals.forEach((value, i) => {
    const spec = command.positionals[i];
    if (spec?.path === true) {
      const absolute = pathInsideProject(root, value, `positional ${spec.name}`);
      const extensions = spec.extensions ?? [];
      if (extensions.length > 0 && !extensions.some((e) => value.toLowerCase().endsWith(e))) {
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `positional ${spec.name}: "${value}" is not a ${extensions.join(', ')} file`,
          {
            hint: `${request.command} reads ${spec.description}: name one, e.g. campaigns/btc-1h.yaml`,
            details: { path: value, field: `positional ${spec.name}` },
          },
        );
      }
      if (spec.mustExist && !existsSync(absolute)) {
        throw new TradelabError('FILE_NOT_FOUND', `${spec.name} "${value}" is not in the project`, {
          hint: `paths are relative to the project (${root}); copy the file there first`,
          details: { path: value, field: `positional ${spec.name}` },
        });
      }
    }
    argv.push(value);
  });
  for (const [name, value] of Object.entries(request.options)) {
    const spec = command.options.find((o) => o.name === name);
    if (spec === undefined || (name === 'workers' && command.usesWorkers)) continue;
    if (spec.type === 'boolean') {
      if (value === true) argv.push(`--${name}`);
      continue;
    }
    const text = String(value);
    if (spec.path) pathInsideProject(root, text, `option --${name}`);
    // `--policy tcn:DIR` names a pretrained encoder's run directory.
    if (spec.pathAfter !== undefined && text.startsWith(spec.pathAfter))
      pathInsideProject(
        root,
        text.slice(spec.pathAfter.length),
        `option --${name} ${spec.pathAfter}DIR`,
      );
    argv.push(`--${name}`, text);
  }
  let slots = 1;
  if (command.usesWorkers) {
    // A job holds a slot per worker process it starts: what it asks, else what `auto` means for
    // it (the same planner as the CLI's), at most the pool; past the pool it is told the pool.
    const asked = parseWorkersRequest(request.options.workers, 'options.workers');
    const count = asked === 'auto' ? undefined : asked;
    const wanted = count ?? plannedWorkers ?? poolSlots;
    slots = Math.max(1, Math.min(wanted, poolSlots));
    if (count !== undefined || wanted > slots)
      argv.push('--workers', String(Math.min(wanted, slots)));
    else if (request.options.workers !== undefined) argv.push('--workers', 'auto');
  }
  argv.push('--json', '--progress-records');
  if (command.confined) argv.push('--inside-project');
  if (command.progress) argv.push('--progress-interval', '1');
  return { argv, slots };
}

import { LOCATED_FILE_EXTENSIONS } from '../config/index.js';
import type { JobCommand } from '../server/index.js';
import type { CommandSpec } from './command-spec.js';

/** The commands a service's jobs may run: the long ones a user would rather queue. */
export const JOB_COMMAND_NAMES: readonly string[] = [
  'train ppo',
  'train forecast',
  'pretrain tcn',
  'study run',
  'campaign run',
  'data synth',
  'data resample',
  'bench data',
  'bench env',
  'bench eval',
  'bench ppo',
  'bench ppo-update',
  'bench tcn',
  'bench tune',
  'bench campaign',
  'bench learn',
];

/**
 * Options a job may not pass: code to load (`--objective MODULE`), files of the installation
 * (`--save-choice`), and what the service sets itself (`--progress-interval`, `--inside-project`).
 */
const WITHHELD_OPTIONS = new Set([
  'objective',
  'save-choice',
  'progress-interval',
  'inside-project',
]);

/** The kinds of file a job command's FILE may be, by command: a campaign file is YAML or JSON. */
const FILE_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'campaign run': LOCATED_FILE_EXTENSIONS,
};

/** The job commands of the CLI's command table, with their allowed options. */
export function jobCommandsOf(commands: readonly CommandSpec[]): JobCommand[] {
  return JOB_COMMAND_NAMES.map((name) => {
    const spec = commands.find((c) => c.words.join(' ') === name);
    if (spec === undefined) throw new Error(`no command ${name} for jobs`);
    return {
      words: spec.words,
      summary: spec.summary,
      positionals: spec.positionals.map((p) => ({
        name: p.name,
        description: p.description,
        required: p.required,
        path: p.path === true,
        mustExist: p.name === 'FILE',
        ...(p.name === 'FILE' && FILE_EXTENSIONS[name] !== undefined
          ? { extensions: FILE_EXTENSIONS[name] }
          : {}),
      })),
      options: spec.options
        .filter((o) => !WITHHELD_OPTIONS.has(o.name))
        .map((o) => ({
          name: o.name,
          type: o.type,
          ...(o.value === undefined ? {} : { value: o.value }),
          description: o.description,
          path: o.path === true,
          ...(o.pathAfter === undefined ? {} : { pathAfter: o.pathAfter }),
        })),
      progress: spec.options.some((o) => o.name === 'progress-interval'),
      usesWorkers: spec.options.some((o) => o.name === 'workers'),
      confined: spec.options.some((o) => o.name === 'inside-project'),
    };
  });
}

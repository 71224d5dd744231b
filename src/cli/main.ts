import { parseArgs, type ParseArgsConfig } from 'node:util';
import { settingSpec, type SettingName } from '../config/index.js';
import { closestMatch, TradelabError } from '../core/index.js';
import { type Project, tradelabVersion } from '../app/index.js';
import type { CommandSpec } from './command-spec.js';
import { COMMANDS } from './command-table.js';
import { commandHelp, GLOBAL_OPTIONS, mainHelp } from './help.js';
import { createOutput, type OutputStreams } from './output.js';
import { reportError } from './report-error.js';

/** What the CLI runs against; tests pass their own. */
export interface CliEnvironment extends OutputStreams {
  cwd: string;
  env: Record<string, string | undefined>;
}

/** Runs one command line and returns the exit code: 0 ok, 1 runtime failure, 2 usage or config error. */
export async function runCli(argv: readonly string[], io: CliEnvironment): Promise<number> {
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const json = argv.includes('--json');
  try {
    const { spec, rest } = findCommand(argv);
    if (spec === undefined) {
      if (rest.includes('--version')) {
        io.stdout.write(`${version()}\n`);
        return 0;
      }
      const words = rest.filter((a) => !a.startsWith('-'));
      if (
        words.length === 0 ||
        rest.includes('--help') ||
        rest.includes('-h') ||
        words[0] === 'help'
      ) {
        const topic = words[0] === 'help' ? findCommand(words.slice(1)).spec : undefined;
        io.stdout.write(`${topic === undefined ? mainHelp(version()) : commandHelp(topic)}\n`);
        return 0;
      }
      throw unknownCommand(words);
    }
    const parsed = parseCommandLine(spec, rest);
    if (parsed.values.help === true) {
      io.stdout.write(`${commandHelp(spec)}\n`);
      return 0;
    }
    checkPositionals(spec, parsed.positionals);
    const flags: Partial<Record<SettingName, string>> = {};
    for (const name of spec.settings) {
      const value = parsed.values[settingSpec(name).flag];
      if (value !== undefined) flags[name] = String(value);
    }
    const configPath = parsed.values.config;
    let project: Project | undefined;
    // Loaded here, not at the top: `--help` must not pay for zod and yaml.
    const [module, { openProject }] = await Promise.all([spec.load(), import('../app/index.js')]);
    const code = await module.run({
      options: parsed.values,
      positionals: parsed.positionals,
      cwd: io.cwd,
      out: createOutput(io, json),
      verbose,
      project: () =>
        (project ??= openProject({
          cwd: io.cwd,
          env: io.env,
          flags,
          ...(typeof configPath === 'string' ? { configPath } : {}),
        })),
    });
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    return reportError(error, { ...io, verbose, json });
  }
}

function findCommand(argv: readonly string[]): { spec: CommandSpec | undefined; rest: string[] } {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  let best: CommandSpec | undefined;
  for (const spec of COMMANDS) {
    const matches = spec.words.every((w, i) => words[i] === w);
    if (matches && spec.words.length > (best?.words.length ?? 0)) best = spec;
  }
  return { spec: best, rest: best === undefined ? [...argv] : argv.slice(best.words.length) };
}

function parseCommandLine(spec: CommandSpec, args: readonly string[]) {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const g of GLOBAL_OPTIONS) {
    options[g.name] = {
      type: 'value' in g ? 'string' : 'boolean',
      ...('short' in g ? { short: g.short } : {}),
    };
  }
  for (const o of spec.options)
    options[o.name] = { type: o.type, ...(o.short === undefined ? {} : { short: o.short }) };
  for (const name of spec.settings) {
    const s = settingSpec(name);
    options[s.flag] = { type: s.kind === 'boolean' ? 'boolean' : 'string' };
  }
  try {
    const parsed = parseArgs({
      args: negativeValuesJoined(args, options),
      options,
      allowPositionals: true,
      strict: true,
      allowNegative: true,
    });
    // No option is declared `multiple`, so no value is an array.
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const unknown = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const guess = closestMatch(unknown.replace(/^-+/, ''), Object.keys(options));
      throw new TradelabError(
        'UNKNOWN_OPTION',
        `unknown option ${unknown} for \`tradelab ${spec.words.join(' ')}\``,
        {
          hint:
            guess === undefined
              ? `see \`tradelab ${spec.words.join(' ')} --help\``
              : `did you mean --${guess}?`,
          cause,
        },
      );
    }
    // "Option '--trials' argument is ambiguous" / "Option '-n, --trials <value>' argument missing".
    const valueless =
      /^Option '(?:-\w, )?(--?[\w-]+)(?: <value>)?' argument (?:is ambiguous|missing)/.exec(
        message,
      )?.[1];
    if (valueless !== undefined)
      throw new TradelabError('USAGE', `${valueless} needs a value`, {
        hint: `e.g. ${valueless} VALUE (a value that starts with a dash: ${valueless}=-VALUE); see \`tradelab ${spec.words.join(' ')} --help\``,
        cause,
      });
    throw new TradelabError('USAGE', message.split('\n')[0] ?? message, {
      hint: `see \`tradelab ${spec.words.join(' ')} --help\``,
      cause,
    });
  }
}

/**
 * `--trials -5` as `--trials=-5`: parseArgs takes a value after an option only when it does not
 * start with a dash, and calls a negative number "ambiguous"; joined, the value reaches the
 * option's own check, which says what is allowed. Nothing after `--` is touched.
 */
function negativeValuesJoined(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    takesValue.set(`--${name}`, name);
    if (option.short !== undefined) takesValue.set(`-${option.short}`, name);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const name = takesValue.get(arg);
    const next = args[i + 1];
    if (name !== undefined && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const required = spec.positionals.filter((p) => p.required);
  const usage =
    `tradelab ${spec.words.join(' ')} ${spec.positionals.map((p) => p.name).join(' ')}`.trim();
  if (positionals.length < required.length) {
    throw new TradelabError(
      'USAGE',
      `missing ${required[positionals.length]?.name ?? 'argument'}: usage: ${usage}`,
      {
        hint: `see \`tradelab ${spec.words.join(' ')} --help\``,
      },
    );
  }
  if (positionals.length > spec.positionals.length && spec.positionals.at(-1)?.variadic !== true) {
    throw new TradelabError(
      'USAGE',
      `unexpected argument "${positionals[spec.positionals.length] ?? ''}": usage: ${usage}`,
      {
        hint:
          spec.positionals.length === 0
            ? `\`tradelab ${spec.words.join(' ')}\` takes no arguments, only options: see its --help`
            : `it takes ${spec.positionals.length}: see \`tradelab ${spec.words.join(' ')} --help\``,
      },
    );
  }
}

function unknownCommand(words: readonly string[]): TradelabError {
  const typed = words.join(' ');
  const names = COMMANDS.map((c) => c.words.join(' '));
  const group = COMMANDS.filter((c) => c.words[0] === words[0]);
  const guess = closestMatch(typed, names);
  return new TradelabError('UNKNOWN_COMMAND', `unknown command "${typed}"`, {
    hint:
      group.length > 0
        ? `\`${words[0] ?? ''}\` takes: ${group.map((c) => c.words.slice(1).join(' ')).join(', ')}`
        : guess === undefined
          ? 'run `tradelab --help` for the list of commands'
          : `did you mean \`tradelab ${guess}\`?`,
  });
}

function version(): string {
  return tradelabVersion();
}

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { settingSpec, type SettingName } from '../config/index.js';
import { closestMatch, TradelabError } from '../core/index.js';
import { type Project, tradelabVersion } from '../app/index.js';
import type { CommandSpec } from './command-spec.js';
import { COMMANDS } from './command-table.js';
import { GLOBAL_OPTIONS } from './global-options.js';
import { commandGroups, commandHelp, groupHelp, mainHelp } from './help.js';
import { createOutput, type OutputStreams } from './output.js';
import { reportError } from './report-error.js';
import { colorFlag, colorWanted, createStyle, type Style } from './style.js';

/** What the CLI runs against; tests pass their own. */
export interface CliEnvironment extends OutputStreams {
  cwd: string;
  env: Record<string, string | undefined>;
}

/** Runs one command line and returns the exit code: 0 ok, 1 runtime failure, 2 usage or config error. */
export async function runCli(argv: readonly string[], io: CliEnvironment): Promise<number> {
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const json = argv.includes('--json');
  const flag = colorFlag(argv);
  const style = (stream: OutputStreams['stdout']): Style =>
    createStyle(colorWanted({ isTTY: isTerminal(stream), env: io.env, flag }));
  const errStyle = style(io.stderr);
  try {
    const { spec, rest } = findCommand(argv);
    if (spec === undefined) return withoutCommand(rest, io, style(io.stdout));
    const parsed = parseCommandLine(spec, rest);
    if (parsed.values.version === true) {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    if (parsed.values.help === true) {
      io.stdout.write(`${commandHelp(spec, style(io.stdout))}\n`);
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
      commands: COMMANDS,
      out: createOutput(io, json, errStyle, parsed.values['progress-records'] === true),
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
    return reportError(error, { ...io, verbose, json, style: errStyle });
  }
}

/**
 * A line naming no command: the version, the main help, a group's help (`tradelab data`), `help
 * TOPIC`, or an unknown command. Options are checked as on any command line: only the global ones.
 */
function withoutCommand(args: readonly string[], io: CliEnvironment, style: Style): number {
  const leading: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-')) break;
    leading.push(arg);
  }
  // `tradelab frob --x`: the command is what is wrong, whatever its options.
  if (leading.length > 0 && leading[0] !== 'help' && !commandGroups().includes(leading[0] ?? ''))
    throw unknownCommand(leading);
  const { values, positionals: words } = parseArgsOrExplain(
    args,
    globalParseOptions(),
    'tradelab',
    true,
  );
  if (values.version === true) {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const topic = words[0] === 'help' ? words.slice(1) : words;
  if (topic.length === 0) {
    io.stdout.write(`${mainHelp(version(), style)}\n`);
    return 0;
  }
  const spec = findCommand(topic).spec;
  if (spec !== undefined && words[0] !== 'help')
    // `tradelab --json data list`: the command must come first, as its options follow it.
    throw new TradelabError('USAGE', `options go after the command: ${args.join(' ')}`, {
      hint: `e.g. \`tradelab ${spec.words.join(' ')} ${args.filter((a) => !topic.includes(a)).join(' ')}\``,
    });
  if (spec !== undefined) {
    io.stdout.write(`${commandHelp(spec, style)}\n`);
    return 0;
  }
  if (topic.length === 1 && commandGroups().includes(topic[0] ?? '')) {
    io.stdout.write(`${groupHelp(topic[0] ?? '', style)}\n`);
    return 0;
  }
  throw unknownCommand(topic);
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

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/** The global options, as parseArgs takes them. */
function globalParseOptions(): ParseOptions {
  const options: ParseOptions = {};
  for (const g of GLOBAL_OPTIONS) {
    options[g.name] = {
      type: g.value === undefined ? 'boolean' : 'string',
      ...(g.short === undefined ? {} : { short: g.short }),
    };
  }
  return options;
}

/** A command's arguments (after its words) as its options and positionals, as the CLI reads them. */
export function parseCommandLine(spec: CommandSpec, args: readonly string[]) {
  const options = globalParseOptions();
  for (const o of spec.options)
    options[o.name] = { type: o.type, ...(o.short === undefined ? {} : { short: o.short }) };
  for (const name of spec.settings) {
    const s = settingSpec(name);
    options[s.flag] = { type: s.kind === 'boolean' ? 'boolean' : 'string' };
  }
  return parseArgsOrExplain(args, options, `tradelab ${spec.words.join(' ')}`, true);
}

/** parseArgs, its errors turned into UNKNOWN_OPTION (with the closest option) or USAGE. */
function parseArgsOrExplain(
  args: readonly string[],
  options: ParseOptions,
  command: string,
  allowPositionals: boolean,
) {
  try {
    const parsed = parseArgs({
      args: negativeValuesJoined(args, options),
      options,
      allowPositionals,
      strict: true,
      allowNegative: true,
    });
    // No option is declared `multiple`, so no value is an array.
    const values: Record<string, string | boolean | undefined> = {};
    for (const [name, value] of Object.entries(parsed.values)) {
      // allowNegative reads `--no-test`, for an option declared as `no-test`, as `test: false`,
      // also where the command declares `--test` too: put it back under the name the command
      // declared and reads.
      if (value === false && `no-${name}` in options) values[`no-${name}`] = true;
      else values[name] = value as string | boolean | undefined;
    }
    return { values, positionals: parsed.positionals };
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const unknown = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const guess = closestMatch(unknown.replace(/^-+/, ''), Object.keys(options));
      throw new TradelabError('UNKNOWN_OPTION', `unknown option ${unknown} for \`${command}\``, {
        hint: guess === undefined ? `see \`${command} --help\`` : `did you mean --${guess}?`,
        cause,
      });
    }
    // "Option '--trials' argument is ambiguous" / "Option '-n, --trials <value>' argument missing".
    const valueless =
      /^Option '(?:-\w, )?(--?[\w-]+)(?: <value>)?' argument (?:is ambiguous|missing)/.exec(
        message,
      )?.[1];
    if (valueless !== undefined)
      throw new TradelabError('USAGE', `${valueless} needs a value`, {
        hint: `e.g. ${valueless} VALUE (a value that starts with a dash: ${valueless}=-VALUE); see \`${command} --help\``,
        cause,
      });
    throw new TradelabError('USAGE', message.split('\n')[0] ?? message, {
      hint: `see \`${command} --help\``,
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

/** Whether a stream is a terminal (tests pass plain buffers, which are not). */
function isTerminal(stream: OutputStreams['stdout']): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

function version(): string {
  return tradelabVersion();
}

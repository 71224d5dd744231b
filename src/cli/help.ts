import { settingSpec } from '../config/index.js';
import type { CommandSpec } from './command-spec.js';
import { COMMANDS } from './command-table.js';
import { GLOBAL_OPTIONS } from './global-options.js';
import { PLAIN, type Style } from './style.js';

/** The command groups (`data`, `study`, …): first words shared by several-word commands. */
export function commandGroups(): string[] {
  return [...new Set(COMMANDS.filter((c) => c.words.length > 1).map((c) => c.words[0] ?? ''))];
}

/** One line per command: its words and summary, aligned. */
function commandLines(commands: readonly CommandSpec[]): string[] {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`);
}

/** The top-level help: the commands and the global options. */
export function mainHelp(version: string, style: Style = PLAIN): string {
  return [
    `tradelab ${version}: train and tune trading models sized to your GPU`,
    '',
    `${style.bold('Usage:')} tradelab <command> [options]`,
    '',
    style.bold('Commands:'),
    ...commandLines(COMMANDS),
    '',
    style.bold('Global options:'),
    ...globalLines(),
    '',
    "Run `tradelab <command> --help` for a command's options.",
    'Settings: flag > environment (and .env) > tradelab.config.yaml > detected > default.',
  ].join('\n');
}

/** Help for a group of commands (`tradelab data`): its commands and the global options. */
export function groupHelp(group: string, style: Style = PLAIN): string {
  return [
    `${style.bold('Usage:')} tradelab ${group} <command> [options]`,
    '',
    style.bold('Commands:'),
    ...commandLines(COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === group)),
    '',
    style.bold('Global options:'),
    ...globalLines(),
    '',
    `Run \`tradelab ${group} <command> --help\` for a command's options.`,
  ].join('\n');
}

/** Help for one command. */
export function commandHelp(spec: CommandSpec, style: Style = PLAIN): string {
  const positionals = spec.positionals.map((p) => (p.required ? p.name : `[${p.name}]`)).join(' ');
  const rows: [string, string][] = [
    ...spec.positionals.map((p): [string, string] => [p.name, p.description]),
    ...spec.options.map((o): [string, string] => [
      `--${o.name}${o.value === undefined ? '' : ` ${o.value}`}`,
      o.description,
    ]),
    ...spec.settings.map((name): [string, string] => {
      const s = settingSpec(name);
      const flag =
        s.kind === 'boolean'
          ? `--[no-]${s.flag}`
          : `--${s.flag} ${s.kind === 'path' ? 'PATH' : 'VALUE'}`;
      const env = s.env.length > 0 ? ` [env ${s.env.join(', ')}]` : '';
      return [flag, `${s.description}${env}`];
    }),
  ];
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return [
    `${style.bold('Usage:')} tradelab ${spec.words.join(' ')}${positionals === '' ? '' : ` ${positionals}`} [options]`,
    '',
    spec.summary,
    ...(rows.length > 0
      ? ['', style.bold('Options:'), ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`)]
      : []),
    '',
    style.bold('Global options:'),
    ...globalLines(),
    ...(spec.examples.length > 0
      ? ['', style.bold('Examples:'), ...spec.examples.map((e) => `  ${e}`)]
      : []),
  ].join('\n');
}

function globalLines(): string[] {
  const left = GLOBAL_OPTIONS.map(
    (o) =>
      `${o.short === undefined ? '    ' : `-${o.short}, `}${o.display ?? `--${o.name}`}${o.value === undefined ? '' : ` ${o.value}`}`,
  );
  const width = Math.max(...left.map((l) => l.length));
  return GLOBAL_OPTIONS.map((o, i) => `  ${(left[i] ?? '').padEnd(width)}  ${o.description}`);
}

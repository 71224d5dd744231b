import { settingSpec } from '../config/index.js';
import type { CommandSpec } from './command-spec.js';
import { COMMANDS } from './command-table.js';

/** Options every command takes. */
export const GLOBAL_OPTIONS = [
  { name: 'json', description: 'print data as JSON, one object per line' },
  { name: 'verbose', short: 'v', description: 'print the stack trace of errors' },
  {
    name: 'config',
    value: 'PATH',
    description: 'use this config file instead of searching for one',
  },
  { name: 'help', short: 'h', description: 'show help' },
] as const;

/** The top-level help: the commands and the global options. */
export function mainHelp(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.words.join(' ').length));
  return [
    `tradelab ${version}: train and tune trading models sized to your GPU`,
    '',
    'Usage: tradelab <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Global options:',
    ...globalLines(),
    '',
    "Run `tradelab <command> --help` for a command's options.",
    'Settings: flag > environment (and .env) > tradelab.config.yaml > detected > default.',
  ].join('\n');
}

/** Help for one command. */
export function commandHelp(spec: CommandSpec): string {
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
    `Usage: tradelab ${spec.words.join(' ')}${positionals === '' ? '' : ` ${positionals}`} [options]`,
    '',
    spec.summary,
    ...(rows.length > 0
      ? ['', 'Options:', ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`)]
      : []),
    '',
    'Global options:',
    ...globalLines(),
    ...(spec.examples.length > 0 ? ['', 'Examples:', ...spec.examples.map((e) => `  ${e}`)] : []),
  ].join('\n');
}

function globalLines(): string[] {
  const left = GLOBAL_OPTIONS.map(
    (o) =>
      `${'short' in o ? `-${o.short}, ` : '    '}--${o.name}${'value' in o ? ` ${o.value}` : ''}`,
  );
  const width = Math.max(...left.map((l) => l.length));
  return GLOBAL_OPTIONS.map((o, i) => `  ${(left[i] ?? '').padEnd(width)}  ${o.description}`);
}

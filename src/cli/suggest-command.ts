import { isAbsolute, relative } from 'node:path';
import { settingSpec, type SettingName } from '../config/index.js';
import { shellQuote } from '../core/index.js';
import type { CommandContext } from './command-spec.js';

/**
 * The settings that say where stored things are. A suggested command that left out one a run was
 * given as a flag would look elsewhere (the project's default database) and fail: the quickstart's
 * `campaign report quickstart` once did, its studies being in the quickstart's own database.
 */
const LOCATION_SETTINGS: readonly SettingName[] = [
  'storage',
  'dataDir',
  'artifactDir',
  'runsDir',
  'profilesFile',
];

/**
 * A `tradelab …` command line to print as a next step, which works as printed from the project:
 * `words` (the command's words, then its arguments) shell-quoted, then the location settings this
 * run was given as flags and the suggested command takes (`--storage`, `--data-dir`, …), and
 * `settings`, values this run used from elsewhere (a campaign file's `storage:`).
 */
export function suggestCommand(
  context: CommandContext,
  words: readonly string[],
  settings: Partial<Record<SettingName, string>> = {},
): string {
  const spec = context.commands
    .filter((command) => command.words.every((word, i) => words[i] === word))
    .sort((a, b) => b.words.length - a.words.length)[0];
  const config = context.project().config;
  const flags: string[] = [];
  for (const name of LOCATION_SETTINGS) {
    if (spec !== undefined && !spec.settings.includes(name)) continue;
    const given = settings[name];
    const value =
      given !== undefined && given !== config.settings[name]
        ? given
        : config.sources[name].kind === 'flag'
          ? config.settings[name]
          : undefined;
    if (typeof value !== 'string') continue;
    flags.push(`--${settingSpec(name).flag}`, shortPath(value, config.projectRoot));
  }
  return ['tradelab', ...words, ...flags].map(shellQuote).join(' ');
}

/**
 * A path (or `sqlite:` URL) relative to the project root when it lies inside it: flags resolve
 * against the root, so the shorter form reaches the same file from anywhere in the project.
 */
function shortPath(value: string, root: string): string {
  const sqlite = value.startsWith('sqlite:');
  const path = sqlite ? value.slice('sqlite:'.length) : value;
  if (!isAbsolute(path)) return value;
  const inside = relative(root, path);
  const short = inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
  return sqlite ? `sqlite:${short}` : short;
}

import type { SettingName } from '../config/index.js';
import type { Project } from '../app/index.js';
import type { Output } from './output.js';

/** A command-specific option. */
export interface OptionSpec {
  /** Long name without `--`, kebab-case. */
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** Placeholder in help, e.g. `N`. */
  value?: string;
  description: string;
  /** Its value names a file or directory: a service job's must stay inside the project. */
  path?: boolean;
  /** Values that start with this prefix name a directory after it (`--policy tcn:DIR`). */
  pathAfter?: string;
}

/** A positional argument. */
export interface PositionalSpec {
  name: string;
  description: string;
  required: boolean;
  /** Takes every remaining argument (`FILE...`); only the last positional may. */
  variadic?: boolean;
  /** The only values it takes, when they are a fixed list (shell completion offers them). */
  choices?: readonly string[];
  /** It names a file or directory: a service job's must stay inside the project. */
  path?: boolean;
}

/** What a command receives. */
export interface CommandContext {
  /** Option values by long name (kebab-case), as typed. */
  options: Readonly<Record<string, string | boolean | undefined>>;
  positionals: readonly string[];
  /** The working directory: where relative FILE arguments resolve, as in a shell. */
  cwd: string;
  /** Every command (for `tradelab completion`, which writes them into a script). */
  commands: readonly CommandSpec[];
  out: Output;
  verbose: boolean;
  /** Opens the project (loads and validates config and profiles) on first use. */
  project(): Project;
}

/** The module a command's `load` returns. */
export interface CommandModule {
  /** May resolve to the exit code when it is not 0 (e.g. 130 after Ctrl-C); anything else is 0. */
  run(context: CommandContext): Promise<unknown>;
}

/** A command: words, help, options, and a lazy import of its code (keeps `--help` fast). */
export interface CommandSpec {
  /** The words that name it, e.g. `['profiles', 'plan']`. */
  words: readonly string[];
  summary: string;
  positionals: readonly PositionalSpec[];
  options: readonly OptionSpec[];
  /** Config settings this command takes as flags (`--profile`, `--safety-factor`, …). */
  settings: readonly SettingName[];
  /** Lines shown under "Examples" in its help. */
  examples: readonly string[];
  load(): Promise<CommandModule>;
}

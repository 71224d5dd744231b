import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { TradelabError } from '../core/index.js';
import { CustomProfilesSchema, type CustomProfileInput } from '../profiles/profile-schema.js';
import { findConfigFile, readLocatedFile, type LocatedFile } from './config-file.js';
import { ConfigFileSchema } from './config-schema.js';
import { SETTING_SCHEMAS } from './setting-schemas.js';
import { readEnvFile } from './env-file.js';
import { describeIssue, formatKeyPath, kindOf, showValue, valueAt } from './format-issues.js';
import {
  parseSettingString,
  SETTINGS,
  type SettingName,
  type Settings,
  type SettingSpec,
} from './settings.js';

/** Where a setting's value came from, highest precedence first. */
export type SettingSourceKind = 'flag' | 'env' | 'file' | 'detected' | 'default';

/** The source of one resolved setting, e.g. `{kind: 'env', origin: 'GPU_PROFILE (.env:3)'}`. */
export interface SettingSource {
  kind: SettingSourceKind;
  /** The flag, variable or file position that set it; "built-in default" for defaults. */
  origin: string;
  /**
   * Other environment variables of the setting that were set too and lost to `origin`
   * (`TRADELAB_PROFILE=h200` when GPU_PROFILE won), so a command can say it ignored them.
   */
  ignored?: string[];
}

/** A custom profile definition with a way to say where each of its fields was written. */
export interface CustomProfileSource {
  name: string;
  input: CustomProfileInput;
  /** `file:line:col` of a key path inside this profile's definition. */
  locate(keyPath: readonly PropertyKey[]): string;
}

/** The resolved configuration of one command run. */
export interface Config {
  /** Directory of the config file when one is found, else the working directory. */
  projectRoot: string;
  /** Absolute path of the config file in effect, if any. */
  configFile: string | undefined;
  /** Absolute path of the `.env` file read, if any. */
  envFile: string | undefined;
  settings: Settings;
  sources: Record<SettingName, SettingSource>;
  /** Custom profiles from the config file and the profiles file, in that order. */
  customProfiles: CustomProfileSource[];
}

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Where to start looking for the config file. Default: `process.cwd()`. */
  cwd?: string;
  /** The environment. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Setting values from command-line flags, as typed. */
  flags?: Partial<Record<SettingName, string>>;
  /** An explicit config file (`--config`); otherwise `TRADELAB_CONFIG`, otherwise found by walking up. */
  configPath?: string;
}

/**
 * Resolves every setting from flags, environment (`.env` included, real variables winning), the
 * config file and defaults, validating each value where it was written.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const explicit = options.configPath ?? nonEmpty(env.TRADELAB_CONFIG);
  const configPath = explicit === undefined ? findConfigFile(cwd) : resolve(cwd, explicit);
  const file = configPath === undefined ? undefined : readLocatedFile(configPath);
  const projectRoot = file === undefined ? cwd : dirname(file.path);
  const content = file === undefined ? {} : validateFile(file);
  const envFile = readEnvFile(projectRoot);

  const settings: Record<string, unknown> = {};
  const sources = {} as Record<SettingName, SettingSource>;
  for (const spec of SETTINGS) {
    const { value, source } = resolveSetting(spec, {
      flag: options.flags?.[spec.name],
      env,
      envFile,
      fileValue: valueAt(content, spec.filePath),
      file,
    });
    settings[spec.name] = value === undefined ? undefined : absolutize(spec, value, projectRoot);
    sources[spec.name] = source;
  }

  const customProfiles: CustomProfileSource[] = [];
  if (file !== undefined) {
    const profiles = (content as { profiles?: Record<string, CustomProfileInput> }).profiles ?? {};
    for (const [name, input] of Object.entries(profiles)) {
      customProfiles.push({ name, input, locate: (p) => file.locate(['profiles', name, ...p]) });
    }
  }
  const profilesFile = settings.profilesFile;
  if (typeof profilesFile === 'string') {
    customProfiles.push(...readProfilesFile(profilesFile));
  }

  return {
    projectRoot,
    configFile: file?.path,
    envFile: envFile?.path,
    settings: settings as unknown as Settings,
    sources,
    customProfiles,
  };
}

interface SettingInputs {
  flag: string | undefined;
  env: Record<string, string | undefined>;
  envFile: ReturnType<typeof readEnvFile>;
  fileValue: unknown;
  file: LocatedFile | undefined;
}

function resolveSetting(
  spec: SettingSpec,
  inputs: SettingInputs,
): { value: unknown; source: SettingSource } {
  if (inputs.flag !== undefined) {
    const origin = `--${spec.flag}`;
    return {
      value: checked(spec, parseSettingString(spec, inputs.flag), origin),
      source: { kind: 'flag', origin },
    };
  }
  // Variables in the order of spec.env; for each, the real environment before .env.
  for (const [i, name] of spec.env.entries()) {
    const ignored = spec.env
      .slice(i + 1)
      .map((other) => {
        const value = nonEmpty(inputs.env[other]) ?? nonEmpty(inputs.envFile?.values[other]);
        return value === undefined ? undefined : `${other}=${value}`;
      })
      .filter((text) => text !== undefined);
    const also = ignored.length === 0 ? {} : { ignored };
    const real = nonEmpty(inputs.env[name]);
    if (real !== undefined) {
      const origin = `environment variable ${name}`;
      return {
        value: checked(spec, parseSettingString(spec, real), origin),
        source: { kind: 'env', origin: name, ...also },
      };
    }
    const fromFile = nonEmpty(inputs.envFile?.values[name]);
    if (fromFile !== undefined && inputs.envFile !== undefined) {
      const where = `${inputs.envFile.path}:${inputs.envFile.lineOf(name) ?? '?'}`;
      return {
        value: checked(spec, parseSettingString(spec, fromFile), `${name} in ${where}`, false),
        source: { kind: 'env', origin: `${name} (${where})`, ...also },
      };
    }
  }
  if (inputs.fileValue !== undefined && inputs.file !== undefined) {
    // Already validated with the whole file.
    return {
      value: inputs.fileValue,
      source: { kind: 'file', origin: inputs.file.locate(spec.filePath) },
    };
  }
  return { value: spec.default, source: { kind: 'default', origin: 'built-in default' } };
}

/**
 * `value` checked against the setting's schema. A bad value is quoted when it was typed (a flag,
 * an environment variable) unless it is a storage URL (it may carry a password); one read from
 * the .env file (`quote` false) is not: that file holds secrets, and the message goes to logs.
 */
function checked(spec: SettingSpec, value: unknown, origin: string, quote = true): unknown {
  const result = SETTING_SCHEMAS[spec.name].safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const allowed = issue?.message ?? 'invalid';
  const shown = quote && spec.kind !== 'storage-url';
  throw new TradelabError(
    origin.startsWith('--') ? 'INVALID_ARGUMENT' : 'CONFIG_INVALID',
    `${origin}: ${shown ? showValue(value) : kindOf(value).replace(/^an? /, 'this ')} is not allowed for ${formatKeyPath(spec.filePath)}: ${allowed}`,
    {
      hint: spec.description,
      details: { origin, key: formatKeyPath(spec.filePath), ...(shown ? { value } : {}) },
    },
  );
}

function validateFile(file: LocatedFile): z.infer<typeof ConfigFileSchema> {
  if (file.data === null || typeof file.data !== 'object' || Array.isArray(file.data)) {
    throw new TradelabError(
      'CONFIG_INVALID',
      `${file.path}: expected a mapping of settings at the top level`,
      {
        hint: 'see README.md "Configuration" for an example file',
      },
    );
  }
  const result = ConfigFileSchema.safeParse(file.data);
  if (result.success) return result.data;
  throw issuesError(file, result.error.issues, ConfigFileSchema, []);
}

function readProfilesFile(path: string): CustomProfileSource[] {
  const file = readLocatedFile(path, 'profiles file');
  const data = file.data;
  const result = CustomProfilesSchema.safeParse(data);
  if (!result.success) throw issuesError(file, result.error.issues, CustomProfilesSchema, []);
  return Object.entries(result.data).map(([name, input]) => ({
    name,
    input,
    locate: (p) => file.locate([name, ...p]),
  }));
}

function issuesError(
  file: LocatedFile,
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  basePath: PropertyKey[],
): TradelabError {
  const lines = issues.map((issue) => {
    const { path, text, at } = describeIssue(issue, file.data, schema, basePath);
    return `${file.locate(path, at)}: ${text}`;
  });
  const [first = file.path, ...rest] = lines;
  return new TradelabError(
    'CONFIG_INVALID',
    rest.length === 0 ? first : `${first}\n${rest.join('\n')}`,
    {
      hint: 'fix the value in the file; `tradelab config show` prints every setting and its source',
      details: { file: file.path, problems: lines },
    },
  );
}

function absolutize(spec: SettingSpec, value: unknown, root: string): unknown {
  if (typeof value !== 'string') return value;
  if (spec.kind === 'path') return isAbsolute(value) ? value : resolve(root, value);
  if (spec.kind === 'storage-url' && value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    return `sqlite:${isAbsolute(path) ? path : resolve(root, path)}`;
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

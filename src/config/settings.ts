/** Compute backends a user can ask for (tfjs names; `cpu` here is tfjs's pure-JavaScript backend). */
export const BACKENDS = ['auto', 'wasm', 'gpu', 'webgpu', 'cpu'] as const;
/** A requested compute backend. */
export type BackendChoice = (typeof BACKENDS)[number];

/** How a setting's value is interpreted once read. */
type SettingKind = 'string' | 'path' | 'storage-url' | 'number' | 'integer' | 'boolean' | 'enum';

/**
 * One setting: where it lives in the config file, its environment variables and its flag. Its
 * validation lives in `setting-schemas.ts`, so `--help` can list settings without loading zod.
 */
export interface SettingSpec {
  /** Key in the resolved settings object. */
  name: SettingName;
  /** Key path in the config file. */
  filePath: readonly string[];
  /** Environment variables that set it, first one wins. */
  env: readonly string[];
  /** Command-line flag, without `--`. */
  flag: string;
  kind: SettingKind;
  /** Built-in default; undefined when the value is optional or detected. */
  default: unknown;
  /** One line for `--help` and `config show`. */
  description: string;
}

/** The resolved settings every command reads. */
export interface Settings {
  /** GPU profile name; undefined means detect. */
  profile: string | undefined;
  /** A YAML/JSON file of custom profiles, besides the config file's `profiles:` section. */
  profilesFile: string | undefined;
  /** Dataset store directory. */
  dataDir: string;
  /** Study storage URL: `sqlite:PATH`, `memory:` or `postgres://…`. */
  storage: string;
  /** Where trial artifacts too large for the storage's database go (every worker must see it). */
  artifactDir: string;
  /** Directory for training run outputs. */
  runsDir: string;
  /** Fraction of GPU memory the planner may use (0 < f ≤ 1). */
  safetyFactor: number;
  /** Compute backend. */
  backend: BackendChoice;
  /** Whether to probe GPU tools (nvidia-smi, rocm-smi, amd-smi, sysfs). */
  detect: boolean;
  /** Time limit for each detection tool, in milliseconds. */
  detectTimeoutMs: number;
}

/** The name of a setting. */
export type SettingName = keyof Settings;

/**
 * Every setting, with its file key, environment variables and flag. Precedence, highest first:
 * flag > environment (including `.env`) > config file > detected > default.
 */
export const SETTINGS: readonly SettingSpec[] = [
  {
    name: 'profile',
    filePath: ['profile'],
    env: ['GPU_PROFILE', 'TRADELAB_PROFILE'],
    flag: 'profile',
    kind: 'string',
    default: undefined,
    description: 'GPU profile name or alias (default: detected, else cpu)',
  },
  {
    name: 'profilesFile',
    filePath: ['profilesFile'],
    env: ['TRADELAB_PROFILES_FILE'],
    flag: 'profiles-file',
    kind: 'path',
    default: undefined,
    description: 'YAML/JSON file of custom profiles',
  },
  {
    name: 'dataDir',
    filePath: ['paths', 'data'],
    env: ['TRADELAB_DATA_DIR'],
    flag: 'data-dir',
    kind: 'path',
    default: '.tradelab/data',
    description: 'dataset store directory',
  },
  {
    name: 'storage',
    filePath: ['paths', 'storage'],
    env: ['TRADELAB_STORAGE'],
    flag: 'storage',
    kind: 'storage-url',
    default: 'sqlite:./tradelab.db',
    description: 'study storage URL (sqlite:PATH, memory:, postgres://…)',
  },
  {
    name: 'artifactDir',
    filePath: ['paths', 'artifacts'],
    env: ['TRADELAB_ARTIFACT_DIR'],
    flag: 'artifact-dir',
    kind: 'path',
    default: '.tradelab/artifacts',
    description: 'directory for trial artifacts over 16 MiB (shared by every worker)',
  },
  {
    name: 'runsDir',
    filePath: ['paths', 'runs'],
    env: ['TRADELAB_RUNS_DIR'],
    flag: 'runs-dir',
    kind: 'path',
    default: 'runs',
    description: 'directory for training run outputs',
  },
  {
    name: 'safetyFactor',
    filePath: ['planner', 'safetyFactor'],
    env: ['TRADELAB_SAFETY_FACTOR'],
    flag: 'safety-factor',
    kind: 'number',
    default: 0.85,
    description: 'fraction of GPU memory the planner may fill, 0 < f <= 1',
  },
  {
    name: 'backend',
    filePath: ['compute', 'backend'],
    env: ['TRADELAB_BACKEND'],
    flag: 'backend',
    kind: 'enum',
    default: 'auto',
    description: `compute backend: ${BACKENDS.join('|')}`,
  },
  {
    name: 'detect',
    filePath: ['detect', 'enabled'],
    env: ['TRADELAB_DETECT'],
    flag: 'detect',
    kind: 'boolean',
    default: true,
    description: 'probe nvidia-smi, rocm-smi, amd-smi and sysfs for GPUs',
  },
  {
    name: 'detectTimeoutMs',
    filePath: ['detect', 'timeoutMs'],
    env: ['TRADELAB_DETECT_TIMEOUT_MS'],
    flag: 'detect-timeout-ms',
    kind: 'integer',
    default: 5000,
    description: 'time limit for each GPU tool, in ms',
  },
];

/** Looks up a setting by name. */
export function settingSpec(name: SettingName): SettingSpec {
  const spec = SETTINGS.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no setting named ${name}`);
  return spec;
}

/**
 * Turns a string from the environment or the command line into the setting's type. Returns the
 * string unchanged when it does not parse, so validation reports the value as the user wrote it.
 */
export function parseSettingString(spec: SettingSpec, raw: string): unknown {
  const text = raw.trim();
  switch (spec.kind) {
    case 'number':
    case 'integer': {
      const n = Number(text);
      return text !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
      if (['0', 'false', 'no', 'off'].includes(lower)) return false;
      return raw;
    }
    default:
      return raw;
  }
}

import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProfileRegistry } from '../profiles/profile-registry.js';
import { loadConfig, type LoadConfigOptions } from './load-config.js';
import { SETTINGS } from './settings.js';
import { errorOf } from '../../test/support/assertions.js';
import { tempDir } from '../../test/support/temp-dir.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real temporary directory holding `files` (relative path → content); returns its real path. */
function project(files: Record<string, string> = {}): string {
  const root = realpathSync(tempDir('tradelab-config-'));
  made.push(root);
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return root;
}

/** Loads the config with an empty environment unless one is given, so the host's never leaks in. */
function load(
  cwd: string,
  options: Omit<LoadConfigOptions, 'cwd'> = {},
): ReturnType<typeof loadConfig> {
  return loadConfig({ env: {}, ...options, cwd });
}

const YAML = 'tradelab.config.yaml';
const JSON_FILE = 'tradelab.config.json';

describe('finding the config file', () => {
  it('walks up from a nested working directory and makes the config directory the root', () => {
    const root = project({ [YAML]: 'profile: h100\n', 'a/b/c/.keep': '' });
    const config = load(join(root, 'a/b/c'));
    expect(config.configFile).toBe(join(root, YAML));
    expect(config.projectRoot).toBe(root);
    expect(config.settings.profile).toBe('h100');
    expect(config.sources.profile).toEqual({ kind: 'file', origin: `${join(root, YAML)}:1:10` });
  });

  it('uses the working directory as the root when there is no config file', () => {
    const root = project({ 'sub/.keep': '' });
    const config = load(join(root, 'sub'));
    expect(config.configFile).toBeUndefined();
    expect(config.envFile).toBeUndefined();
    expect(config.projectRoot).toBe(join(root, 'sub'));
    expect(config.customProfiles).toEqual([]);
  });

  it('takes every default when nothing sets a value', () => {
    const root = project();
    const config = load(root);
    expect(config.settings).toEqual({
      profile: undefined,
      profilesFile: undefined,
      dataDir: join(root, '.tradelab/data'),
      storage: `sqlite:${join(root, 'tradelab.db')}`,
      artifactDir: join(root, '.tradelab/artifacts'),
      runsDir: join(root, 'runs'),
      safetyFactor: 0.85,
      backend: 'auto',
      detect: true,
      detectTimeoutMs: 5000,
    });
    for (const spec of SETTINGS) {
      expect(config.sources[spec.name]).toEqual({ kind: 'default', origin: 'built-in default' });
    }
  });

  it('uses the nearest config file', () => {
    const root = project({ [YAML]: 'profile: h100\n', [`inner/${YAML}`]: 'profile: h200\n' });
    const config = load(join(root, 'inner'));
    expect(config.projectRoot).toBe(join(root, 'inner'));
    expect(config.settings.profile).toBe('h200');
  });

  it('reads a JSON config file, with positions', () => {
    const root = project({
      [JSON_FILE]:
        '{\n  "planner": { "safetyFactor": 0.7 },\n  "compute": { "backend": "wasm" }\n}\n',
    });
    const config = load(root);
    expect(config.configFile).toBe(join(root, JSON_FILE));
    expect(config.settings.safetyFactor).toBe(0.7);
    expect(config.settings.backend).toBe('wasm');
    expect(config.sources.backend).toEqual({
      kind: 'file',
      origin: `${join(root, JSON_FILE)}:3:27`,
    });
  });

  it('reads a .yml config file', () => {
    const root = project({ 'tradelab.config.yml': 'compute:\n  backend: cpu\n' });
    expect(load(root).settings.backend).toBe('cpu');
  });

  it('accepts an empty config file', () => {
    const root = project({ [YAML]: '' });
    const config = load(root);
    expect(config.configFile).toBe(join(root, YAML));
    expect(config.settings.backend).toBe('auto');
  });

  it('refuses two config files in one directory', () => {
    const root = project({
      [YAML]: 'profile: h100\n',
      [JSON_FILE]: '{"profile": "h200"}',
      'x/.keep': '',
    });
    const error = errorOf(() => load(join(root, 'x')));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(join(root, YAML));
    expect(error.message).toContain(join(root, JSON_FILE));
    expect(error.hint).toBeDefined();
  });

  it('uses an explicit config path instead of walking up, relative to the working directory', () => {
    const root = project({
      [YAML]: 'profile: h100\n',
      'elsewhere/custom.yaml': 'profile: mi300x\npaths:\n  runs: out\n',
    });
    const config = load(root, { configPath: 'elsewhere/custom.yaml' });
    expect(config.configFile).toBe(join(root, 'elsewhere/custom.yaml'));
    expect(config.projectRoot).toBe(join(root, 'elsewhere'));
    expect(config.settings.profile).toBe('mi300x');
    expect(config.settings.runsDir).toBe(join(root, 'elsewhere/out'));
  });

  it('takes the config path from TRADELAB_CONFIG, below an explicit path', () => {
    const root = project({
      [YAML]: 'profile: h100\n',
      'one.yaml': 'profile: h200\n',
      'two.json': '{"profile": "l40s"}',
    });
    const env = { TRADELAB_CONFIG: join(root, 'one.yaml') };
    expect(load(root, { env }).settings.profile).toBe('h200');
    expect(load(root, { env, configPath: 'two.json' }).settings.profile).toBe('l40s');
    expect(load(root, { env: { TRADELAB_CONFIG: '  ' } }).settings.profile).toBe('h100');
  });

  it('fails with CONFIG_NOT_FOUND for an explicit path that does not exist', () => {
    const root = project();
    const error = errorOf(() => load(root, { configPath: 'missing.yaml' }));
    expect(error.code).toBe('CONFIG_NOT_FOUND');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(join(root, 'missing.yaml'));
  });

  it('reads .env from the project root even when run from a subdirectory', () => {
    const root = project({ [YAML]: '', '.env': 'TRADELAB_BACKEND=wasm\n', 'deep/er/.keep': '' });
    const config = load(join(root, 'deep/er'));
    expect(config.envFile).toBe(join(root, '.env'));
    expect(config.settings.backend).toBe('wasm');
  });
});

describe('paths', () => {
  it('resolves relative paths in the file against the project root, not the working directory', () => {
    const root = project({
      [YAML]: [
        'profilesFile: gpus/profiles.yaml',
        'paths:',
        '  data: store/data',
        '  runs: ../outside/runs',
        '  storage: sqlite:db/studies.db',
      ].join('\n'),
      'gpus/profiles.yaml': '{}\n',
      'nested/.keep': '',
    });
    const { settings } = load(join(root, 'nested'));
    expect(settings.dataDir).toBe(join(root, 'store/data'));
    expect(settings.runsDir).toBe(join(dirname(root), 'outside/runs'));
    expect(settings.profilesFile).toBe(join(root, 'gpus/profiles.yaml'));
    expect(settings.storage).toBe(`sqlite:${join(root, 'db/studies.db')}`);
  });

  it('keeps absolute paths', () => {
    const root = project({
      [YAML]: 'paths:\n  data: /srv/data\n  runs: /srv/runs\n  storage: sqlite:/srv/db/t.db\n',
    });
    const { settings } = load(root);
    expect(settings.dataDir).toBe('/srv/data');
    expect(settings.runsDir).toBe('/srv/runs');
    expect(settings.storage).toBe('sqlite:/srv/db/t.db');
  });

  it.each(['memory:', 'postgres://user:pw@db.example:5432/tradelab', 'postgresql://localhost/t'])(
    'leaves the storage URL %s untouched',
    (url) => {
      const root = project({ [YAML]: `paths:\n  storage: "${url}"\n` });
      expect(load(root).settings.storage).toBe(url);
    },
  );

  it('resolves paths from flags and the environment against the project root too', () => {
    const root = project({ [YAML]: '', 'sub/.keep': '' });
    const config = load(join(root, 'sub'), {
      env: { TRADELAB_RUNS_DIR: 'env-runs' },
      flags: { dataDir: 'flag-data', storage: 'sqlite:flag.db' },
    });
    expect(config.settings.runsDir).toBe(join(root, 'env-runs'));
    expect(config.settings.dataDir).toBe(join(root, 'flag-data'));
    expect(config.settings.storage).toBe(`sqlite:${join(root, 'flag.db')}`);
  });
});

describe('the config file takes every setting', () => {
  /** A value each kind of setting accepts. */
  const SAMPLE: Record<string, unknown> = {
    string: 'rtx_4090',
    path: 'somewhere/else',
    'storage-url': 'memory:',
    number: 0.5,
    integer: 1234,
    boolean: false,
    enum: 'wasm',
  };

  for (const spec of SETTINGS) {
    it(`at ${spec.filePath.join('.')}, as the documentation names it`, () => {
      const content: Record<string, unknown> = {};
      let at = content;
      for (const key of spec.filePath.slice(0, -1))
        at = (at[key] ??= {}) as Record<string, unknown>;
      at[spec.filePath.at(-1) ?? ''] = SAMPLE[spec.kind];
      // The custom profiles file must exist: it is read with the config.
      const root = project({ [JSON_FILE]: JSON.stringify(content), 'somewhere/else': '{}\n' });
      const config = load(root);
      expect(config.sources[spec.name].kind).toBe('file');
    });
  }
});

describe('precedence: flag > environment > .env > file > default', () => {
  const files = {
    [YAML]: 'profile: h100\nplanner:\n  safetyFactor: 0.6\n',
    '.env': '# GPU settings\nGPU_PROFILE=rtx_4090\nTRADELAB_SAFETY_FACTOR=0.7\n',
  };

  it('takes a value from the file, naming file:line:col', () => {
    const root = project({ [YAML]: files[YAML] });
    const config = load(root);
    expect(config.settings.profile).toBe('h100');
    expect(config.settings.safetyFactor).toBe(0.6);
    expect(config.sources.profile).toEqual({ kind: 'file', origin: `${join(root, YAML)}:1:10` });
    expect(config.sources.safetyFactor).toEqual({
      kind: 'file',
      origin: `${join(root, YAML)}:3:17`,
    });
    expect(config.sources.backend.kind).toBe('default');
  });

  it('lets .env override the file, naming the variable and its line', () => {
    const root = project(files);
    const config = load(root);
    expect(config.envFile).toBe(join(root, '.env'));
    expect(config.settings.profile).toBe('rtx_4090');
    expect(config.settings.safetyFactor).toBe(0.7);
    expect(config.sources.profile).toEqual({
      kind: 'env',
      origin: `GPU_PROFILE (${join(root, '.env')}:2)`,
    });
    expect(config.sources.safetyFactor).toEqual({
      kind: 'env',
      origin: `TRADELAB_SAFETY_FACTOR (${join(root, '.env')}:3)`,
    });
  });

  it('gives the line of the last assignment when .env sets a variable twice', () => {
    const root = project({ '.env': 'GPU_PROFILE=h100\n\nGPU_PROFILE=h200\n' });
    const config = load(root);
    expect(config.settings.profile).toBe('h200');
    expect(config.sources.profile.origin).toBe(`GPU_PROFILE (${join(root, '.env')}:3)`);
  });

  it('lets the real environment override .env', () => {
    const root = project(files);
    const config = load(root, { env: { GPU_PROFILE: 'mi300x', TRADELAB_SAFETY_FACTOR: '0.75' } });
    expect(config.settings.profile).toBe('mi300x');
    expect(config.settings.safetyFactor).toBe(0.75);
    expect(config.sources.profile).toEqual({ kind: 'env', origin: 'GPU_PROFILE' });
    expect(config.sources.safetyFactor).toEqual({ kind: 'env', origin: 'TRADELAB_SAFETY_FACTOR' });
  });

  it('lets a flag override everything', () => {
    const root = project(files);
    const config = load(root, {
      env: { GPU_PROFILE: 'mi300x', TRADELAB_SAFETY_FACTOR: '0.75' },
      flags: { profile: 'cpu', safetyFactor: '0.5' },
    });
    expect(config.settings.profile).toBe('cpu');
    expect(config.settings.safetyFactor).toBe(0.5);
    expect(config.sources.profile).toEqual({ kind: 'flag', origin: '--profile' });
    expect(config.sources.safetyFactor).toEqual({ kind: 'flag', origin: '--safety-factor' });
  });

  it('ignores an empty environment variable', () => {
    const root = project({ [YAML]: files[YAML], '.env': 'GPU_PROFILE=\n' });
    const config = load(root, { env: { TRADELAB_SAFETY_FACTOR: '' } });
    expect(config.settings.profile).toBe('h100');
    expect(config.settings.safetyFactor).toBe(0.6);
    expect(config.sources.profile.kind).toBe('file');
  });

  it('reads the profile from TRADELAB_PROFILE, with GPU_PROFILE first', () => {
    const root = project();
    expect(load(root, { env: { TRADELAB_PROFILE: 'h200' } }).settings.profile).toBe('h200');
    const both = load(root, { env: { TRADELAB_PROFILE: 'h200', GPU_PROFILE: 'l40s' } });
    expect(both.settings.profile).toBe('l40s');
    expect(both.sources.profile.origin).toBe('GPU_PROFILE');
    expect(both.sources.profile.ignored).toEqual(['TRADELAB_PROFILE=h200']);
    // Names first, then the real environment before .env: GPU_PROFILE in .env still comes first.
    const dotEnv = load(project({ '.env': 'GPU_PROFILE=l40s\n' }), {
      env: { TRADELAB_PROFILE: 'h200' },
    });
    expect(dotEnv.settings.profile).toBe('l40s');
    expect(dotEnv.sources.profile.ignored).toEqual(['TRADELAB_PROFILE=h200']);
    expect(load(root, { env: { GPU_PROFILE: 'l40s' } }).sources.profile.ignored).toBeUndefined();
  });

  it('reads the profile from TRADELAB_PROFILE in .env', () => {
    const root = project({ '.env': 'TRADELAB_PROFILE=rtx_5090\n' });
    const config = load(root);
    expect(config.settings.profile).toBe('rtx_5090');
    expect(config.sources.profile.origin).toBe(`TRADELAB_PROFILE (${join(root, '.env')}:1)`);
  });

  it("keeps the profile name as written: resolving it is the registry's job", () => {
    const root = project();
    expect(load(root, { flags: { profile: 'RTX 4090' } }).settings.profile).toBe('RTX 4090');
  });

  it.each([
    ['0', false],
    ['false', false],
    ['off', false],
    ['No', false],
    ['1', true],
    ['TRUE', true],
    ['yes', true],
    [' on ', true],
  ])('reads TRADELAB_DETECT=%j as %s', (raw, expected) => {
    const root = project({ [YAML]: `detect:\n  enabled: ${String(!expected)}\n` });
    const config = load(root, { env: { TRADELAB_DETECT: raw } });
    expect(config.settings.detect).toBe(expected);
    expect(config.sources.detect.kind).toBe('env');
  });

  it('reads booleans and integers from the file and from flags', () => {
    const root = project({ [YAML]: 'detect:\n  enabled: false\n  timeoutMs: 2500\n' });
    const fromFile = load(root);
    expect(fromFile.settings.detect).toBe(false);
    expect(fromFile.settings.detectTimeoutMs).toBe(2500);
    const fromFlags = load(root, { flags: { detect: 'true', detectTimeoutMs: '800' } });
    expect(fromFlags.settings.detect).toBe(true);
    expect(fromFlags.settings.detectTimeoutMs).toBe(800);
  });
});

describe('errors in the config file', () => {
  it('reports a YAML syntax error with file and line', () => {
    const root = project({ [YAML]: 'profile: h100\nplanner:\n  safetyFactor: [0.5\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_PARSE');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(
      new RegExp(`^${escape(join(root, YAML))}:\\d+:\\d+: not valid YAML`),
    );
  });

  it('reports a duplicate YAML key as a syntax error with its line', () => {
    const root = project({ [YAML]: 'profile: h100\nprofile: h200\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_PARSE');
    expect(error.message).toContain(`${join(root, YAML)}:2:`);
  });

  it('reports a JSON syntax error with file and line', () => {
    const root = project({ [JSON_FILE]: '{\n  "profile": "h100",\n}\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_PARSE');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('not valid JSON');
    // The trailing comma is on line 2 and the parser stops at the `}` on line 3: a byte offset
    // alone ("position 23") makes the user count characters.
    expect(error.message).toMatch(new RegExp(`^${escape(join(root, JSON_FILE))}:3\\b`));
  });

  it('refuses a file whose top level is not a mapping', () => {
    const root = project({ [YAML]: '- profile: h100\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(join(root, YAML));
    expect(error.message).toContain('mapping');
  });

  it('names an unknown key with its line and the key it resembles', () => {
    const root = project({ [YAML]: 'profile: h100\nplanner: {safetyfactor: 0.9}\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    // 2:11 is the misspelt key itself (its value starts at 2:25).
    expect(error.message).toBe(
      `${join(root, YAML)}:2:11: planner: unknown key "safetyfactor" (did you mean "safetyFactor"?); allowed here: safetyFactor`,
    );
  });

  it('names an unknown top-level key', () => {
    const root = project({ [YAML]: 'backend: wasm\nprofle: h100\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('unknown key "profle" (did you mean "profile"?)');
    expect(error.message).toContain(`${join(root, YAML)}:1:1: (top level): unknown key "backend"`);
    expect(error.message).toContain('allowed here:');
    expect(error.message).toContain('compute');
  });

  it('names the file position, key path, the kind of bad value and what is allowed', () => {
    const root = project({ [YAML]: 'profile: h100\nplanner:\n  safetyFactor: 1.5\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      `${join(root, YAML)}:3:17: planner.safetyFactor: this number is not allowed: must be at most 1 (the whole memory)`,
    );
    expect(error.details?.file).toBe(join(root, YAML));
  });

  it('lists the allowed backends for a bad one', () => {
    const root = project({ [YAML]: 'compute:\n  backend: cuda\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${join(root, YAML)}:2:12`);
    expect(error.message).toContain('compute.backend: this string is not allowed');
    for (const backend of ['auto', 'wasm', 'webgpu', 'cpu']) {
      expect(error.message).toContain(backend);
    }
  });

  it('says what a storage URL must look like', () => {
    const root = project({ [YAML]: 'paths:\n  storage: mysql://db\n' });
    const error = errorOf(() => load(root));
    expect(error.message).toContain('paths.storage: this string is not allowed');
    expect(error.message).toContain('memory:, sqlite:PATH or postgres://');
  });

  it('reports every problem, one line each', () => {
    const root = project({
      [YAML]: 'planner:\n  safetyFactor: 0\ndetect:\n  timeoutMs: 10\n',
    });
    const error = errorOf(() => load(root));
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`${join(root, YAML)}:2:17: planner.safetyFactor: this number`);
    expect(lines[1]).toContain(`${join(root, YAML)}:4:14: detect.timeoutMs: this number`);
    expect(lines[1]).toContain('at least 100');
  });

  it('names file:line:col and the kinds expected and found for a bad value in a JSON file', () => {
    const root = project({ [JSON_FILE]: '{\n  "detect": {\n    "enabled": "sometimes"\n  }\n}\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      `${join(root, JSON_FILE)}:3:16: detect.enabled: expected a boolean, found a string`,
    );
  });
});

describe('errors in the environment and flags', () => {
  it('names the environment variable with a bad value', () => {
    const root = project();
    const error = errorOf(() => load(root, { env: { TRADELAB_SAFETY_FACTOR: 'abc' } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('TRADELAB_SAFETY_FACTOR');
    expect(error.message).toContain('"abc"');
    expect(error.message).toContain('planner.safetyFactor');
  });

  it('names the .env file and line of a bad value', () => {
    const root = project({ '.env': 'GPU_PROFILE=h100\nTRADELAB_BACKEND=cuda\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      `TRADELAB_BACKEND in ${join(root, '.env')}:2: this string is not allowed`,
    );
    expect(error.message).toContain('"auto"|"wasm"|"gpu"|"webgpu"|"cpu"');
  });

  it('refuses a boolean it cannot read, naming the variable', () => {
    const root = project();
    const error = errorOf(() => load(root, { env: { TRADELAB_DETECT: 'maybe' } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('TRADELAB_DETECT');
    expect(error.message).toContain('"maybe"');
  });

  it('refuses a fractional time limit', () => {
    const root = project();
    const error = errorOf(() => load(root, { env: { TRADELAB_DETECT_TIMEOUT_MS: '1.5' } }));
    expect(error.message).toContain('TRADELAB_DETECT_TIMEOUT_MS');
    expect(error.message).toContain('whole number');
  });

  it('reports a bad flag as a usage error', () => {
    const root = project();
    const error = errorOf(() => load(root, { flags: { safetyFactor: '2' } }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('--safety-factor');
    expect(error.message).toContain('2 is not allowed');
    expect(error.message).toContain('at most 1');
    expect(error.hint).toContain('0 < f <= 1');
  });

  it('never quotes a bad value read from .env, nor a storage URL from anywhere (they hold secrets)', () => {
    const root = project({ '.env': 'TRADELAB_SAFETY_FACTOR=s3cret-0.7\n' });
    const fromFile = errorOf(() => load(root));
    expect(fromFile.code).toBe('CONFIG_INVALID');
    expect(fromFile.message).toBe(
      `TRADELAB_SAFETY_FACTOR in ${join(root, '.env')}:1: this string is not allowed for planner.safetyFactor: Invalid input: expected number, received string`,
    );
    expect(JSON.stringify(fromFile.details)).not.toContain('s3cret');
    const url = 'mysql://user:pa55word@db/studies';
    const fromEnv = errorOf(() => load(project(), { env: { TRADELAB_STORAGE: url } }));
    expect(fromEnv.message).toContain(
      'environment variable TRADELAB_STORAGE: this string is not allowed',
    );
    expect(`${fromEnv.message} ${JSON.stringify(fromEnv.details)}`).not.toContain('pa55word');
  });

  it('refuses an empty flag value', () => {
    const root = project();
    const error = errorOf(() => load(root, { flags: { dataDir: '' } }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('--data-dir');
    expect(error.message).toContain('must not be empty');
  });

  it('does not validate a bad .env value that a flag overrides', () => {
    const root = project({ '.env': 'TRADELAB_BACKEND=cuda\n' });
    expect(load(root, { flags: { backend: 'wasm' } }).settings.backend).toBe('wasm');
  });
});

describe('custom profiles', () => {
  it('reads profiles from the config file, with positions', () => {
    const root = project({
      [YAML]: [
        'profile: my_4090',
        'profiles:',
        '  my_4090:',
        '    extends: rtx_4090',
        '    vramGb: 20',
        '    workloads:',
        '      drl:',
        '        maxWorkers: 4',
      ].join('\n'),
    });
    const config = load(root);
    expect(config.customProfiles).toHaveLength(1);
    const [mine] = config.customProfiles;
    expect(mine?.name).toBe('my_4090');
    expect(mine?.input).toEqual({
      extends: 'rtx_4090',
      vramGb: 20,
      workloads: { drl: { maxWorkers: 4 } },
    });
    expect(mine?.locate(['vramGb'])).toBe(`${join(root, YAML)}:5:13`);
    expect(mine?.locate(['workloads', 'drl', 'maxWorkers'])).toBe(`${join(root, YAML)}:8:21`);
    // A key that is not written points at the nearest enclosing value.
    expect(mine?.locate(['hourlyUsd'])).toBe(`${join(root, YAML)}:4:5`);

    const profile = createProfileRegistry(config.customProfiles).resolve('my_4090');
    expect(profile.vramGb).toBe(20);
    expect(profile.workloads.drl.maxWorkers).toBe(4);
  });

  it('reads a profiles file relative to the project root, after the config file profiles', () => {
    const root = project({
      [YAML]: 'profilesFile: gpus/team.yaml\nprofiles:\n  first:\n    extends: h100\n',
      'gpus/team.yaml': '# team cards\nteam_h100:\n  extends: h100\n  hourlyUsd: 3.1\n',
      'work/.keep': '',
    });
    const config = load(join(root, 'work'));
    expect(config.customProfiles.map((p) => p.name)).toEqual(['first', 'team_h100']);
    const team = config.customProfiles[1];
    expect(team?.input.hourlyUsd).toBe(3.1);
    expect(team?.locate(['hourlyUsd'])).toBe(`${join(root, 'gpus/team.yaml')}:4:14`);
    expect(team?.locate(['extends'])).toBe(`${join(root, 'gpus/team.yaml')}:3:12`);
  });

  it('reads a profiles file named in the environment', () => {
    const root = project({
      'p.json': '{\n  "cheap": { "extends": "rtx_5090", "hourlyUsd": 0.9 }\n}\n',
    });
    const config = load(root, { env: { TRADELAB_PROFILES_FILE: 'p.json' } });
    expect(config.sources.profilesFile).toEqual({ kind: 'env', origin: 'TRADELAB_PROFILES_FILE' });
    expect(config.customProfiles.map((p) => p.name)).toEqual(['cheap']);
    expect(config.customProfiles[0]?.locate(['hourlyUsd'])).toBe(`${join(root, 'p.json')}:2:50`);
  });

  it('refuses an unknown profile field, suggesting the right one', () => {
    const root = project({ [YAML]: 'profiles:\n  mine:\n    extends: h100\n    vramgb: 64\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${join(root, YAML)}:4:5: profiles.mine: unknown key "vramgb"`);
    expect(error.message).toContain('did you mean "vramGb"?');
  });

  it('refuses a bad profile value with the key path', () => {
    const root = project({
      [YAML]:
        'profiles:\n  mine:\n    extends: h100\n    workloads:\n      drl:\n        maxWorkers: -1\n',
    });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      `${join(root, YAML)}:6:21: profiles.mine.workloads.drl.maxWorkers: this number is not allowed`,
    );
  });

  it('refuses a profile name that is not lowercase with underscores', () => {
    const root = project({ [YAML]: 'profiles:\n  My-GPU:\n    extends: h100\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${join(root, YAML)}:2:3:`); // the key, not its value
    expect(error.message).toContain('My-GPU');
    expect(error.message).toContain('lowercase letters, digits and "_"');
    // The key is what is wrong, not the definition under it.
    expect(error.message).not.toContain('{"extends":"h100"}');
  });

  it('refuses a bad profile in the profiles file, naming that file', () => {
    const root = project({
      [YAML]: 'profilesFile: team.yaml\n',
      'team.yaml': 'team_box:\n  extends: h100\n  hourlyUsd: -2\n',
    });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(
      `${join(root, 'team.yaml')}:3:14: team_box.hourlyUsd: this number`,
    );
  });

  it('fails with CONFIG_NOT_FOUND when the profiles file is missing', () => {
    const root = project({ [YAML]: 'profilesFile: nowhere.yaml\n' });
    const error = errorOf(() => load(root));
    expect(error.code).toBe('CONFIG_NOT_FOUND');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`profiles file ${join(root, 'nowhere.yaml')}`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

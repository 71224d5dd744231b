import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, tempDir } from './support/run-cli.js';

/*
 * Configuration as the CLI reads it. The order of sources and a bad file's exit code run real
 * processes; the other messages run in this process (runCliInProcess), through the same entry
 * function.
 */

function project(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function setting(stdout: string, key: string): Record<string, unknown> | undefined {
  return jsonLines(stdout).find((r) => r.type === 'setting' && r.key === key);
}

describe('configuration from the CLI', () => {
  it('finds the config file from a subdirectory and resolves paths against its directory', async () => {
    const dir = project({
      'tradelab.config.yaml': 'paths:\n  data: store\nplanner:\n  safetyFactor: 0.9\n',
    });
    const sub = join(dir, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    const result = await runCliInProcess(['config', 'show', '--json'], { cwd: sub });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)[0]).toMatchObject({ type: 'project', root: dir });
    expect(setting(result.stdout, 'paths.data')).toMatchObject({
      value: join(dir, 'store'),
      source: 'file',
    });
    expect(setting(result.stdout, 'planner.safetyFactor')).toMatchObject({
      value: 0.9,
      source: 'file',
    });
  });

  it('applies flag > env > .env > file > default', async () => {
    const dir = project({
      'tradelab.config.yaml':
        'profile: rtx_3070\nplanner:\n  safetyFactor: 0.5\ncompute:\n  backend: wasm\n',
      '.env': 'GPU_PROFILE=rtx_4090\nTRADELAB_SAFETY_FACTOR=0.6\n',
    });
    const result = await runCli(['config', 'show', '--json', '--profile', 'h100'], {
      cwd: dir,
      env: { TRADELAB_SAFETY_FACTOR: '0.7' },
    });
    expect(setting(result.stdout, 'profile')).toMatchObject({
      value: 'h100',
      source: 'flag',
      origin: '--profile',
    });
    expect(setting(result.stdout, 'planner.safetyFactor')).toMatchObject({
      value: 0.7,
      source: 'env',
    });
    expect(setting(result.stdout, 'compute.backend')).toMatchObject({
      value: 'wasm',
      source: 'file',
    });
    expect(setting(result.stdout, 'detect.timeoutMs')).toMatchObject({
      value: 5000,
      source: 'default',
    });
    const withoutFlag = await runCli(['config', 'show', '--json'], { cwd: dir });
    expect(setting(withoutFlag.stdout, 'profile')).toMatchObject({
      value: 'rtx_4090',
      source: 'env',
      origin: `GPU_PROFILE (${join(dir, '.env')}:1)`,
    });
  });

  it('reports a bad value with the file, line, key path, its kind and what is allowed, exit 2', async () => {
    const dir = project({
      'tradelab.config.yaml': 'profile: h100\nplanner:\n  safetyFactor: 1.5\n',
    });
    const result = await runCli(['profiles', 'list'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error [CONFIG_INVALID]: ${join(dir, 'tradelab.config.yaml')}:3:17: planner.safetyFactor: this number is not allowed: must be at most 1`,
    );
  });

  it('refuses a YAML alias bomb and broken JSON as parse errors that quote nothing of the file', async () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const bomb = levels
      .map((name, i) => {
        const item = i === 0 ? '"lol"' : `*${levels[i - 1] ?? ''}`;
        return `${name}: &${name} [${Array.from({ length: 9 }, () => item).join(', ')}]`;
      })
      .join('\n');
    const yaml = await runCliInProcess(['config', 'show'], {
      cwd: project({ 'tradelab.config.yaml': `${bomb}\n` }),
    });
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(
      /^error \[CONFIG_PARSE\]: .*tradelab\.config\.yaml: not valid YAML: /m,
    );
    expect(yaml.stderr).toMatch(/^hint: use fewer aliases/m);
    const json = await runCliInProcess(['config', 'show'], {
      cwd: project({ 'tradelab.config.json': '{"paths": s3cret-token-value}\n' }),
    });
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(
      /^error \[CONFIG_PARSE\]: .*tradelab\.config\.json: not valid JSON/m,
    );
    expect(json.stderr).not.toContain('s3cret');
  });

  it("masks the PostgreSQL storage URL's password in config show, as a table and as JSON", async () => {
    const url = 'postgres://trader:pa55word@db.example:5432/studies?password=pa55word';
    const env = { TRADELAB_STORAGE: url };
    const table = await runCliInProcess(['config', 'show'], { cwd: project({}), env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /paths\.storage +postgres:\/\/trader:\*\*\*@db\.example:5432\/studies/,
    );
    const json = await runCliInProcess(['config', 'show', '--json'], { cwd: project({}), env });
    expect(setting(json.stdout, 'paths.storage')).toMatchObject({
      value: 'postgres://trader:***@db.example:5432/studies?password=***',
      source: 'env',
    });
    expect(`${table.stdout}${json.stdout}`).not.toContain('pa55word');
  });

  it('suggests the right key for a typo', async () => {
    const dir = project({ 'tradelab.config.yaml': 'compute:\n  backnd: wasm\n' });
    const result = await runCliInProcess(['config', 'show'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown key "backnd" (did you mean "backend"?)');
    expect(result.stderr).toContain('tradelab.config.yaml:2:3');
  });

  it('reports a bad environment value by its variable', async () => {
    const result = await runCliInProcess(['config', 'show'], { env: { TRADELAB_BACKEND: 'cuda' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'environment variable TRADELAB_BACKEND: "cuda" is not allowed for compute.backend',
    );
    expect(result.stderr).toContain('"auto"|"wasm"|"gpu"|"webgpu"|"cpu"');
  });

  it('does not offer the tensorflow backend, which tradelab cannot start', async () => {
    const result = await runCliInProcess([
      'profiles',
      'plan',
      '--backend',
      'tensorflow',
      '--no-detect',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--backend: "tensorflow" is not allowed for compute.backend');
    expect(result.stderr).toContain('expected one of "auto"|"wasm"|"gpu"|"webgpu"|"cpu"');
    for (const command of [
      ['profiles', 'plan'],
      ['train', 'ppo'],
      ['config', 'show'],
    ]) {
      const help = await runCliInProcess([...command, '--help']);
      expect(help.stdout).toContain('--backend');
      expect(help.stdout).not.toContain('tensorflow');
    }
  });

  it('uses a profile named in the config file, and a custom one from a profiles file', async () => {
    const dir = project({
      'tradelab.config.yaml': 'profile: lab_card\nprofilesFile: gpus.yaml\n',
      'gpus.yaml': 'lab_card:\n  extends: a100_80gb\n  displayName: Lab A100\n  hourlyUsd: 1.2\n',
    });
    const result = await runCliInProcess(['profiles', 'plan', '--no-detect'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /GPU: using profile 'Lab A100' \(80 GB VRAM, custom\) from .*tradelab\.config\.yaml:1:10; workers:/,
    );
  });

  it('reports a bad custom profile at its line in the profiles file', async () => {
    const dir = project({
      'tradelab.config.yaml': 'profilesFile: gpus.yaml\n',
      'gpus.yaml': 'lab_card:\n  extends: a100\n',
    });
    const result = await runCliInProcess(['profiles', 'list'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'gpus.yaml')}:2:12: profile "a100" is ambiguous`);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledPath } from './compiled-path.js';
import { makeOwnedTempDir, removeOwnedTempDir, sweepOwnedTempDirs } from './owned-temp-dir.js';

const host = hostname().replace(/[^A-Za-z0-9]/g, '_');

describe('owned temp dirs', () => {
  let dir: string;
  let saved: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(process.env.TRADELAB_TEST_RUN_DIR ?? tmpdir(), 'owned-'));
    saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("names its owner, and removes a dead owner's directories but not a live one's or another host's", () => {
    // A process that has exited: its pid is free (reused only after the pid space wraps).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    // pid 1, init, is alive as long as the machine is.
    const alive = 1;
    for (const name of [
      `x-${host}-${dead}-aaaaaa`,
      `x-${host}-${alive}-bbbbbb`,
      `x-otherhost-${dead}-cccccc`,
      `y-${host}-${dead}-dddddd`,
    ])
      mkdirSync(join(dir, name, 'model'), { recursive: true });
    const made = makeOwnedTempDir('x-');
    expect(made.startsWith(join(dir, `x-${host}-${process.pid}-`))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      [
        `x-${host}-${alive}-bbbbbb`,
        `x-otherhost-${dead}-cccccc`,
        `y-${host}-${dead}-dddddd`,
        made.slice(dir.length + 1),
      ].sort(),
    );
    // This process's own directories are never swept: it is alive.
    sweepOwnedTempDirs('x-', dir);
    expect(existsSync(made)).toBe(true);
    removeOwnedTempDir(made);
    expect(existsSync(made)).toBe(false);
  });

  it('removes what a process still owns when it exits, however it exits', () => {
    const module = pathToFileURL(compiledPath('core/owned-temp-dir.js')).href;
    // process.exit() skips every `finally`: the directory goes with the exit all the same.
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(module)}); m.makeOwnedTempDir('z-'); process.exit(3);`,
      ],
      { encoding: 'utf8', env: { ...process.env, TMPDIR: dir } },
    );
    expect(child.status, child.stderr).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
  });
});

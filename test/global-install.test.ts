import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './support/run-cli.js';

/*
 * The `tradelab` command outside the clone, as the README says to get it: `npm install -g .` or
 * `npm link` in the clone, here into a prefix of the test's own (--prefix / npm_config_prefix), then
 * run by name from another directory. Offline: installing the packed tarball would fetch its
 * dependencies from the registry, which tests never reach; both commands link the clone, whose
 * node_modules the command then uses — exactly what a user of the clone gets.
 */

const run = promisify(execFile);
const INSTALL_MS = 180_000;
const npmFlags = ['--offline', '--ignore-scripts', '--no-audit', '--no-fund'];

/** Runs `tradelab ARGS` by name in `cwd`, with only `bin` and the system on PATH. */
function tradelab(bin: string, args: readonly string[], cwd: string) {
  return run('tradelab', [...args], {
    cwd,
    env: {
      PATH: `${bin}:${join(process.execPath, '..')}:/usr/bin:/bin`,
      HOME: process.env.HOME ?? '/tmp',
      TRADELAB_DETECT: 'false',
    },
  });
}

/** The README's words for getting the command. */
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

describe('the tradelab command outside the clone', () => {
  it('is documented: npm install -g . or npm link', () => {
    expect(readme).toMatch(/^npm install -g \.\s+# or `npm link`/m);
  });

  it(
    '`npm install -g .` puts a working `tradelab` on PATH, usable from any directory',
    async () => {
      const prefix = tempDir('tradelab-global-');
      await run('npm', ['install', '-g', '--prefix', prefix, ...npmFlags, REPO_ROOT], {
        cwd: REPO_ROOT,
      });
      const bin = join(prefix, 'bin');
      const project = tempDir('tradelab-elsewhere-');
      const version = await tradelab(bin, ['--version'], project);
      const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(version.stdout.trim()).toBe(pkg.version);
      // The tour's first data commands, in a directory of the user's: the store goes there.
      await tradelab(bin, ['data', 'synth', '--symbols', '1', '--bars', '300'], project);
      const list = await tradelab(bin, ['data', 'list'], project);
      expect(list.stdout).toMatch(/^SYN0:1h\s/m);
      expect(existsSync(join(project, '.tradelab', 'data'))).toBe(true);
    },
    INSTALL_MS,
  );

  it(
    '`npm link` does the same',
    async () => {
      const prefix = tempDir('tradelab-link-');
      await run('npm', ['link', ...npmFlags], {
        cwd: REPO_ROOT,
        env: { ...process.env, npm_config_prefix: prefix },
      });
      const version = await tradelab(join(prefix, 'bin'), ['-V'], tempDir('tradelab-elsewhere-'));
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    },
    INSTALL_MS,
  );
});

describe("the README's tour", () => {
  const tour = readme.slice(readme.indexOf('## A short tour'));
  const start = tour.indexOf('```sh\n') + '```sh\n'.length;
  const block = tour.slice(start, tour.indexOf('\n```', start));
  const lines = block.replaceAll('\\\n', '').split('\n');

  it('runs the installed command, not npx (which would fetch another package)', () => {
    expect(lines.filter((l) => l.trim() !== '').length).toBeGreaterThan(20);
    expect(block).not.toMatch(/\bnpx\b/);
  });

  it('names only files it makes earlier in the tour', () => {
    const made = new Set<string>();
    const missing: string[] = [];
    for (const line of lines) {
      const command = line.replace(/\s+#.*$/, '');
      const words = command.split(/\s+/);
      const outputs = [...[...command.matchAll(/(?:--out|>)\s+(\S+)/g)].map((m) => m[1] ?? '')];
      for (const word of words) {
        const file = /^[\w./-]+\.(csv|gz|parquet|mjs|js|ts|yaml|yml|json)$/.exec(word)?.[0];
        if (file !== undefined && !outputs.includes(file) && !made.has(file)) missing.push(file);
      }
      for (const file of outputs) made.add(file);
    }
    expect(missing).toEqual([]);
  });

  it('makes an objective module Node runs as it is (JavaScript, not TypeScript)', async () => {
    const line = lines.find((l) => l.includes('my-objective.mjs') && l.startsWith('printf'));
    expect(line).toBeDefined();
    const dir = tempDir('tradelab-tour-');
    await run('bash', ['-c', line ?? ''], { cwd: dir });
    writeFileSync(
      join(dir, 'check.mjs'),
      "const { objective } = await import('./my-objective.mjs');\nconsole.log(objective({ suggestFloat: () => 5 }));\n",
    );
    const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: dir });
    expect(stdout.trim()).toBe('9');
  });
});

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './support/run-cli.js';

/*
 * The package as a user gets it: `npm pack` (what `files` ships, not the working tree), unpacked
 * into a scratch project's node_modules, imported by name (`from 'tradelab'`, through the
 * `exports` map), and every example of docs/api.md run there, each in an empty directory.
 */

/** One ```js block of docs/api.md and the section it is in. */
interface Example {
  heading: string;
  code: string;
}

/** What a `node FILE` run printed and how it ended. */
interface NodeResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Generous: an example takes a few seconds, but up to ~30 s on the shared 2-core machine under load. */
const EXAMPLE_TIMEOUT_MS = 120_000;

/** The ```js blocks of a Markdown text, with the `## ` heading each sits under. */
function jsBlocks(markdown: string): Example[] {
  const examples: Example[] = [];
  let heading = '(before any heading)';
  let code: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (code !== undefined) {
      if (line.trimEnd() === '```') {
        examples.push({ heading, code: `${code.join('\n')}\n` });
        code = undefined;
      } else code.push(line);
    } else if (line.startsWith('## ')) heading = line.slice(3).trim();
    else if (line.trimEnd() === '```js') code = [];
  }
  return examples;
}

const apiDoc = readFileSync(join(REPO_ROOT, 'docs', 'api.md'), 'utf8');
const examples = jsBlocks(apiDoc);
const scratch = tempDir('tradelab-package-');
const packDir = tempDir('tradelab-pack-');
const installed = join(scratch, 'node_modules', 'tradelab');
/** An empty DRM sysfs tree and no GPU detection: examples must not depend on this machine's GPUs. */
const emptyDrm = join(scratch, 'empty-drm');
let packedFiles: string[] = [];

/** Runs `node file` in `cwd` with a clean environment, as a user's shell would (no TRADELAB_*). */
function runNode(file: string, cwd: string): Promise<NodeResult> {
  const env = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    TRADELAB_SYSFS_DRM: emptyDrm,
    TRADELAB_DETECT: 'false',
  };
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [file], { cwd, env, timeout: EXAMPLE_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'index.js')))
    throw new Error('dist/index.js is missing: run `npm run build` first (npm test does)');
  // --ignore-scripts: no `prepare` rebuild; npm test built dist/ just before.
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir],
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (packed === undefined) throw new Error(`npm pack reported nothing: ${stdout}`);
  packedFiles = packed.files.map((f) => f.path);
  mkdirSync(installed, { recursive: true });
  await promisify(execFile)('tar', [
    '-xzf',
    join(packDir, packed.filename),
    '--strip-components=1',
    '-C',
    installed,
  ]);
  // No registry in tests, so the dependencies cannot be installed: the tarball's own files are
  // what is tested, and its dependencies resolve from the repository's node_modules through this
  // link (Node looks in node_modules/tradelab/node_modules first when resolving from inside it).
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
  mkdirSync(emptyDrm);
}, 180_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(packDir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the compiled entry point, its types, the presets and the CLI, and no sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'bin/tradelab.js',
        'presets/ensemble_balanced.yaml',
      ]),
    );
    expect(packedFiles.filter((f) => /^presets\/.*\.yaml$/.test(f)).length).toBeGreaterThan(1);
    expect(packedFiles.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it("exports a hand-picked API by name, and nothing behind it ('tradelab/dist/…')", async () => {
    const dir = join(scratch, 'keys');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'keys.mjs'),
      [
        "const api = await import('tradelab');",
        'let deep = "imported";',
        "try { await import('tradelab/dist/tune/index.js'); } catch (error) { deep = error.code; }",
        'console.log(JSON.stringify({ names: Object.keys(api), deep }));',
      ].join('\n'),
    );
    const result = await runNode('keys.mjs', dir);
    expect(result.code, result.stderr).toBe(0);
    const { names, deep } = JSON.parse(result.stdout) as { names: string[]; deep: string };
    expect(names).toEqual(
      expect.arrayContaining([
        'TradelabError',
        'openProject',
        'loadMarketData',
        'VectorTradingEnv',
        'Study',
        'optimize',
        'useBackend',
        'trainPpoRun',
        'resolveDrlStudy',
      ]),
    );
    expect(names.length).toBeLessThan(150);
    expect(deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
});

describe('docs/api.md', () => {
  it('has one js example in each section, and none outside them', () => {
    const sections = apiDoc.split('\n').filter((line) => line.startsWith('## '));
    expect(sections.length).toBeGreaterThanOrEqual(8);
    expect(examples.map((e) => `## ${e.heading}`)).toEqual(sections);
  });

  for (const [index, { heading, code }] of examples.entries()) {
    const name = `example-${index + 1}`;
    it(
      `runs ${name} (${heading}) against the installed package`,
      async () => {
        const dir = join(scratch, name);
        mkdirSync(dir);
        writeFileSync(join(dir, `${name}.mjs`), code);
        const result = await runNode(`${name}.mjs`, dir);
        const report = `${name} (## ${heading}) ended with code ${result.code}, signal ${result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
        expect(result.code, report).toBe(0);
        expect(result.stdout.trim(), report).not.toBe('');
      },
      EXAMPLE_TIMEOUT_MS + 30_000,
    );
  }
});

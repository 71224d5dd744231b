import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir, type CliResult } from './run-cli.js';

/** One command line of {@link runCliBatch}, and the directory it runs in. */
export interface BatchCommand {
  args: readonly string[];
  cwd: string;
}

/** The built CLI's runCli (dist/cli/main.js), which the installed entry point calls. */
const MAIN = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'main.js')).href;

/** The child: runs each command line through runCli in turn and prints their results as JSON. */
const CHILD = `
const { runCli } = await import(process.argv[1]);
const results = [];
for (const { args, cwd } of JSON.parse(process.argv[2])) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    cwd,
    env: process.env,
    stdout: { write: (text) => (stdout += text) },
    stderr: { write: (text) => (stderr += text) },
  });
  results.push({ code, stdout, stderr });
}
process.stdout.write(JSON.stringify(results));
`;

/**
 * Runs command lines one after another in one new Node.js process, through the built CLI's runCli
 * (as bin/tradelab.js does), with run-cli.ts's clean environment: each one's output and exit code,
 * for one start of Node.js and TensorFlow.js instead of one per command (about two CPU-seconds
 * each). For the variants of a message from a command that starts a compute backend, which
 * runCliInProcess must not run in the test process; each command keeps at least one test that
 * runs it as its own process.
 */
export function runCliBatch(commands: readonly BatchCommand[]): Promise<CliResult[]> {
  const drm = join(tempDir('tradelab-drm-'), 'drm');
  mkdirSync(drm);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, MAIN, JSON.stringify(commands)],
      {
        cwd: tempDir(),
        env: {
          PATH: '/usr/local/bin:/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          TRADELAB_SYSFS_DRM: drm,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`the batch process exited ${String(code)}: ${stderr}`));
      else resolvePromise(JSON.parse(stdout) as CliResult[]);
    });
  });
}

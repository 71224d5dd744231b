import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTool, type ToolRun } from './run-tool.js';
import { utility } from '../../../test/support/assertions.js';
import { tempDir } from '../../../test/support/temp-dir.js';

const BASH = utility('bash');
const SLEEP = utility('sleep');
const HEAD = utility('head');

/** A process state from /proc: undefined once it is gone, 'Z' while it waits to be reaped. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^\d+ \(.*\) (\S)/.exec(stat)?.[1];
  } catch {
    return undefined;
  }
}

/** Waits (up to 10 s) for a process to be gone or a zombie; returns its last state. */
async function waitUntilDead(pid: number): Promise<string | undefined> {
  let state = processState(pid);
  for (let i = 0; i < 200 && state !== undefined && state !== 'Z'; i++) {
    await delay(50);
    state = processState(pid);
  }
  return state;
}

function expectStatus<S extends ToolRun['status']>(
  run: ToolRun,
  status: S,
): Extract<ToolRun, { status: S }> {
  expect(run.status).toBe(status);
  if (run.status !== status) throw new Error(`expected ${status}, got ${run.status}`);
  return run as Extract<ToolRun, { status: S }>;
}

describe('runTool', () => {
  let bin: string;
  let env: Record<string, string>;

  beforeEach(() => {
    bin = tempDir('tradelab-run-tool-');
    // Only the fake tools are on PATH: a real tool installed on this machine must not answer.
    env = { PATH: bin };
  });
  afterEach(() => {
    rmSync(bin, { recursive: true, force: true });
  });

  /** Writes an executable bash script named `name` into the temp bin directory. */
  function tool(name: string, body: string): void {
    writeFileSync(join(bin, name), `#!${BASH}\n${body}\n`, { mode: 0o755 });
  }

  it('returns stdout and stderr of a tool that exits 0', async () => {
    tool('fake-tool', "printf 'out line\\n'\nprintf 'err line\\n' >&2\nexit 0");
    const run = expectStatus(await runTool('fake-tool', [], { timeoutMs: 10_000, env }), 'ok');
    expect(run.stdout).toBe('out line\n');
    expect(run.stderr).toBe('err line\n');
    expect(Number.isInteger(run.durationMs) && run.durationMs >= 0).toBe(true);
  });

  it('passes arguments as they are, without a shell', async () => {
    tool('fake-tool', 'printf \'[%s]\\n\' "$@"');
    const args = ['--query-gpu=a,b', 'two words', '$HOME', '; exit 3', '*'];
    const run = expectStatus(await runTool('fake-tool', args, { timeoutMs: 10_000, env }), 'ok');
    expect(run.stdout).toBe('[--query-gpu=a,b]\n[two words]\n[$HOME]\n[; exit 3]\n[*]\n');
  });

  it('gives the tool the environment it was asked to', async () => {
    tool('fake-tool', 'printf \'%s|%s\' "$TRADELAB_PROBE" "${HOME-unset}"');
    const run = expectStatus(
      await runTool('fake-tool', [], { timeoutMs: 10_000, env: { ...env, TRADELAB_PROBE: 'on' } }),
      'ok',
    );
    expect(run.stdout).toBe('on|unset');
  });

  it('reports a tool that is not on PATH as missing', async () => {
    const run = await runTool('nvidia-smi', [], { timeoutMs: 10_000, env });
    expect(run.status).toBe('missing');
  });

  it('reports a non-zero exit as failed, with the exit code and what it printed', async () => {
    tool(
      'fake-tool',
      "printf 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.\\n'\nexit 9",
    );
    const run = expectStatus(await runTool('fake-tool', [], { timeoutMs: 10_000, env }), 'failed');
    expect(run.exitCode).toBe(9);
    expect(run.signal).toBeNull();
    expect(run.stdout).toBe(
      'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.\n',
    );
    expect(run.stderr).toBe('');
  });

  it('reports a tool killed by a signal as failed, with the signal', async () => {
    tool('fake-tool', 'kill -KILL $$');
    const run = expectStatus(await runTool('fake-tool', [], { timeoutMs: 10_000, env }), 'failed');
    expect(run.exitCode).toBeNull();
    expect(run.signal).toBe('SIGKILL');
  });

  it('reports a tool that cannot be executed as failed, not missing', async () => {
    writeFileSync(join(bin, 'fake-tool'), '#!/no/such/interpreter\n', { mode: 0o644 });
    const run = expectStatus(await runTool('fake-tool', [], { timeoutMs: 10_000, env }), 'failed');
    expect(run.exitCode).toBeNull();
    expect(run.stderr).toMatch(/EACCES/);
  });

  it('kills a tool that hangs and reports a timeout', async () => {
    tool('fake-tool', `exec ${SLEEP} 30`);
    const run = await runTool('fake-tool', [], { timeoutMs: 300, env });
    expect(run.status).toBe('timeout');
  });

  it('kills a tool that hangs waiting on its own child', async () => {
    const pidFile = join(bin, 'sleep.pid');
    tool('fake-tool', `echo started\n${SLEEP} 30 &\necho $! > '${pidFile}'\nwait`);
    const run = await runTool('fake-tool', [], { timeoutMs: 300, env });
    expect(run.status).toBe('timeout');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntilDead(pid)).toBeOneOf([undefined, 'Z']);
  });

  it('returns what a tool printed when it exited but a grandchild still holds its stdout', async () => {
    const pidFile = join(bin, 'sleep.pid');
    // The tool prints and exits 0 at once; the background sleep keeps the pipe open.
    tool('fake-tool', `echo partial\n(${SLEEP} 30) &\necho $! > '${pidFile}'\nexit 0`);
    const run = expectStatus(await runTool('fake-tool', [], { timeoutMs: 5000, env }), 'ok');
    expect(run.stdout).toBe('partial\n');
    // The whole process group was killed, so the grandchild does not linger.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntilDead(pid)).toBeOneOf([undefined, 'Z']);
  });

  it('keeps reading a tool that prints more than maxBytes, so it is not blocked', async () => {
    tool('fake-tool', `${HEAD} -c 1000000 /dev/zero`);
    const run = await runTool('fake-tool', [], { timeoutMs: 10_000, env, maxBytes: 1000 });
    expect(run.status).toBe('ok');
  });

  it('drops output beyond maxBytes', async () => {
    tool('fake-tool', "printf '%0200000d' 0");
    const run = expectStatus(
      await runTool('fake-tool', [], { timeoutMs: 10_000, env, maxBytes: 1000 }),
      'ok',
    );
    expect(run.stdout).toMatch(/^0+$/);
    expect(run.stdout.length).toBe(1000);
  });
});

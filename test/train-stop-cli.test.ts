import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPEAT_MS } from '../src/cli/stop-signals.js';
import { BIN, REPO_ROOT, runCli } from './support/run-cli.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * How `tradelab train ppo` ends when it is told to: a finished run asked to resume, and real
 * signals sent to real processes: Ctrl-C as a terminal sends it (to the whole process group) to
 * `npx tradelab …`, whose npm also relays it, and SIGTERM / SIGHUP.
 */

let dir: string;
const SMALL = tinyRunFlags();

/** Updates of a few seconds on a small machine: a signal relayed a moment later finds one running. */
const SLOW = [
  '--data',
  'SYN0,SYN1:1h',
  '--net-dim',
  '64',
  '--envs',
  '16',
  '--target-step',
  '16384',
  '--batch-size',
  '2048',
  '--repeat-times',
  '4',
  '--checkpoint-every',
  '1',
];

beforeAll(async () => {
  dir = await syntheticProject('tradelab-train-stop-');
}, 60_000);

const manifest = (run: string): { status: string; updatedAt: string } =>
  JSON.parse(readFileSync(join(dir, run, 'manifest.json'), 'utf8')) as {
    status: string;
    updatedAt: string;
  };

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `command args` in its own process group and, once the first update is out, sends
 * `signal` to the whole group (`group`), as a terminal's Ctrl-C does, or to the process alone;
 * with `relayed`, sends it once more as soon as tradelab says it is stopping, as npm relays it;
 * with `again`, once more a while later, as an impatient user does.
 */
function signalledRun(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    signal: NodeJS.Signals;
    group: boolean;
    relayed?: boolean;
    again?: boolean;
  },
): Promise<Ended> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      detached: true,
      env: {
        PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`,
        HOME: process.env.HOME ?? '/tmp',
        npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '/tmp', '.npm'),
        TRADELAB_DATA_DIR: join(dir, '.tradelab', 'data'),
        TRADELAB_DETECT: 'false',
      },
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && stdout.includes('"type":"update"') && child.pid !== undefined) {
        sent = true;
        process.kill(options.group ? -child.pid : child.pid, options.signal);
      }
    });
    let relayed = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const pid = child.pid;
      if (!relayed && /stopping/.test(stderr) && pid !== undefined) {
        relayed = true;
        if (options.relayed === true) process.kill(-pid, options.signal);
        if (options.again === true)
          setTimeout(() => {
            if (child.exitCode === null) process.kill(pid, options.signal);
          }, REPEAT_MS + 500);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

describe('tradelab train ppo --resume on a finished run', () => {
  it('says there is nothing left to train, exits 0, and evaluates nothing again', async () => {
    const first = await runCli(
      ['train', 'ppo', ...SMALL, '--steps', '1024', '--out', 'runs/done'],
      {
        cwd: dir,
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const before = manifest('runs/done');
    const reportTime = statSync(join(dir, 'runs/done/report.html')).mtimeMs;
    const again = await runCli(['train', 'ppo', '--out', 'runs/done', '--resume'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/nothing left to train: run \S+ finished 4\/4 updates/);
    expect(again.stdout).not.toMatch(/Resuming|Sharpe/);
    expect(manifest('runs/done')).toEqual(before);
    expect(statSync(join(dir, 'runs/done/report.html')).mtimeMs).toBe(reportTime);
  }, 120_000);
});

describe('tradelab train ppo stopped by a signal', () => {
  it('one Ctrl-C under npx, which arrives twice, leaves the run interrupted with the resume command', async () => {
    const out = join(dir, 'runs/npx');
    // In the repository, `npx tradelab` runs its bin/tradelab.js, as in the README's tour. The
    // terminal sends SIGINT to the whole group; npm (in the versions that relay it) sends it to
    // tradelab again a moment later: two SIGINTs, one keypress.
    const ended = await signalledRun(
      'npm',
      [
        'exec',
        '--offline',
        '--no',
        '--',
        'tradelab',
        'train',
        'ppo',
        ...SLOW,
        '--steps',
        '1000000',
        '--out',
        out,
        '--json',
      ],
      { cwd: REPO_ROOT, signal: 'SIGINT', group: true, relayed: true },
    );
    expect(ended.stderr).toContain(`continue with: tradelab train ppo --out ${out} --resume`);
    expect(manifest('runs/npx').status).toBe('interrupted');
  }, 180_000);

  it('a second Ctrl-C quits, and still leaves the run interrupted with the resume command', async () => {
    // The second one finds an update running, or the run about to stop after it: either way the
    // run must be resumable, and say how.
    const run = 'runs/twice';
    const ended = await signalledRun(
      process.execPath,
      [BIN, 'train', 'ppo', ...SLOW, '--steps', '1000000', '--out', run, '--json'],
      { cwd: dir, signal: 'SIGINT', group: false, again: true },
    );
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stderr).toContain(`continue with: tradelab train ppo --out ${run} --resume`);
    expect(manifest(run).status).toBe('interrupted');
  }, 180_000);

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} stops it after the update, interrupted and resumable, exit ${code}`, async () => {
      const run = `runs/${signal.toLowerCase()}`;
      const ended = await signalledRun(
        process.execPath,
        [BIN, 'train', 'ppo', ...SMALL, '--steps', '100000', '--out', run, '--json'],
        { cwd: dir, signal, group: false },
      );
      expect(ended.code, ended.stderr).toBe(code);
      expect(ended.stderr).toContain(`continue with: tradelab train ppo --out ${run} --resume`);
      expect(manifest(run).status).toBe('interrupted');
    }, 120_000);
  }
});

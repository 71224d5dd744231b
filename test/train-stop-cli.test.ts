import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
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

/** A first update of seconds: a rollout of 65,536 steps, then 128 minibatches of a 256-wide net. */
const LONG_UPDATE = [
  '--data',
  'SYN0,SYN1:1h',
  '--net-dim',
  '256',
  '--envs',
  '16',
  '--target-step',
  '65536',
  '--batch-size',
  '2048',
  '--repeat-times',
  '4',
];

/**
 * Updates of about half a second on a small machine: a signal sent once training has started,
 * and npm's relay of it a moment later, both arrive while an update runs (see
 * {@link signalledRun}).
 */
const SLOW = [
  '--data',
  'SYN0,SYN1:1h',
  '--net-dim',
  '64',
  '--envs',
  '16',
  '--target-step',
  '8192',
  '--batch-size',
  '2048',
  '--repeat-times',
  '2',
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
 * Starts `command args` in its own process group and sends `signals`, back to back, to the whole
 * group (`group`), as a terminal's Ctrl-C does, or to the process alone: at `started`, once the
 * run's manifest is on disk (training has started and its first update is running), or at
 * `update`, once the first update's row is out. With `relayed`, sends the first signal once more
 * as soon as tradelab says it is stopping, as npm relays it.
 *
 * The run reads signals within an update too (the trainer gives the event loop a turn every
 * 50 ms), so signals sent at `started` are read while the first update runs; at `update`, the next
 * update is starting, or about to.
 */
function signalledRun(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    /** The run directory (absolute), for `at: 'started'`. */
    run: string;
    signals: readonly NodeJS.Signals[];
    group: boolean;
    at: 'started' | 'update';
    relayed?: boolean;
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
    const send = (): void => {
      if (sent || child.pid === undefined) return;
      sent = true;
      clearInterval(poll);
      for (const signal of options.signals)
        process.kill(options.group ? -child.pid : child.pid, signal);
    };
    const poll = setInterval(() => {
      if (options.at === 'started' && existsSync(join(options.run, 'manifest.json'))) send();
    }, 10);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.at === 'update' && stdout.includes('"type":"update"')) send();
    });
    let relayed = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const pid = child.pid;
      const [first] = options.signals;
      if (options.relayed === true && !relayed && /stopping/.test(stderr) && pid !== undefined) {
        relayed = true;
        if (first !== undefined) process.kill(-pid, first);
      }
    });
    child.on('error', (error) => {
      clearInterval(poll);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearInterval(poll);
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
      { cwd: REPO_ROOT, run: out, signals: ['SIGINT'], group: true, at: 'started', relayed: true },
    );
    expect(ended.stderr).toContain(`continue with: tradelab train ppo --out ${out} --resume`);
    expect(ended.stderr).not.toContain('quit at once (');
    expect(manifest('runs/npx').status).toBe('interrupted');
  }, 180_000);

  it('a second signal during the update quits at once, and still leaves the run interrupted with the resume command', async () => {
    // Ctrl-C, then `kill`, back to back: both arrive during one update. Which of the two the run
    // reads first is up to the kernel; the other one quits, with its exit status.
    const run = 'runs/twice';
    const ended = await signalledRun(
      process.execPath,
      [BIN, 'train', 'ppo', ...SMALL, '--steps', '100000', '--out', run, '--json'],
      {
        cwd: dir,
        run: join(dir, run),
        signals: ['SIGINT', 'SIGTERM'],
        group: false,
        at: 'started',
      },
    );
    const quit = /quit at once \((SIGINT|SIGTERM)\); continue with: (.*)/.exec(ended.stderr);
    expect(quit, ended.stderr).not.toBeNull();
    expect(ended.code, ended.stderr).toBe(quit?.[1] === 'SIGINT' ? 130 : 143);
    expect(quit?.[2]).toBe(`tradelab train ppo --out ${run} --resume`);
    expect(ended.stderr).toMatch(/stopping after this update/);
    expect(manifest(run).status).toBe('interrupted');
  }, 180_000);

  it('answers a Ctrl-C during an update at once, and a second one a second later quits', async () => {
    // An update of seconds (a large rollout of a wider network): the first Ctrl-C must be seen
    // while it runs, not at its end, and a second keypress after REPEAT_MS (not npm's relay) must
    // quit then. Before the trainer gave the event loop turns, both waited for the update's end.
    const run = 'runs/again';
    const child = spawn(
      process.execPath,
      [BIN, 'train', 'ppo', ...LONG_UPDATE, '--steps', '1000000', '--out', run, '--json'],
      {
        cwd: dir,
        env: {
          PATH: '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          TRADELAB_DATA_DIR: join(dir, '.tradelab', 'data'),
          TRADELAB_DETECT: 'false',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let secondSent = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!secondSent && /stopping/.test(stderr)) {
        secondSent = true;
        setTimeout(() => {
          if (child.exitCode === null) child.kill('SIGINT');
        }, REPEAT_MS + 300);
      }
    });
    const poll = setInterval(() => {
      if (existsSync(join(dir, run, 'manifest.json'))) {
        clearInterval(poll);
        child.kill('SIGINT');
      }
    }, 10);
    const code = await new Promise<number | null>((resolvePromise) => {
      child.on('close', (exitCode) => {
        clearInterval(poll);
        resolvePromise(exitCode);
      });
    });
    expect(stderr).toContain(
      `quit at once (SIGINT); continue with: tradelab train ppo --out ${run} --resume`,
    );
    expect(code, stderr).toBe(130);
    // Both keypresses came before the first update ended.
    expect(stdout).not.toContain('"type":"update"');
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
        { cwd: dir, run: join(dir, run), signals: [signal], group: false, at: 'update' },
      );
      expect(ended.code, ended.stderr).toBe(code);
      expect(ended.stderr).toContain(`stopped after update`);
      expect(ended.stderr).toContain(`continue with: tradelab train ppo --out ${run} --resume`);
      expect(manifest(run).status).toBe('interrupted');
    }, 120_000);
  }
});

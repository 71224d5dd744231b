import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUN_FILES } from '../src/agents/index.js';
import { openProject, runBacktest, trainPpo } from '../src/index.js';
import { jsonLines, runCli } from './support/run-cli.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * `tradelab train ppo` is app/'s trainPpo: the same run through the CLI (a real process) and
 * through the public API gives the same weights and the same figures, and the API keeps the
 * command's defaults and guards (the 80/20 ranges, a resume that keeps the run's settings).
 */

let dir: string;
const env = { TRADELAB_DETECT: 'false' };

beforeAll(async () => {
  dir = await syntheticProject('tradelab-train-use-case-', 0.2);
}, 60_000);

describe('trainPpo, the use case of train ppo', () => {
  it('trains the same run from the CLI and from the API', async () => {
    const cli = await runCli(
      [
        'train',
        'ppo',
        ...tinyRunFlags(),
        '--steps',
        '1024',
        '--threads',
        '1',
        '--out',
        'runs/cli',
        '--json',
      ],
      { cwd: dir, env },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const cliRun = jsonLines(cli.stdout).find((r) => r.type === 'run') as {
      manifest: { ranges: unknown; ppo: unknown; env: unknown; evaluation: unknown };
    };

    const project = openProject({ cwd: dir, env: { ...process.env, ...env } });
    const outcome = await trainPpo(project, {
      out: 'runs/api',
      data: 'SYN0,SYN1:1h',
      threads: 1,
      ppo: {
        netDim: 16,
        nEnvs: 4,
        targetStep: 256,
        batchSize: 128,
        repeatTimes: 2,
        seed: 5,
        breakStep: 1024,
      },
      env: { episodeLength: 64 },
      checkpointEvery: 2,
    });
    expect(outcome.kind).toBe('finished');
    if (outcome.kind !== 'finished') return;
    const { manifest } = outcome.result;
    expect(manifest.ranges).toEqual(cliRun.manifest.ranges);
    expect(manifest.ppo).toEqual(cliRun.manifest.ppo);
    expect(manifest.env).toEqual(cliRun.manifest.env);
    expect(manifest.evaluation).toEqual(cliRun.manifest.evaluation);
    expect(manifest.evaluation).not.toBeNull();
    // The same weights, byte for byte.
    const weights = (run: string): Buffer =>
      readFileSync(join(dir, 'runs', run, RUN_FILES.model, 'weights.bin'));
    expect(weights('api').equals(weights('cli'))).toBe(true);
  }, 120_000);

  it('backtests that run the same from the CLI and from the API', async () => {
    const cli = await runCli(['backtest', '--model', 'runs/cli', '--fee-bps', '20', '--json'], {
      cwd: dir,
      env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    const fromCli = jsonLines(cli.stdout).find((r) => r.type === 'backtest') as {
      range: number[];
      metrics: unknown;
      benchmarkMetrics: unknown;
    };
    const project = openProject({ cwd: dir, env: { ...process.env, ...env } });
    const fromApi = await runBacktest(project, { model: join(dir, 'runs', 'cli'), feeBps: 20 });
    expect(fromApi.rangeOrigin).toBe('test');
    expect([...fromApi.range]).toEqual(fromCli.range);
    expect(fromApi.evaluation.metrics).toEqual(fromCli.metrics);
    expect(fromApi.evaluation.benchmarkMetrics).toEqual(fromCli.benchmarkMetrics);
  }, 60_000);

  it('keeps the command guards: a resume with other settings is refused, saying which', async () => {
    const project = openProject({ cwd: dir, env: { ...process.env, ...env } });
    await expect(
      trainPpo(project, { out: 'runs/api', resume: true, threads: 1, ppo: { netDim: 32 } }),
    ).rejects.toThrow(/--net-dim 32 \(the run's: 16\)/);
    const done = await trainPpo(project, { out: 'runs/api', resume: true });
    expect(done.kind).toBe('nothing-left');
  }, 60_000);
});

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, runCliSignalled, tempDir } from './support/run-cli.js';

/*
 * `tradelab pretrain tcn` and `tradelab bench tcn` as a user runs them: real processes on a
 * synthetic market of 30-minute bars (GARCH volatility and regimes, 160 days of 2 symbols).
 */

let dir: string;
const TINY = [
  '--data',
  'SYN0,SYN1:30m',
  '--hidden',
  '8',
  '--layers',
  '3',
  '--chunk-len',
  '24',
  '--horizon',
  '5',
  '--chunks',
  '8',
  '--accum',
  '2',
  '--steps-per-epoch',
  '4',
];

beforeAll(async () => {
  dir = tempDir('tradelab-pretrain-');
  const made = await runCliInProcess(
    [
      'data',
      'synth',
      '--symbols',
      '2',
      '--bars',
      String(160 * 48),
      '--timeframe',
      '30m',
      '--seed',
      '5',
    ],
    { cwd: dir },
  );
  expect(made.code, made.stderr).toBe(0);
  const daily = await runCliInProcess(
    ['data', 'synth', '--symbols', 'DLY', '--bars', '400', '--timeframe', '1d'],
    { cwd: dir },
  );
  expect(daily.code, daily.stderr).toBe(0);
}, 60_000);

describe('tradelab pretrain tcn', () => {
  it("--summary prints seed 003's network: the layer table and about 18.4 M parameters", async () => {
    const result = await runCli(
      ['pretrain', 'tcn', '--summary', '--layers', '12', '--hidden', '512'],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/block11\/conv2\s+causal conv k=3 d=2048/);
    expect(result.stdout).toMatch(/parameters: 18,384,385/);
    expect(result.stdout).toMatch(/gradient checkpointing (on|off)/);
  });

  it('--no-checkpoint keeps gradient checkpointing off where the default would turn it on', async () => {
    // 96 chunks of 512 bars through 8 × 256: 4.43 GiB a step without checkpointing, past a wasm
    // worker's 4 GiB; 1.63 GiB with it.
    const shape = [
      'pretrain',
      'tcn',
      '--summary',
      '--hidden',
      '256',
      '--layers',
      '8',
      '--chunks',
      '96',
    ];
    const auto = await runCli(shape, { cwd: dir });
    expect(auto.code, auto.stderr).toBe(0);
    expect(auto.stdout).toMatch(/gradient checkpointing on: without it one step needs 4\.43 GiB/);
    const off = await runCli([...shape, '--no-checkpoint'], { cwd: dir });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain(
      'error [PLAN_DOES_NOT_FIT]: one step of 96 chunks of 512 bars needs 4.43 GiB, more than a wasm worker can address (4 GiB)',
    );
  });

  it('trains with the epoch table as JSON lines, says bf16 did not happen, and writes the run', async () => {
    const result = await runCli(
      [
        'pretrain',
        'tcn',
        ...TINY,
        '--epochs',
        '2',
        '--precision',
        'bf16',
        '--out',
        'run-a',
        '--json',
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /--precision bf16: the wasm backend computes in float32 only .* training continues in fp32/,
    );
    expect(result.stderr).toMatch(/GPU: using profile 'CPU only'/);
    const records = jsonLines(result.stdout);
    const epochs = records.filter((r) => r.type === 'epoch');
    expect(epochs.map((r) => r.epoch)).toEqual([1, 2]);
    for (const row of epochs) {
      expect(row).toHaveProperty('samplesPerSecond');
      expect(row).toHaveProperty('har.correlation');
    }
    const run = records.find((r) => r.type === 'run');
    expect(run?.status).toBe('finished');
    const saved = JSON.parse(readFileSync(join(dir, 'run-a', 'run.json'), 'utf8')) as {
      precision: { requested: string; used: string };
    };
    expect(saved.precision).toMatchObject({ requested: 'bf16', used: 'fp32' });
    expect(existsSync(join(dir, 'run-a', 'model', 'weights.bin'))).toBe(true);
    expect(readFileSync(join(dir, 'run-a', 'report.html'), 'utf8')).toMatch(/HAR-RV/);
  });

  it("gives a PPO actor the run's frozen encoder (--policy tcn:DIR), which training leaves as it was", async () => {
    const weights = join(dir, 'run-a', 'model', 'weights.bin');
    const before = createHash('sha256').update(readFileSync(weights)).digest('hex');
    const trained = await runCli(
      [
        'train',
        'ppo',
        '--data',
        'SYN0,SYN1:30m',
        '--policy',
        'tcn:run-a',
        '--steps',
        '1024',
        '--envs',
        '4',
        '--target-step',
        '256',
        '--batch-size',
        '128',
        '--net-dim',
        '16',
        '--out',
        'ppo-tcn',
      ],
      { cwd: dir },
    );
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toMatch(
      /policy: an MLP over the features and a frozen TCN encoder .*8 encodings an asset over 24-bar chunks, per chunk/,
    );
    const manifest = JSON.parse(readFileSync(join(dir, 'ppo-tcn', 'manifest.json'), 'utf8')) as {
      data: { featureNames: string[]; encoder: { weightsSha256: string } };
    };
    expect(manifest.data.encoder.weightsSha256).toBe(before);
    expect(manifest.data.featureNames.filter((f) => f.startsWith('tcn'))).toHaveLength(8);
    expect(createHash('sha256').update(readFileSync(weights)).digest('hex')).toBe(before);
    const backtest = await runCli(['backtest', '--model', 'ppo-tcn', '--json'], { cwd: dir });
    expect(backtest.code, backtest.stderr).toBe(0);
  });

  it('gives a trading study the encoder from its study file (policy: tcn:DIR), and its trials run on it', async () => {
    writeFileSync(
      join(dir, 'tcn-study.yaml'),
      [
        'preset: ensemble_conservative',
        'data: SYN0,SYN1:30m',
        'policy: tcn:run-a',
        'cv: walk-forward:2',
        'holdout: 20%',
        'params: { netDim: 16, nEnvs: 4, targetStep: 256, batchSize: 128, breakStep: 512, repeatTimes: 1, episodeLength: 64 }',
        '',
      ].join('\n'),
    );
    const created = await runCli(['study', 'create', 'tcn-study', '--file', 'tcn-study.yaml'], {
      cwd: dir,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      /policy +mlp over the features and the frozen TCN encoder of .*run-a/,
    );
    const ran = await runCli(['study', 'run', 'tcn-study', '--trials', '1', '--workers', '1'], {
      cwd: dir,
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/Finished 1 trials? .*1 complete/);
    // The trial's model backtests on its study's holdout, the encodings rebuilt from the run.
    const backtest = await runCli(['backtest', '--study', 'tcn-study', '--trial', '0'], {
      cwd: dir,
    });
    expect(backtest.code, backtest.stderr).toBe(0);
    expect(backtest.stdout).toMatch(/\(the study's holdout\)/);
    // A campaign file takes it too (relative to the file), and reports the holdout on it.
    writeFileSync(
      join(dir, 'tcn-campaign.yaml'),
      [
        'name: tcncamp',
        'data: SYN0,SYN1:30m',
        'cv: walk-forward:2',
        'holdout: 20%',
        'policy: tcn:run-a',
        'workers: 1',
        'studies:',
        '  - { preset: ensemble_conservative, trials: 1, params: { netDim: 16, nEnvs: 4, targetStep: 256, batchSize: 128, breakStep: 512, repeatTimes: 1, episodeLength: 64 } }',
        '',
      ].join('\n'),
    );
    const campaign = await runCli(['campaign', 'run', 'tcn-campaign.yaml'], { cwd: dir });
    expect(campaign.code, campaign.stderr).toBe(0);
    const report = await runCli(['campaign', 'report', 'tcncamp', '--format', 'json'], {
      cwd: dir,
    });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/"holdout"/);
  }, 120_000);

  it('stops on SIGTERM after an epoch and resumes to the end with --resume', async () => {
    const stopped = await runCliSignalled(
      [
        'pretrain',
        'tcn',
        ...TINY,
        '--steps-per-epoch',
        '300',
        '--epochs',
        '3',
        '--patience',
        '9',
        '--out',
        'run-b',
        '--json',
      ],
      {
        cwd: dir,
        signal: 'SIGTERM',
        when: (stdout) => stdout.includes('"type":"epoch"'),
      },
    );
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stderr).toMatch(/continue with: tradelab pretrain tcn --out run-b --resume/);
    // The command that started the run, with --resume added: its own values are no change.
    const resumed = await runCli(
      [
        'pretrain',
        'tcn',
        ...TINY,
        '--steps-per-epoch',
        '300',
        '--epochs',
        '3',
        '--patience',
        '9',
        '--out',
        'run-b',
        '--resume',
        '--json',
      ],
      { cwd: dir },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const run = JSON.parse(readFileSync(join(dir, 'run-b', 'run.json'), 'utf8')) as {
      status: string;
      history: { epoch: number }[];
    };
    expect(run.status).toBe('finished');
    expect(run.history.map((r) => r.epoch)).toEqual([1, 2, 3]);
    const changed = await runCli(
      ['pretrain', 'tcn', '--out', 'run-b', '--resume', '--hidden', '16'],
      { cwd: dir },
    );
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toMatch(
      /--resume keeps the run's settings; this flag differs: --hidden 16 \(the run's: \d+\)/,
    );
  });

  it('says a run stopped before its first epoch has no weights yet, and refuses a second run there before printing anything', async () => {
    const args = ['pretrain', 'tcn', ...TINY, '--steps-per-epoch', '300', '--out', 'run-early'];
    // The epoch table's header is the last line before training starts.
    const stopped = await runCliSignalled(args, {
      cwd: dir,
      signal: 'SIGTERM',
      when: (stdout) => stdout.includes('EPOCH'),
    });
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stdout).toContain('run stopped before its first epoch ended: no weights yet');
    expect(stopped.stdout).not.toContain(join('run-early', 'model'));
    const again = await runCli(args, { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error \[RUN_EXISTS\]: .*run-early already holds a TCN run/m);
    expect(again.stdout).toBe('');
    expect(again.stderr).not.toMatch(/GPU: using profile|chunks/);
  });

  it('refuses, before training, data that leaves a split empty, and daily bars', async () => {
    const short = await runCli(['pretrain', 'tcn', ...TINY, '--horizon', '78', '--out', 'run-c'], {
      cwd: dir,
    });
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(
      /sessions of RV cannot make train, validation and test splits with 78-session gaps/,
    );
    expect(short.stderr).toMatch(/hint: use at least 163 sessions/);
    expect(existsSync(join(dir, 'run-c', 'run.json'))).toBe(false);
    const daily = await runCli(['pretrain', 'tcn', '--data', 'DLY:1d', '--out', 'run-d'], {
      cwd: dir,
    });
    expect(daily.stderr).toMatch(/DLY:1d is daily: realized volatility needs intraday bars/);
  });
});

describe('tradelab bench tcn', () => {
  it('prints it/s, chunks/s, timesteps/s, the memory a step holds beside the plan, and the split', async () => {
    const result = await runCli(
      [
        'bench',
        'tcn',
        '--layers',
        '2',
        '--hidden',
        '8',
        '--seq',
        '32',
        '--batch',
        '4',
        '--steps',
        '1',
        '--repeat',
        '1',
        '--reference',
        'never', // PyTorch's row, where it is installed, is test/bench-cli's and pytorch-reference's
        '--json',
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const rows = jsonLines(result.stdout);
    expect(rows.map((r) => (r.tcn as { checkpoint: boolean }).checkpoint)).toEqual([false, true]);
    for (const row of rows) {
      expect(row.unit).toBe('timesteps/s');
      const tcn = row.tcn as { stepMemoryBytes: number; plannedBytes: number; itPerSecond: number };
      expect(tcn.stepMemoryBytes).toBeGreaterThan(0);
      expect(tcn.plannedBytes).toBeGreaterThan(0);
      expect(row.rate as number).toBeCloseTo(tcn.itPerSecond * 4 * 32, 3);
    }
    const bad = await runCli(['bench', 'tcn', '--sweep', 'batch=4'], { cwd: dir });
    expect(bad.stderr).toMatch(/--sweep batch=4 is not chunks=N/);
  });
});

describe('tradelab train forecast', () => {
  it('trains a set of models in parallel workers and scores each and their mean ensemble', async () => {
    const result = await runCli(
      [
        'train',
        'forecast',
        '--data',
        'SYN0,SYN1:30m',
        '--models',
        '3',
        '--model',
        'mlp',
        '--chunk-len',
        '8',
        '--epochs',
        '2',
        '--steps-per-epoch',
        '5',
        '--json',
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    // The cpu profile has no 30m values: they are derived from its 1h ones, and the log says so.
    expect(result.stderr).toMatch(/batch 64 \(profile cpu, 30m, derived from 1h\)/);
    expect(result.stderr).toMatch(/3 mlp models forecasting the 1-bar forward return/);
    const records = jsonLines(result.stdout);
    const models = records.filter((r) => r.type === 'model');
    expect(models.map((r) => r.index).sort()).toEqual([0, 1, 2]);
    expect(new Set(models.map((r) => r.seed)).size).toBe(3);
    const set = records.find((r) => r.type === 'set') as {
      workers: number;
      wallSeconds: number;
      ensemble: { correlation: number; directionalAccuracy: number; rows: number };
    };
    expect(set.workers).toBeGreaterThanOrEqual(1);
    expect(set.ensemble.rows).toBeGreaterThan(100);
    expect(set.ensemble.directionalAccuracy).toBeGreaterThan(0.3);
    expect(set.ensemble.directionalAccuracy).toBeLessThan(0.7);
  });

  it('forecasts realized volatility with TCNs and reports R²', async () => {
    const result = await runCli(
      [
        'train',
        'forecast',
        '--data',
        'SYN0,SYN1:30m',
        '--target',
        'rv',
        '--horizon',
        '5',
        '--models',
        '2',
        '--chunk-len',
        '24',
        '--hidden',
        '8',
        '--layers',
        '2',
        '--epochs',
        '1',
        '--steps-per-epoch',
        '4',
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/MODEL\s+CORR\s+R²\s+RMSE\s+TRAIN TIME/);
    expect(result.stdout).toMatch(/mean of 2/);
    expect(result.stdout).toMatch(/training time \(2 models\): [\d.]+ s wall with \d worker/);
  });
});

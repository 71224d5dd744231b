import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  jsonLines,
  runCli,
  runCliInProcess,
  runCliSignalled,
  type CliResult,
} from './support/run-cli.js';
import { runCliBatch } from './support/run-cli-batch.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * `tradelab train ppo` and `tradelab backtest` as a user runs them: real processes on a real
 * dataset store. A tiny network and few steps keep each run to seconds.
 */

let dir: string;
const DATA = 'SYN0,SYN1:1h';
const SMALL = tinyRunFlags();

beforeAll(async () => {
  dir = await syntheticProject('tradelab-train-', 0.2);
});

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const manifest = (run: string): Record<string, unknown> =>
  JSON.parse(read(`${run}/manifest.json`)) as Record<string, unknown>;

/** Starts a training run and sends SIGINT once its first update row is out. */
const interruptedRun = (args: string[]): Promise<CliResult> =>
  runCliSignalled(args, {
    cwd: dir,
    signal: 'SIGINT',
    when: (stdout) => stdout.includes('"type":"update"'),
  });

/** The verdict `train ppo` gave its test range, which `backtest` of the run must repeat. */
let trainedVerdict: unknown;

describe('tradelab train ppo', () => {
  it('trains, checkpoints, writes the model, and evaluates on the held-out bars', async () => {
    const result = await runCli(
      [
        'train',
        'ppo',
        ...SMALL,
        '--steps',
        '2048',
        '--out',
        'runs/a',
        '--json',
        '--progress-interval',
        '0',
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    // stderr is a pipe here, as in a CI log: plain progress lines (a line per update with
    // --progress-interval 0), never a carriage-return bar.
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr).toMatch(
      /^GPU: using profile 'CPU only' \(no GPU; .+ RAM\) .+; workers: 1$/m,
    );
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('progress: '));
    expect(lines.map((l) => l.replace(/\), .* env steps\/s, ETA [^,]+, /, ') … '))).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(
        (u) =>
          `progress: ${Math.round((u * 100) / 8)}% (${(u * 256).toLocaleString('en-US')}/2,048 env steps) … update ${u}/8${lines[u - 1]?.match(/ return [-\d.e]+$/)?.[0] ?? ''}`,
      ),
    );
    const rows = jsonLines(result.stdout);
    const updates = rows.filter((r) => r.type === 'update');
    expect(updates.map((u) => u.update)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const key of [
      'rolloutSeconds',
      'updateSeconds',
      'envStepsPerSecond',
      'samplesPerSecond',
      'approxKl',
      'clipFraction',
      'entropy',
    ])
      expect(typeof updates[0]?.[key], key).toBe('number');
    const m = manifest('runs/a');
    expect(m.status).toBe('finished');
    expect(m.progress).toMatchObject({ updatesDone: 8, envSteps: 2048 });
    expect((m.data as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.backend).toMatchObject({ name: 'wasm' });
    // The fills as resolved (the default where the data has opens), so a later default cannot
    // change what the run meant; and PPO's reward scaling, on by default.
    expect(m.env).toMatchObject({ executionPrice: 'open' });
    expect(m.ppo).toMatchObject({ normalizeRewards: true });
    const ranges = m.ranges as { train: { bars: number[] }; test: { bars: number[] } };
    expect(ranges.test.bars[0]).toBe(ranges.train.bars[1]);
    // The equity CSV has one row per test bar (the start and every fill).
    const csv = read('runs/a/test-equity.csv').trim().split('\n');
    expect(csv[0]).toBe('bar,time,equity,benchmark');
    expect(csv).toHaveLength((ranges.test.bars[1] ?? 0) - (ranges.test.bars[0] ?? 0) + 1);
    const report = read('runs/a/report.html');
    expect(report).toContain('<svg');
    expect(report).toContain('buy-and-hold');
    // The verdict: against buy-and-hold with the bootstrap's interval, in the record and the page.
    const run = rows.find((r) => r.type === 'run') as {
      verdict: { findings: { kind: string; text: string }[]; comparison: { resamples: number } };
    };
    expect(run.verdict.findings[0]?.kind).toMatch(/^(ahead-of|behind)-benchmark$|^no-evidence$/);
    expect(run.verdict.comparison.resamples).toBe(1000);
    trainedVerdict = run.verdict;
    expect(report).toContain('Verdict');
    expect(report).toContain(run.verdict.findings[0]?.text.replace(/'/g, '&#39;') ?? 'none');
    expect(existsSync(join(dir, 'runs/a/model/weights.bin'))).toBe(true);
    expect(read('runs/a/updates.jsonl').trim().split('\n')).toHaveLength(8);
  });

  it('resumes a stopped run and ends with exactly the weights of an uninterrupted one', async () => {
    const stopped = await interruptedRun([
      'train',
      'ppo',
      ...SMALL,
      '--steps',
      '2048',
      '--out',
      'runs/b',
      '--json',
    ]);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(
      /stopped after update \d; continue with: tradelab train ppo --out runs\/b --resume/,
    );
    expect(manifest('runs/b').status).toBe('interrupted');
    // A resume goes on from the last checkpoint (every second update here), and the stop says so.
    const { updatesDone } = manifest('runs/b').progress as { updatesDone: number };
    if (updatesDone % 2 === 1)
      expect(stopped.stderr).toContain(
        updatesDone === 1
          ? 'the run stopped before its first checkpoint: --resume starts it from the beginning and runs update 1 again'
          : `--resume goes on from the checkpoint of update ${updatesDone - 1} and runs update ${updatesDone} again`,
      );
    else expect(stopped.stderr).not.toContain('runs update');
    const resumed = await runCli(['train', 'ppo', '--out', 'runs/b', '--resume', '--json'], {
      cwd: dir,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(manifest('runs/b').status).toBe('finished');
    expect(readFileSync(join(dir, 'runs/b/model/weights.bin'))).toEqual(
      readFileSync(join(dir, 'runs/a/model/weights.bin')),
    );
    // One row per update, none duplicated by the restart from the checkpoint.
    const updates = jsonLines(read('runs/b/updates.jsonl')).map((u) => u.update);
    expect(updates).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses what would lose or mix up a run, saying what to do', async () => {
    // Variants of a refusal, after a backend starts: one process runs the three (runCliBatch).
    const [again, overlap, changed, same, huge, proc, lookback, band] = await runCliBatch(
      [
        ['train', 'ppo', ...SMALL, '--out', 'runs/a'],
        ['train', 'ppo', ...SMALL, '--train', '0..1000', '--test', '900..', '--out', 'runs/c'],
        [
          'train',
          'ppo',
          ...SMALL,
          '--out',
          'runs/a',
          '--resume',
          '--net-dim',
          '32',
          '--lr',
          '1e-3',
        ],
        // The command that made the run, with --resume added: the run's own values are no change.
        ['train', 'ppo', ...SMALL, '--steps', '2048', '--out', 'runs/a', '--resume'],
        ['train', 'ppo', ...SMALL, '--net-dim', '1e12', '--out', 'runs/huge'],
        // mkdirSync(…, { recursive: true }) spun here for ever, deaf to SIGTERM.
        ['train', 'ppo', ...SMALL, '--out', '/proc/tradelab-x'],
        ['train', 'ppo', ...SMALL, '--lookback', '100000', '--out', 'runs/far'],
        // A band is a share of the portfolio; units scaling's orders are units.
        [
          'train',
          'ppo',
          ...SMALL,
          '--action-scaling',
          'units',
          '--rebalance-band',
          '0.02',
          '--out',
          'runs/band',
        ],
      ].map((args) => ({ args, cwd: dir })),
    );
    expect(again?.code).toBe(2);
    expect(again?.stderr).toMatch(/^error \[RUN_EXISTS\]: .* already holds a training run/);
    expect(again?.stderr).toMatch(/--resume/);
    // Refused before the banner, the plan or the run's table header is printed.
    expect(again?.stdout).toBe('');
    expect(overlap?.code).toBe(2);
    expect(overlap?.stderr).toMatch(/overlaps the training range/);
    expect(changed?.code).toBe(2);
    expect(changed?.stderr).toContain(
      "--resume keeps the run's settings; these flags differ: --net-dim 32 (the run's: 16), --lr 0.001 (the run's: 0.0003)",
    );
    expect(same?.code, same?.stderr).toBe(0);
    expect(same?.stdout).toMatch(/nothing left to train: run .* finished 8\/8 updates/);
    expect(huge?.code).toBe(1);
    expect(huge?.stderr).toMatch(
      /^error \[PLAN_DOES_NOT_FIT\]: this run does not fit here: netDim 1000000000000/m,
    );
    expect(existsSync(join(dir, 'runs/huge'))).toBe(false);
    expect(proc?.code).toBe(1);
    expect(proc?.stderr).toMatch(/^error \[FILE_ACCESS\]: cannot mkdir \/proc\/tradelab-x: /m);
    // Said as the lookback it is, not as the normalizer's empty range it led to.
    expect(lookback?.code).toBe(2);
    expect(lookback?.stderr).toMatch(
      /^error \[INVALID_ARGUMENT\]: --lookback 100,000 leaves no bars to train on: .* the training range ends at bar 1,173 \(of 1,467\)/m,
    );
    expect(existsSync(join(dir, 'runs/far'))).toBe(false);
    expect(band?.code).toBe(2);
    expect(band?.stderr).toMatch(
      /^error \[INVALID_ARGUMENT\]: --rebalance-band is a share of the portfolio, and --action-scaling units orders units\nhint: use --action-scaling fraction or target/m,
    );
    // Refused before anything is loaded, so this one runs in the test process.
    const noOut = await runCliInProcess(['train', 'ppo', '--data', DATA], { cwd: dir });
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/needs --out/);
  });
});

describe('tradelab backtest', () => {
  // The variants of the first test's real process, run together in one process (runCliBatch),
  // once, by whichever test asks first.
  let batch: Promise<CliResult[]> | undefined;
  const variants = (): Promise<CliResult[]> =>
    (batch ??= runCliBatch(
      [
        [
          'backtest',
          '--model',
          'runs/a',
          '--range',
          '100..400',
          '--fee-bps',
          '50',
          '--json',
          '--out',
          'runs/a/bt-in-sample',
        ],
        ['backtest', '--model', 'runs/none'],
      ].map((args) => ({ args, cwd: dir })),
    ));

  it("re-evaluates a saved model on its run's test range with the same figures", async () => {
    const result = await runCli(['backtest', '--model', 'runs/a', '--json', '--out', 'runs/a/bt'], {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const [row] = jsonLines(result.stdout);
    const evaluation = manifest('runs/a').evaluation as {
      metrics: unknown;
      benchmarkMetrics: unknown;
    };
    expect(row?.metrics).toEqual(evaluation.metrics);
    expect(row?.benchmarkMetrics).toEqual(evaluation.benchmarkMetrics);
    // The same range and the run's own explained variance: the same verdict as training gave.
    expect(row?.verdict).toEqual(trainedVerdict);
    expect((row?.verdict as { findings: { text: string }[] }).findings[0]?.text).toMatch(
      /buy-and-hold: Sharpe -?\d+\.\d\d against -?\d+\.\d\d; the difference's 95% interval/,
    );
    expect(read('runs/a/bt/equity.csv')).toBe(read('runs/a/test-equity.csv'));
    expect(read('runs/a/bt/report.html')).toContain('<svg');
    // Out of sample: no warning, nothing shaded.
    expect(result.stderr).not.toMatch(/trained on/);
    expect(row?.inSample).toEqual([]);
    expect(read('runs/a/bt/report.html')).not.toContain('tradelab-shade');
  });

  it('evaluates another range and higher fees', async () => {
    const [result] = await variants();
    if (result === undefined) throw new Error('no result');
    expect(result.code, result.stderr).toBe(0);
    const [row] = jsonLines(result.stdout);
    expect(row?.range).toEqual([100, 400]);
    // The run trained on the first 80 % of the bars: all of 100..400 is in-sample, and it says so.
    expect(result.stderr).toMatch(
      /warning: the backtest range bars 100\.\.400 \([^)]+\) overlaps the bars this model trained on, bars 0\.\.\d+ \([^)]+\): 300 of 300 bars are in-sample/,
    );
    expect(row?.inSample).toEqual([[100, 400]]);
    const html = read('runs/a/bt-in-sample/report.html');
    // Shaded in both charts (equity and drawdown), and said in words.
    expect(html.match(/<rect class="tradelab-shade"/g)).toHaveLength(2);
    expect(html).toContain('in-sample');
    // 300 bars: the start and 299 fills, so 299 per-bar returns.
    expect((row?.metrics as { bars: number }).bars).toBe(299);
    // Fees are in the quote currency: the record gives the initial cash they are a share of.
    expect(row?.initialCash).toBe(1_000_000);
    expect(row?.fees).toBeGreaterThan(0);
  });

  it('says when there is no model', async () => {
    const [, result] = await variants();
    expect(result?.code).toBe(2);
    expect(result?.stderr).toMatch(/no model at/);
  });
});

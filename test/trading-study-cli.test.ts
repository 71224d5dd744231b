import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, tempDir, type CliResult } from './support/run-cli.js';

/*
 * A trading study end to end, as a user runs it: synthetic data with a planted signal, `study
 * create` from a study file, `study run` with two worker processes on SQLite, then `study show`
 * (by split, and the best trial on the holdout), `study pbo`, `backtest --study --trial`, and a
 * fine-tuning study whose run shows its progress. Budgets are tiny: this checks the wiring, not
 * the learning. The one study and its run are shared by the tests (beforeAll): a worker process
 * starting TensorFlow.js costs more than the trials it runs. Every command runs as a process; the
 * PBO text beside its JSON, the fine-tuning study's creation (`study create` runs as a process
 * above it), its trials and the refusals of bad study files run in this process
 * (runCliInProcess), through the same entry function.
 */

const dir = tempDir('tradelab-trading-study-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Metrics {
  sharpe: number;
}
interface Shown {
  drl: { preset: string; data: { bars: number } };
  best: {
    number: number;
    params: Record<string, unknown>;
    budget: { stepsPerSplit: number };
    userAttrs: { splits: unknown[] };
  };
  holdout: { range: [number, number]; metrics: Metrics; verdict: { findings: { kind: string }[] } };
  deflatedSharpe: {
    trial: number;
    probability: number;
    trials: number;
    trialNumbers: number[];
    expectedMaxSharpe: number;
  } | null;
}

const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { cwd: dir, env: { TRADELAB_DETECT: 'false' } });
/** {@link cli} in this process (runCliInProcess): a second view of what a process printed, and refusals. */
const cliInProcess = (...args: string[]): Promise<CliResult> =>
  runCliInProcess(args, { cwd: dir, env: { TRADELAB_DETECT: 'false' } });

// breakStep 2048, 8 updates a split: each split outlasts the workers' 100 ms between progress
// messages, which the fine-tuning run's progress needs (its trials keep this study's fixed
// breakStep). A worker's first split, JIT warm-up included, costs most of a trial either way.
const STUDY_FILE = `# a tiny trading study
preset: ensemble_conservative
data: SYN0,SYN1:1h
cv: walk-forward:3
embargo: 12
holdout: 20%
sampler: { type: random, seed: 5 }
pruner: { type: median, nStartupTrials: 2 }
params:
  netDim: [16, 32]
  nEnvs: 4
  targetStep: 256
  batchSize: 128
  breakStep: 2048
  repeatTimes: 1
  episodeLength: 64
`;

/** `study create syn --file study.yaml`, `study run syn` on two workers, `study show syn --json`. */
let created: CliResult;
let ran: CliResult;
let show: Shown;

beforeAll(async () => {
  // Setup, in this process: `data synth` runs as a process in env-on-market-data.test.ts.
  const synth = await cliInProcess(
    'data',
    'synth',
    '--symbols',
    '2',
    '--bars',
    '1500',
    '--signal',
    '0.2',
  );
  expect(synth.code, synth.stderr).toBe(0);
  writeFileSync(join(dir, 'study.yaml'), STUDY_FILE);
  created = await cli('study', 'create', 'syn', '--file', 'study.yaml');
  expect(created.code, created.stderr).toBe(0);
  ran = await cli('study', 'run', 'syn', '--trials', '4', '--workers', '2');
  expect(ran.code, ran.stderr).toBe(0);
  const shown = await cli('study', 'show', 'syn', '--json');
  expect(shown.code, shown.stderr).toBe(0);
  [show] = jsonLines(shown.stdout) as unknown as [Shown];
}, 180_000);

describe('a trading study from the command line', () => {
  it('creates a study from a study file and runs it on two workers', () => {
    expect(created.stdout).toContain('preset     ensemble_conservative');
    expect(created.stdout).toContain('cv         walk-forward:3, embargo 12 bars, lookback 1');
    expect(created.stdout).toMatch(
      /searched +learningRate, gamma, .*turnoverPenalty, drawdownPenalty/,
    );
    expect(ran.stdout).toContain('objective  ');
    // Seed 004's line, as every training command logs it when it starts.
    expect(ran.stderr).toMatch(
      /^GPU: using profile 'CPU only' \(no GPU; .+ RAM\) .+; workers: 2$/m,
    );
    expect(ran.stdout).toMatch(/Finished 4 trials .*: \d complete, \d pruned, 0 failed/);
    expect(ran.stdout).toContain(
      '  its budget: breakStep 2,048 → 2,048 env steps per split (8 updates of 256)',
    );
  });

  it('shows the best trial by split and on the holdout, as JSON and as text', async () => {
    expect(show.drl.preset).toBe('ensemble_conservative');
    expect(show.best.userAttrs.splits).toHaveLength(3);
    // The budget shown next to breakStep is what each split ran.
    for (const split of show.best.userAttrs.splits as { envSteps: number }[])
      expect(split.envSteps).toBe(show.best.budget.stepsPerSplit);
    const bars = show.drl.data.bars;
    expect(show.holdout.range).toEqual([Math.round(bars * 0.8), bars]);
    expect(Number.isFinite(show.holdout.metrics.sharpe)).toBe(true);
    const text = await cli('study', 'show', 'syn');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Trial \d+ by split \(out-of-sample\):/);
    expect(text.stdout).toContain('Holdout (never seen by the search)');
    // The holdout's verdict against buy-and-hold, and the selection's deflated Sharpe ratio among
    // the complete trials (the search chose on their out-of-sample returns).
    expect(show.holdout.verdict.findings[0]?.kind).toMatch(/benchmark$|^no-evidence$/);
    const deflated = show.deflatedSharpe;
    expect(deflated?.trial).toBe(show.best.number);
    expect(deflated?.trials).toBe(deflated?.trialNumbers.length);
    expect(deflated?.trialNumbers).toContain(show.best.number);
    expect(deflated?.probability).toBeGreaterThanOrEqual(0);
    expect(deflated?.probability).toBeLessThanOrEqual(1);
    expect(deflated?.expectedMaxSharpe).toBeGreaterThan(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^Deflated Sharpe ratio of trial ${show.best.number}: \\d\\.\\d+, the probability that its out-of-sample Sharpe .* the best of ${deflated?.trials} complete trials would reach by luck`,
        'm',
      ),
    );
    expect(text.stdout).toMatch(
      /best budget +breakStep 2,048 → 2,048 env steps per split \(8 updates of 256\)/,
    );
  }, 60_000);

  it('computes PBO, and says it cannot be read from so few trials', async () => {
    const pbo = await cli('study', 'pbo', 'syn', '--json');
    expect(pbo.code, pbo.stderr).toBe(0);
    const [p] = jsonLines(pbo.stdout) as unknown as [
      { pbo: number; trials: number[]; reliable: boolean; caveats: string[] },
    ];
    expect(p.pbo).toBeGreaterThanOrEqual(0);
    expect(p.pbo).toBeLessThanOrEqual(1);
    expect(p.trials.length).toBeGreaterThanOrEqual(2);
    // 4 trials at most: far too few to read PBO, and it says so (JSON and text) instead of judging.
    expect(p.reliable).toBe(false);
    expect(p.caveats[0]).toMatch(new RegExp(`^only ${p.trials.length} trials: `));
    const pboText = await cliInProcess('study', 'pbo', 'syn');
    expect(pboText.stdout).toMatch(/Unreliable: only \d trials: .*read PBO from 10 trials on/);
    expect(pboText.stdout).not.toMatch(
      /carries some out-of-sample information|distrust the winner/,
    );
  }, 60_000);

  it('backtests a trial of the study on the holdout, as `study show` evaluated it', async () => {
    const bt = await cli(
      'backtest',
      '--study',
      'syn',
      '--trial',
      String(show.best.number),
      '--json',
    );
    expect(bt.code, bt.stderr).toBe(0);
    const [b] = jsonLines(bt.stdout) as unknown as [{ range: number[]; metrics: Metrics }];
    expect(b.range).toEqual(show.holdout.range);
    expect(b.metrics.sharpe).toBeCloseTo(show.holdout.metrics.sharpe, 10);
  }, 60_000);

  it('fine-tunes: runs the best trials of the source first, showing progress within the trial (split i of n, env steps) on a piped stderr', async () => {
    // The source's best trials run first, in a narrowed space.
    const ft = await cliInProcess(
      'study',
      'create',
      'syn-ft',
      '--preset',
      'ft_small',
      '--data',
      'SYN0,SYN1:1h',
      '--from',
      'syn',
    );
    expect(ft.code, ft.stderr).toBe(0);
    expect(ft.stdout).toMatch(/enqueued +[1-3] best trials of syn/);
    expect(ft.stdout).toContain('from       syn: top 3, neighbourhood ×0.5');
    // --progress-interval 0: a plain line at every progress message (the default is every 30 s).
    const ran = await cli(
      'study',
      'run',
      'syn-ft',
      '--trials',
      '1',
      '--workers',
      '1',
      '--progress-interval',
      '0',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const trials = await cliInProcess('study', 'trials', 'syn-ft', '--json');
    const [first] = jsonLines(trials.stdout) as unknown as [{ params: Record<string, unknown> }];
    expect(first.params).toEqual(show.best.params);

    expect(ran.stderr).not.toContain('\r');
    const lines = ran.stderr.split('\n').filter((l) => l.startsWith('progress: '));
    const end = lines.findIndex((l) => l.includes(': 1 complete, 0 pruned, 0 failed'));
    expect(end, ran.stderr).toBeGreaterThan(0);
    const during = lines.slice(0, end);
    // Every line before the end is of the running trial; each split shows its env steps.
    const pattern =
      /^progress: (0|0\.\d|1)\/1 trials done \(\d+%\): 0 complete, 0 pruned, 0 failed, best -; .*\/trial, ETA [^;]+; running: trial 0 \((starting|split ([1-3])\/3: (starting|([\d,]+)\/2,048 env steps, [\d,]+ env steps\/s))\)$/;
    for (const line of during) expect(line).toMatch(pattern);
    const splits = during.map((l) => Number(pattern.exec(l)?.[3] ?? 0));
    expect(splits).toEqual([...splits].sort((a, b) => a - b));
    for (const split of [1, 2, 3])
      expect(during.join('\n')).toMatch(
        new RegExp(`split ${split}/3: [\\d,]+/2,048 env steps, [\\d,]+ env steps/s`),
      );
    expect(ran.stdout).toMatch(/Finished 1 trial in [\d.]+ s \([^)]+ s\/trial\)/);
  }, 120_000);

  it('refuses to score the study on data other than its own: a dataset replaced since, or gone, is named with how to get it back', async () => {
    // Other stores beside the study's own (--data-dir): the same names with other bars, and one
    // that lacks SYN1:1h.
    for (const [store, symbols] of [
      ['changed', '2'],
      ['partial', '1'],
    ] as const) {
      const made = await cliInProcess(
        ...['data', 'synth', '--symbols', symbols, '--bars', '1500', '--seed', '99'],
        ...['--data-dir', store],
      );
      expect(made.code, made.stderr).toBe(0);
    }
    const trial = String(show.best.number);
    for (const args of [
      ['study', 'show', 'syn'],
      ['backtest', '--study', 'syn', '--trial', trial],
    ]) {
      const changed = await cli(...args, '--data-dir', 'changed');
      expect(changed.code, `${args.join(' ')}: ${changed.stdout}`).toBe(1);
      expect(changed.stderr).toMatch(
        /error \[DATA_MISMATCH\]: the dataset SYN0,SYN1:1h changed since study "syn" was created on it: it now has 1,\d{3} bars, SHA-256 [0-9a-f]{12}… \(the study's: 1,\d{3} bars, SHA-256 [0-9a-f]{12}…\)/,
      );
      expect(changed.stderr).toMatch(/hint: .*start anew on the new data/);
      const gone = await cli(...args, '--data-dir', 'partial');
      expect(gone.code, `${args.join(' ')}: ${gone.stdout}`).toBe(2);
      expect(gone.stderr).toMatch(
        /error \[DATASET_NOT_FOUND\]: study "syn" needs dataset SYN1:1h, which is not in the data store .*partial \(it was created on SYN0,SYN1:1h: /,
      );
      expect(gone.stderr).not.toContain('did you mean');
      expect(gone.stderr).toMatch(/hint: put the data it was created on back in that store/);
    }
  }, 60_000);

  it("refuses a trial's stored model that changed after it was saved, naming the trial and its artifact: study export copies nothing, backtest names no temp dir", async () => {
    const trial = show.best.number;
    // Copies of the study's storage, each with one artifact of the best trial damaged.
    const damaged = (file: string, artifact: string, damage: (bytes: Buffer) => Buffer): void => {
      const source = new Database(join(dir, 'tradelab.db'), { readonly: true });
      source.exec(`VACUUM INTO '${join(dir, file)}'`);
      source.close();
      const db = new Database(join(dir, file));
      const row = db
        .prepare(
          `SELECT a.trial_id AS id, a.bytes FROM artifacts a JOIN trials t ON a.trial_id = t.id
           JOIN studies s ON t.study_id = s.id WHERE s.name = 'syn' AND t.number = ? AND a.name = ?`,
        )
        .get(trial, artifact) as { id: number; bytes: Buffer };
      db.prepare('UPDATE artifacts SET bytes = ? WHERE trial_id = ? AND name = ?').run(
        damage(Buffer.from(row.bytes)),
        row.id,
        artifact,
      );
      db.close();
    };
    damaged('flipped.db', 'weights.bin', (bytes) => {
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] ?? 0) ^ 1;
      return bytes;
    });
    const exported = await cli(
      ...['study', 'export', 'syn', '--storage', 'sqlite:flipped.db', '--to', 'sqlite:out.db'],
    );
    expect(exported.code, exported.stdout).toBe(1);
    expect(exported.stderr).toMatch(
      new RegExp(
        `error \\[MODEL_INVALID\\]: study "syn", trial ${trial}: artifact weights\\.bin is corrupted: its SHA-256 is [0-9a-f]{12}…, model\\.json recorded [0-9a-f]{12}…`,
      ),
    );
    const copied = await cliInProcess('study', 'list', '--storage', 'sqlite:out.db', '--json');
    expect(jsonLines(copied.stdout).map((s) => s.name)).not.toContain('syn');

    damaged('cut.db', 'model.json', (bytes) => bytes.subarray(0, 40));
    const backtest = await cli(
      ...['backtest', '--study', 'syn', '--trial', String(trial), '--storage', 'sqlite:cut.db'],
    );
    expect(backtest.code, backtest.stdout).toBe(1);
    expect(backtest.stderr).toMatch(
      new RegExp(
        `error \\[MODEL_INVALID\\]: model\\.json of trial ${trial}'s kept model: is not valid JSON`,
      ),
    );
    expect(backtest.stderr).not.toContain('tradelab-model-');
    expect(backtest.stderr).toMatch(/hint: the trial's stored model changed after it was saved/);
  }, 60_000);

  it('says what is wrong with a bad study file or flag, and stores nothing', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'data: SYN0,SYN1:1h\nparams:\n  gama: 0.9\n');
    const bad = await cliInProcess('study', 'create', 'bad', '--file', 'bad.yaml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /bad\.yaml:3:3: "gama" is not a study parameter \(did you mean "gamma"\?\)/,
    );
    // Values outside a parameter's domain would fail every trial: refused now, each at file:line.
    writeFileSync(
      join(dir, 'bad-values.yaml'),
      'data: SYN0,SYN1:1h\nparams:\n  breakStep: -5\n  gamma: 1.5\n  batchSize: "big"\n',
    );
    const values = await cliInProcess('study', 'create', 'bad', '--file', 'bad-values.yaml');
    expect(values.code, values.stderr).toBe(2);
    expect(values.stderr).toMatch(
      /bad-values\.yaml:3:14: breakStep: must be an integer ≥ 1, got -5/,
    );
    expect(values.stderr).toMatch(/bad-values\.yaml:4:10: gamma: must be in \[0, 1\], got 1\.5/);
    expect(values.stderr).toMatch(
      /bad-values\.yaml:5:14: batchSize: must be an integer ≥ 1, got "big"/,
    );
    const cv = await cliInProcess(
      'study',
      'create',
      'bad',
      '--data',
      'SYN0,SYN1:1h',
      '--cv',
      'cpcv:4',
    );
    expect(cv.code).toBe(2);
    expect(cv.stderr).toContain('"cpcv:4" is not a cross-validation');
    const list = await cliInProcess('study', 'list', '--json');
    expect(jsonLines(list.stdout).map((s) => s.name)).not.toContain('bad');
  }, 60_000);
});

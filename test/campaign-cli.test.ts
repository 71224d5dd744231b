import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  jsonLines,
  runCli,
  runCliInProcess,
  runCliSignalled,
  tempDir,
  type CliResult,
} from './support/run-cli.js';
import { launchChromium, skipWithoutChromium } from './support/chromium.js';
import { measureCharts } from './support/page-charts.js';

/*
 * A campaign as a user runs it: three tiny trading studies (a fine-tuning one among them) on two
 * worker processes, stopped by SIGKILL of the parent, by SIGTERM and by Ctrl-C, each time run
 * again, until every study has reached its target: no finished trial runs again and no study
 * ends with more trials than its target. Budgets are tiny: this checks the wiring.
 */

const dir = tempDir('tradelab-campaign-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/*
 * The runs' own system temp dir: whatever a trial leaves there (its model, saved before it is
 * stored), even when its worker is killed, must be gone once a run has ended.
 */
const tmp = join(dir, 'tmp');
mkdirSync(tmp);
const env = { TRADELAB_DETECT: 'false', TMPDIR: tmp };
/** What runs left in their temp dir. */
const leftInTemp = (): string[] => readdirSync(tmp).filter((name) => name.startsWith('tradelab-'));
const cli = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env });
const cliInProcess = (...args: string[]): Promise<CliResult> =>
  runCliInProcess(args, { cwd: dir, env });

const CAMPAIGN = `# three tiny studies; ft_small starts once ensemble_balanced has 2 complete trials
name: tiny
data: SYN0,SYN1:1h
cv: walk-forward:3
embargo: 12
holdout: 20%
workers: 2
sampler: { type: random, seed: 5 }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: 5
    weight: 2
    params: &tiny
      netDim: [16, 32]
      nEnvs: 4
      targetStep: 256
      batchSize: 128
      breakStep: 2048
      repeatTimes: 1
      episodeLength: 64
  - preset: ensemble_aggressive
    trials: 4
    params: *tiny
  - name: ft
    preset: ft_small
    from: ensemble_balanced
    after: 2
    trials: 3
    params: *tiny
`;
const TARGETS: Record<string, number> = { ensemble_balanced: 5, ensemble_aggressive: 4, ft: 3 };

beforeAll(async () => {
  const synth = await cliInProcess('data', 'synth', '--symbols', '2', '--bars', '1500');
  expect(synth.code, synth.stderr).toBe(0);
  writeFileSync(join(dir, 'tiny.yaml'), CAMPAIGN);
}, 60_000);

/** Whether a --json run has printed `n` trial records. */
const trialsPrinted =
  (n: number) =>
  (stdout: string): boolean =>
    (stdout.match(/"type":"trial"/g) ?? []).length >= n;

describe('tradelab campaign', () => {
  it('replaces a worker killed with SIGKILL: its trial fails, runs again, and the run ends at its targets', async () => {
    writeFileSync(
      join(dir, 'wk.yaml'),
      CAMPAIGN.replace('name: tiny', 'name: wk').replace(/ {2}- name: ft[\s\S]*$/, ''),
    );
    const child = spawn(process.execPath, [BIN, 'campaign', 'run', 'wk.yaml', '--json'], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    let stdout = '';
    let killed: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killed === undefined && trialsPrinted(1)(stdout)) {
        killed = 0;
        // 300 ms after a trial's end both workers are inside a trial (each takes over a second).
        setTimeout(() => {
          // A worker of this run: a child process of it.
          const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], {
            encoding: 'utf8',
          });
          killed = Number(ps.stdout.trim().split(/\s+/)[0]);
          process.kill(killed, 'SIGKILL');
        }, 300);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(killed).toBeGreaterThan(0);
    const summary = jsonLines(stdout).find((r) => r.type === 'summary') as {
      lost: number;
      studies: { study: string; done: number; target: number; running: number }[];
    };
    for (const study of summary.studies) {
      expect(study.done, study.study).toBe(study.target);
      expect(study.running).toBe(0);
    }
    // Its trial ended failed with how the worker exited, and a retry of it ran.
    const trials = [
      ...jsonLines((await cli('study', 'trials', 'wk.ensemble_balanced', '--json')).stdout),
      ...jsonLines((await cli('study', 'trials', 'wk.ensemble_aggressive', '--json')).stdout),
    ] as {
      studyId: number;
      number: number;
      state: string;
      failReason: string | null;
      retryOf: number | null;
    }[];
    const lost = trials.filter((t) => t.failReason === 'worker exited (SIGKILL)');
    expect(lost).toHaveLength(1);
    expect(summary.lost).toBe(1);
    const [victim] = lost;
    expect(
      trials.some(
        (t) =>
          t.studyId === victim?.studyId && t.retryOf === victim.number && t.state === 'complete',
      ),
    ).toBe(true);
    // The killed worker's trial directory went with the next trial; the others with their trials.
    expect(leftInTemp()).toEqual([]);
  }, 120_000);

  it('two runs of one campaign at once share its targets: every study ends exactly at its target, the fine-tuning one made once', async () => {
    writeFileSync(join(dir, 'twin.yaml'), CAMPAIGN.replace('name: tiny', 'name: twin'));
    const [a, b] = await Promise.all([
      cli('campaign', 'run', 'twin.yaml', '--json'),
      cli('campaign', 'run', 'twin.yaml', '--json'),
    ]);
    for (const run of [a, b]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('STUDY_EXISTS');
    }
    const ran = [a, b].map(
      (run) =>
        (jsonLines(run.stdout).find((r) => r.type === 'summary') as { trials: number }).trials,
    );
    expect(ran.reduce((sum, n) => sum + n, 0)).toBe(12);
    for (const [key, target] of Object.entries(TARGETS)) {
      const trials = jsonLines((await cli('study', 'trials', `twin.${key}`, '--json')).stdout);
      expect(trials.length, key).toBe(target);
      expect(trials.filter((t) => t.state === 'complete' || t.state === 'pruned').length).toBe(
        target,
      );
    }
    const status = await cli('campaign', 'status', 'twin');
    expect(status.stdout).toMatch(/^TOTAL +12\/12 /m);
  }, 120_000);

  it("samples within a custom profile's DRL limits and says so", async () => {
    writeFileSync(
      join(dir, 'small-gpu.yaml'),
      'small_card:\n  extends: rtx_3070\n  displayName: Small card\n  workloads:\n    drl: { netDimMax: 16, batchSize: 64 }\n',
    );
    // The campaign file names the profile (a flag or GPU_PROFILE would win over it).
    writeFileSync(
      join(dir, 'limits.yaml'),
      CAMPAIGN.replace('name: tiny', 'name: limits\nprofile: small_card'),
    );
    // The notes come as the studies are created; the run is stopped after its first trial.
    const ran = await runCliSignalled(['campaign', 'run', 'limits.yaml', '--json'], {
      cwd: dir,
      signal: 'SIGTERM',
      when: trialsPrinted(1),
      env: { TRADELAB_PROFILES_FILE: 'small-gpu.yaml' },
    });
    expect(ran.stderr).toMatch(
      /^GPU: using profile 'Small card' \(8 GB VRAM, custom\) from .*limits\.yaml:3:10; workers: 2$/m,
    );
    expect(ran.stderr).toContain(
      "note: within the profile's limits: ensemble_balanced: netDim: [16, 32] → 16 (profile small_card: drl.netDimMax 16)",
    );
    expect(ran.stderr).toContain('batchSize: 128 → 64 (profile small_card: drl.batchSize 64)');
    const trials = await cli('study', 'trials', 'limits.ensemble_balanced', '--json');
    for (const trial of jsonLines(trials.stdout))
      expect((trial.params as { netDim?: number }).netDim ?? 16).toBe(16);
  }, 120_000);

  it('refuses a campaign file with mistakes, naming file:line for each', async () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      [
        'name: bad',
        'data: SYN0,SYN1:1h',
        'studies:',
        '  - preset: ensemble_balancd',
        '    trials: 2',
        '  - preset: ft_small',
        '    trials: 2',
        '  - preset: ensemble_aggressive',
        '    from: nowhere',
        '    trials: 2',
        '    params: { gamma: 1.5 }',
        '',
      ].join('\n'),
    );
    const result = await cliInProcess('campaign', 'run', 'bad.yaml');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /bad\.yaml:4:\d+: no preset named "ensemble_balancd" \(did you mean ensemble_balanced\?\)/,
    );
    expect(result.stderr).toMatch(
      /bad\.yaml:6:\d+: preset ft_small fine-tunes another study: name it with from:/,
    );
    expect(result.stderr).toMatch(/bad\.yaml:9:\d+: "nowhere" is not a study listed above/);
    expect(result.stderr).toMatch(/bad\.yaml:11:\d+: gamma: /);
    // Nothing was created.
    const status = await cliInProcess('campaign', 'status', 'bad');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('CAMPAIGN_NOT_FOUND');
  });

  it('survives SIGKILL, SIGTERM and Ctrl-C of the run: each next run continues, and no study ends past its target', async () => {
    const args = ['campaign', 'run', 'tiny.yaml', '--json'];
    const killed = await runCliSignalled(args, {
      cwd: dir,
      env,
      signal: 'SIGKILL',
      when: trialsPrinted(1),
    });
    expect(killed.signal).toBe('SIGKILL');
    // The orphaned workers see their parent gone and fail their trials as interrupted.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const terminated = await runCliSignalled(args, {
      cwd: dir,
      env,
      signal: 'SIGTERM',
      when: trialsPrinted(1),
    });
    expect(terminated.code, terminated.stderr).toBe(143);
    expect(terminated.stderr).toContain('terminated: stopping running trials');

    const interrupted = await runCliSignalled(args, {
      cwd: dir,
      env,
      signal: 'SIGINT',
      when: trialsPrinted(1),
    });
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toContain('finishing running trials');

    const rest = await cli('campaign', 'run', 'tiny.yaml', '--progress-interval', '0');
    expect(rest.code, rest.stderr).toBe(0);
    // Not a terminal: a progress line and a plain copy of the table at each trial's end.
    expect(rest.stderr).toMatch(/^progress: \d+% \(\d+\/12 trials\), .*, ETA .*$/m);
    expect(rest.stderr).toMatch(/^ {2}TOTAL +\d+\/12 /m);
    expect(rest.stderr).toMatch(
      /^GPU: using profile 'CPU only' \(no GPU; .* RAM\) .*; workers: \d/m,
    );
    expect(rest.stdout).toMatch(/^TOTAL +12\/12 /m);

    const status = await cli('campaign', 'status', 'tiny', '--json');
    expect(status.code, status.stderr).toBe(0);
    const rows = jsonLines(status.stdout).filter((r) => r.type === 'study');
    expect(rows.map((r) => r.study)).toEqual(['ensemble_balanced', 'ensemble_aggressive', 'ft']);
    for (const row of rows) {
      expect(row.done, String(row.study)).toBe(TARGETS[String(row.study)]);
      expect(row.running).toBe(0);
      expect(row.waiting).toBe(0);
      expect(row.state).toBe('done');
    }
    // The interrupted trials were retried: the studies hold them, failed, beside their retries.
    const trials = await cli('study', 'trials', 'tiny.ensemble_balanced', '--json');
    const records = jsonLines(trials.stdout);
    expect(records.filter((t) => t.state === 'complete').length).toBeLessThanOrEqual(5);

    // Nothing of the killed runs' trials is left in the temp dir.
    expect(leftInTemp()).toEqual([]);

    const again = await cli('campaign', 'run', 'tiny.yaml');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Every study has reached its target: nothing to run.');

    // The report: seed 000's table with a TOTAL row, the facts and a diagnosis; the best trial
    // of each study evaluated on the holdout against buy-and-hold.
    const report = await cli('campaign', 'report', 'tiny', '--json');
    expect(report.code, report.stderr).toBe(0);
    const [json] = jsonLines(report.stdout) as unknown as [
      {
        studies: {
          key: string;
          holdout: {
            sharpe: number;
            benchmarkSharpe: number;
            findings: { kind: string }[];
          } | null;
        }[];
        total: { target: number; counts: { done: number } };
        phases: { trials: number; update: number };
        diagnosis: string[];
      },
    ];
    expect(json.studies.map((s) => s.key)).toEqual([
      'ensemble_balanced',
      'ensemble_aggressive',
      'ft',
    ]);
    expect(json.total).toMatchObject({ target: 12, counts: { done: 12 } });
    for (const study of json.studies) {
      expect(Number.isFinite(study.holdout?.benchmarkSharpe)).toBe(true);
      expect(study.holdout?.findings[0]?.kind).toMatch(/benchmark$|^no-evidence$/);
    }
    expect(json.phases.trials).toBeGreaterThan(0);
    expect(json.phases.update).toBeGreaterThan(0);
    expect(json.diagnosis.length).toBeGreaterThan(0);
    const markdown = await cli('campaign', 'report', 'tiny', '--format', 'md', '--no-holdout');
    expect(markdown.stdout).toMatch(/^\| TOTAL \| 12\/12 \| /m);
    expect(markdown.stdout).toContain('## Diagnosis');
    // --out takes every format, not only html: the file holds what would have been printed.
    const toFile = await cliInProcess(
      'campaign',
      'report',
      'tiny',
      '--format',
      'md',
      '--no-holdout',
      '--out',
      'reports/tiny.md',
    );
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toBe(`Report: ${join(dir, 'reports', 'tiny.md')}\n`);
    expect(readFileSync(join(dir, 'reports', 'tiny.md'), 'utf8')).toBe(markdown.stdout);
    const html = await cliInProcess(
      'campaign',
      'report',
      'tiny',
      '--format',
      'html',
      '--out',
      'r.html',
    );
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(dir, 'r.html'), 'utf8');
    for (const study of ['ensemble_balanced', 'ensemble_aggressive', 'ft'])
      for (const chart of ['history', 'states', 'splits', 'holdout'])
        expect(page, `${chart} of ${study}`).toMatch(
          new RegExp(`<figure class="chart" data-chart="${chart}" data-study="${study}"`),
        );
    // The real campaign's page in a real browser: every chart drew marks, nothing was fetched.
    if (!skipWithoutChromium('campaign-cli.test.ts')) {
      const browser = await launchChromium();
      try {
        const tab = await browser.newPage();
        const requests: string[] = [];
        tab.on('request', (request) => requests.push(request.url()));
        await tab.goto(pathToFileURL(join(dir, 'r.html')).href);
        const charts = await tab.evaluate(measureCharts);
        expect(charts.length).toBeGreaterThan(10);
        const empty = charts
          .filter((c) => c.lines + c.dots + c.bars + c.filledCells === 0)
          .map((c) => `${c.chart} of ${c.study ?? 'the campaign'}`);
        expect(empty).toEqual([]);
        expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
      } finally {
        await browser.close();
      }
    }

    // Projected onto an H100 box: the cores and the measured memory per worker decide the
    // workers; the trial takes as long (tradelab trains on the CPU); every factor has its source.
    const projected = await cliInProcess(
      'campaign',
      'project',
      'tiny',
      '--to',
      'h100',
      '--cores',
      '16',
      '--ram-gb',
      '128',
      '--json',
    );
    expect(projected.code, projected.stderr).toBe(0);
    const [projection] = jsonLines(projected.stdout) as unknown as [
      {
        to: { workers: number; limitedBy: string };
        trialSeconds: number;
        trialsPerHour: number;
        factors: { name: string; source: string }[];
        costUsd: number;
        hours: number;
      },
    ];
    expect(projection.to).toMatchObject({ workers: 16, limitedBy: 'cpuCores' });
    expect(projection.trialsPerHour).toBeCloseTo((16 * 3600) / projection.trialSeconds, 6);
    expect(projection.costUsd).toBeCloseTo(projection.hours * 2.5, 6);
    expect(Object.fromEntries(projection.factors.map((f) => [f.name, f.source]))).toMatchObject({
      'trial time here': 'measured',
      'update phase': 'assumption',
      'workers there': 'planner',
    });
    // Projected onto this machine and checked against the campaign itself: the workers match.
    const validate = [
      'campaign',
      'project',
      'tiny',
      '--to',
      'cpu',
      '--cores',
      '2',
      '--ram-gb',
      '16',
      '--validate',
      'tiny',
    ];
    const validated = await cliInProcess(...validate);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toMatch(/workers +projected 2, measured 2: error \+0%/);
    expect(validated.stdout).toMatch(
      /trials\/h +projected [\d.]+, measured [\d.]+: error [+-]\d+%/,
    );
    // The campaign run on the target, brought back as its own storage file.
    const elsewhere = await cliInProcess(
      ...validate,
      '--validate-storage',
      `sqlite:${join(dir, 'tradelab.db')}`,
    );
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toMatch(
      /^Against campaign tiny in sqlite:.*tradelab\.db, run on the target:$/m,
    );
    expect(elsewhere.stdout).toMatch(/workers +projected 2, measured 2: error \+0%/);

    const table = await cli('campaign', 'status', 'tiny');
    expect(table.stdout).toMatch(
      /^STUDY +DONE +COMPLETE +PRUNED +FAILED +RUNNING +RATE\/H +BEST +ETA$/m,
    );
    expect(table.stdout).toMatch(/^ft +3\/3 /m);

    // The dataset replaced under the campaign (a store with the same names and other bars): the
    // run and the report say that the data changed, not that the file did.
    const synth = await cliInProcess(
      ...['data', 'synth', '--symbols', '2', '--bars', '1500', '--seed', '99'],
      ...['--data-dir', 'changed'],
    );
    expect(synth.code, synth.stderr).toBe(0);
    for (const args of [
      ['campaign', 'run', 'tiny.yaml'],
      ['campaign', 'report', 'tiny'],
    ]) {
      const changed = await cli(...args, '--data-dir', 'changed');
      expect(changed.code, `${args.join(' ')}: ${changed.stdout}`).toBe(1);
      expect(changed.stderr).toMatch(
        /error \[DATA_MISMATCH\]: the dataset SYN0,SYN1:1h changed since study "tiny\.ensemble_balanced" was created on it/,
      );
      expect(changed.stderr).not.toContain('restore the file');
    }
  }, 180_000);
});

/**
 * What the CLI says, read as a user reads it: counts with the right plural, progress lines that
 * agree with the tables beside them, and no figure that contradicts another. Each test runs real
 * commands on small data.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRUNED_VALUE_MEANING } from '../src/tune/index.js';
import { runCli, tempDir } from './support/run-cli.js';

/** A campaign of two tiny studies on two synthetic assets, small enough for seconds. */
const CAMPAIGN = `name: tiny
data: T0,T1:1h
cv: walk-forward:2
holdout: 20%
sampler: { type: random, seed: 1 }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: 2
    params: { netDim: 32, nEnvs: 4, targetStep: 512, batchSize: 256, breakStep: 4096, repeatTimes: 1, episodeLength: 128 }
  - preset: ensemble_aggressive
    trials: 1
    params: { netDim: 32, nEnvs: 4, targetStep: 512, batchSize: 256, breakStep: 4096, repeatTimes: 1, episodeLength: 128 }
`;

/**
 * An objective whose every fourth trial is pruned after a first report of 10, above any complete
 * trial's value (each is under 1): the case where a pruned value looks better than the best.
 */
const PRUNING_OBJECTIVE = `export async function objective(trial) {
  const x = trial.suggestFloat('x', 0, 1);
  await trial.report(trial.number % 4 === 3 ? 10 : x, 0);
  if (trial.number % 4 === 3) throw Object.assign(new Error('pruned'), { name: 'TrialPruned' });
  await trial.report(x / 2, 1);
  return x;
}
`;

describe('CLI messages', () => {
  it("a pruned trial's value says it is intermediate, and the best is a complete trial", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'prunes.mjs'), PRUNING_OBJECTIVE);
    const made = await runCli(['study', 'create', 'p', '--direction', 'max', '--seed', '1'], {
      cwd,
    });
    expect(made.code, made.stderr).toBe(0);
    const ran = await runCli(['study', 'run', 'p', '--objective', 'prunes.mjs', '--trials', '8'], {
      cwd,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const trials = await runCli(['study', 'trials', 'p'], { cwd });
    expect(trials.code, trials.stderr).toBe(0);
    const pruned = trials.stdout.split('\n').filter((l) => /^ +\d+ +pruned /.test(l));
    expect(pruned).toHaveLength(2);
    for (const line of pruned) expect(line).toContain(' 10 (intermediate, step 0) ');
    expect(trials.stdout).toContain(`\nintermediate: ${PRUNED_VALUE_MEANING}.\n`);
    const show = await runCli(['study', 'show', 'p'], { cwd });
    expect(show.stdout).toMatch(/^ {2}best +trial \d+: 0\.\d+$/m);
  });

  it('one synthetic dataset is one, not "1 synthetic datasets"', async () => {
    const cwd = tempDir();
    const one = await runCli(['data', 'synth', '--symbols', 'T0', '--bars', '500'], { cwd });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^Wrote 1 synthetic dataset \(T0:1h\), 500 bars each/m);
  });

  it("a campaign's progress lines say the TOTAL row's rate and ETA, never `ETA ?`; one worker is one", async () => {
    const cwd = tempDir();
    const synth = await runCli(['data', 'synth', '--symbols', 'T0,T1', '--bars', '3000'], { cwd });
    expect(synth.code, synth.stderr).toBe(0);
    writeFileSync(join(cwd, 'tiny.yaml'), CAMPAIGN);
    const run = await runCli(
      ['campaign', 'run', 'tiny.yaml', '--workers', '1', '--progress-interval', '1'],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    const progress = lines.filter((line) => line.startsWith('progress: '));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) expect(line).not.toContain('?');
    // Each plain copy of the table follows its progress line: the two say the same ETA.
    lines.forEach((line, i) => {
      if (!line.startsWith('progress: ')) return;
      const total = lines.slice(i).find((l) => l.startsWith('  TOTAL'));
      const eta = total?.trim().split(/ {2,}/).at(-1);
      if (eta === '-') expect(line).toMatch(/^progress: \d+% \(\d+\/3 trials\)$/);
      else if (eta === 'done') expect(line).toMatch(/, done$/);
      else expect(line).toContain(`, ETA ${eta ?? 'no table'}`);
    });
    const report = await runCli(['campaign', 'report', 'tiny', '--no-holdout'], { cwd });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^last run: 1 worker on \d+ cores?, profile cpu/m);
  });
});

/**
 * The benchmarks as a user runs them: long ones say how far they are while they measure (a line
 * on stderr at each step, off a terminal), not only a table at the end. Tiny shapes keep it quick.
 */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BIN, REPO_ROOT, runCli, tempDir } from './support/run-cli.js';

/** What a run wrote, in the order it came: each chunk with its stream. */
interface Timeline {
  code: number | null;
  chunks: { stream: 'stdout' | 'stderr'; text: string }[];
}

/** Runs `tradelab ARGS` and keeps the order in which stdout and stderr were written. */
function runTimeline(args: readonly string[]): Promise<Timeline> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: tempDir(),
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    const chunks: Timeline['chunks'] = [];
    child.stdout.on('data', (chunk: Buffer) =>
      chunks.push({ stream: 'stdout', text: chunk.toString() }),
    );
    child.stderr.on('data', (chunk: Buffer) =>
      chunks.push({ stream: 'stderr', text: chunk.toString() }),
    );
    child.on('error', reject);
    child.on('close', (code) => {
      resolvePromise({ code, chunks });
    });
  });
}

describe('tradelab bench ppo-update', () => {
  it('prints a progress line at each path as it goes, the table after them', async () => {
    const run = await runTimeline([
      ...['bench', 'ppo-update', '--state', '8', '--net-dim', '8', '--actions', '2'],
      ...['--batch', '32', '--updates', '2', '--repeat', '2', '--no-split', '--reference', 'never'],
    ]);
    const stderr = run.chunks.filter((c) => c.stream === 'stderr').map((c) => c.text);
    const stdout = run.chunks
      .filter((c) => c.stream === 'stdout')
      .map((c) => c.text)
      .join('');
    expect(run.code, stderr.join('')).toBe(0);
    const lines = stderr.join('').trimEnd().split('\n');
    const paths = stdout.split('\n').filter((l) => l.startsWith('PPO update')).length;
    expect(lines[0]).toBe(
      `progress: 0% (0/${paths} paths), measuring wasm, ${paths > 2 ? 'native GEMM + fused kernels' : 'XNNPACK with explicit transposes'}`,
    );
    expect(lines).toHaveLength(paths + 1);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^progress: 100% \\(${paths}/${paths} paths\\), .+ paths/s, ETA 0 s, done$`),
    );
    // The first line came before any of the table.
    expect(run.chunks[0]?.stream).toBe('stderr');
    // The stock kernels run one update once: a row of its own, said under the table.
    expect(stdout).toMatch(/^PPO update, wasm, stock kernels .* 32 +[\d.]+ .* {2}[\d.]+$/m);
    expect(stdout).toContain("medians of up to 2 runs (RUNS lists each row's).");
  });
});

describe('tradelab bench env', () => {
  it('says which nEnvs it measures as it goes', async () => {
    const run = await runCli(['bench', 'env', '--envs', '1,4', '--steps', '2000', '--repeat', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'progress: 0% (0/2 figures), measuring 1 envs',
      expect.stringMatching(/^progress: 50% \(1\/2 figures\), .*, measuring 4 envs$/),
      expect.stringMatching(/^progress: 100% \(2\/2 figures\), .*, done$/),
    ]);
  });
});

describe('what the benchmarks say beside their figures', () => {
  it('bench tcn compares only with a PyTorch step measured in the same run, and says when none ran', async () => {
    // No interpreter: no reference, so no TARGET and no ratio (CI has no PyTorch either way).
    const run = await runCli(
      ['bench', 'tcn', '--steps', '1', '--repeat', '1', '--checkpoint', 'off'],
      { env: { TRADELAB_PYTHON: '/nonexistent/python3' } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/ ≥ [\d,]+ /);
    expect(run.stdout).not.toContain('TARGET:');
    expect(run.stdout).toContain(
      '\nnote: no PyTorch reference in this run (/nonexistent/python3 was not found): no ratio is printed.\n',
    );
    // And it says where it is while it measures, the reference's try included.
    expect(run.stderr).toContain(
      'progress: 0% (0/2 shapes), measuring 32 chunks, checkpointing off\n',
    );
    expect(run.stderr).toMatch(/, measuring PyTorch reference \(bench\/pytorch-tcn\.py\)$/m);
    expect(run.stderr).toMatch(/^progress: 100% \(2\/2 shapes\), .*, done$/m);
  });

  it("bench learn sets the policy beside the oracle's after-fee Sharpe, with turnover, fees and the critic", async () => {
    const run = await runCli([
      'bench',
      'learn',
      '--signals',
      '0.2,0',
      '--seeds',
      '1',
      '--steps',
      '2048',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^SIGNAL +SEED +STEPS +SHARPE +B&H SHARPE +MARGIN +ORACLE +CAPTURED +RETURN +B&H RETURN +TURNOVER\/Y +FEES +EXPL VAR +TRAIN S$/m,
    );
    expect(run.stdout).toMatch(
      /^signal 0\.2: mean Sharpe margin over buy-and-hold -?\d+\.\d\d, ahead in [01] of 1 seed; half the oracle's after-fee Sharpe or more in [01] of 1 seed$/m,
    );
    expect(run.stdout).toMatch(/^signal 0: .*; median fees \d+\.\d\d% of the cash$/m);
  });

  it('bench learn-study says the holdout in a sentence, not as a "Sharpe margin" rate', async () => {
    const run = await runCli(
      ['bench', 'learn-study', '--trials', '2', '--workers', '1', '--steps', '2048'],
      { cwd: tempDir() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('Sharpe margin');
    expect(run.stdout).toMatch(
      /^Best trial \d+ \(mean CV Sharpe -?\d+\.\d{3}\) on the holdout's [\d,]+ bars: Sharpe -?\d+\.\d\d against -?\d+\.\d\d for buy-and-hold \((ahead|behind) by \d+\.\d\d\)\.$/m,
    );
    // Then why: the bootstrap's interval on the difference, and any warning with what to try.
    expect(run.stdout).toMatch(
      /^(note|warning): (Ahead of|Behind|No evidence either way against) buy-and-hold: .*interval is \[-?\d+\.\d\d, -?\d+\.\d\d\]/m,
    );
    expect(run.stdout).not.toMatch(/-0\.00\b/);
    expect(run.stderr).toMatch(/^progress: 100% \(2\/2 trials\)/m);
  });

  it('without a system BLAS, backends and npm ci say the own kernels run, and advise no install', async () => {
    // The install script measures into a file of its own: the checkout's record stays as it was.
    const choice = join(tempDir(), 'gemm-choice.json');
    const env = { TRADELAB_BLAS: '/nonexistent/libopenblas.so.0', TRADELAB_GEMM_CHOICE: choice };
    const backends = await runCli(['backends'], { env });
    expect(backends.code, backends.stderr).toBe(0);
    const line = backends.stdout.split('\n').find((l) => l.startsWith('System BLAS:')) ?? '';
    if (line === '') return; // no native addon here: no BLAS line to read
    expect(line).toContain('none found (/nonexistent/libopenblas.so.0');
    expect(line).toContain("not needed: tradelab's own kernels run the products");
    expect(line).not.toMatch(/install/i);
    const choose = await runProcess(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'choose-gemm.mjs')],
      env,
    );
    expect(choose.code, choose.stderr).toBe(0);
    expect(choose.stdout + choose.stderr).toContain("tradelab's own GEMM kernels");
    expect(choose.stdout + choose.stderr).not.toMatch(/install/i);
    // It measured the CPU's kernels and recorded the one to run, with no BLAS beside them.
    const recorded = JSON.parse(readFileSync(choice, 'utf8')) as {
      choice: string;
      kernel: string;
      blas?: unknown;
      gflops: { kernels: Record<string, number> };
    };
    expect(recorded.choice).toBe('native');
    expect(recorded.blas).toBeUndefined();
    expect(Object.keys(recorded.gflops.kernels)).toContain(recorded.kernel);
    expect(choose.stdout).toContain(`(${recorded.kernel})`);
  });
});

/** Runs a program with the minimal environment and `env`. */
function runProcess(
  program: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, {
      cwd: REPO_ROOT,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolvePromise({ code, stdout, stderr });
    });
  });
}

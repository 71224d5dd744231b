/**
 * The benchmarks as a user runs them: long ones say how far they are while they measure (a line
 * on stderr at each step, off a terminal), not only a table at the end. Tiny shapes keep it quick.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from './support/run-cli.js';

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
      ...['--batch', '32', '--updates', '2', '--repeat', '2', '--no-split'],
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

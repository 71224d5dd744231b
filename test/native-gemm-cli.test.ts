import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/run-cli.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * The native GEMM as a user meets it: a machine with no system BLAS (TRADELAB_BLAS=none hides
 * OpenBLAS, which CI installs), where `matmul auto` must still run tradelab's own kernels and
 * train; and TRADELAB_GEMM_KERNEL, which picks one of the CPU's kernels or says which it has.
 */

const NO_BLAS = { TRADELAB_BLAS: 'none' };

describe('the native GEMM without a system BLAS', () => {
  it('says there is none, and matmul auto runs tradelab’s kernels', async () => {
    const json = await runCli(['backends', '--json'], { env: NO_BLAS });
    expect(json.code, json.stderr).toBe(0);
    const wasm = jsonLines(json.stdout).find((r) => r.name === 'wasm');
    const native = wasm?.nativeGemm as {
      available: boolean;
      kernels?: string[];
      blas?: { available: boolean; reason: string };
    };
    const auto = wasm?.autoMatMul as { path: string; why: string };
    if (!native.available && process.env.CI !== 'true') return; // not built here
    expect(native.available).toBe(true);
    expect(native.blas).toEqual({ available: false, reason: 'TRADELAB_BLAS=none' });
    expect(auto.path).toBe('native');
    expect(String(wasm?.detail)).toMatch(/tradelab sgemm \(\w+ kernels, 1 thread\)/);

    const table = await runCli(['backends'], { env: NO_BLAS });
    expect(table.stdout).toMatch(/^System BLAS: TRADELAB_BLAS=none\.$/m);
    expect(table.stdout).toMatch(
      /^Matrix products \(matmul auto\): native: tradelab's \w+ kernels/m,
    );
  });

  it('trains on them', async () => {
    const dir = await syntheticProject('tradelab-noblas-');
    const run = await runCli(
      ['train', 'ppo', '--out', 'runs/a', ...tinyRunFlags({ steps: '512' })],
      {
        cwd: dir,
        env: NO_BLAS,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/backend wasm \(tradelab sgemm \(\w+ kernels, \d+ threads?\)\)/);
  });
});

describe('TRADELAB_GEMM_KERNEL', () => {
  it('runs the kernel it names, and names the ones there for one the CPU lacks', async () => {
    const chosen = await runCli(['backends', '--json'], {
      env: { TRADELAB_GEMM_KERNEL: 'generic' },
    });
    expect(chosen.code, chosen.stderr).toBe(0);
    const wasm = jsonLines(chosen.stdout).find((r) => r.name === 'wasm');
    const native = wasm?.nativeGemm as { available: boolean; kernel?: string };
    if (!native.available && process.env.CI !== 'true') return;
    expect(native.kernel).toBe('generic');

    const wrong = await runCli(['backends'], { env: { TRADELAB_GEMM_KERNEL: 'sse9' } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /TRADELAB_GEMM_KERNEL=sse9 is not a kernel this CPU runs \(it runs .*generic\)/,
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeGemmChoice,
  fastestKernel,
  readGemmChoice,
  writeGemmChoice,
  type GemmChoice,
} from './gemm-choice.js';

const dir = mkdtempSync(join(tmpdir(), 'tradelab-gemm-choice-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the GEMM choice npm ci records', () => {
  it("keeps the best instruction set's kernel unless another is more than 5% faster", () => {
    const kernels = ['avx512', 'avx2', 'generic'];
    expect(
      fastestKernel(
        new Map([
          ['avx512', 100],
          ['avx2', 104],
        ]),
        kernels,
      ),
    ).toBe('avx512');
    expect(
      fastestKernel(
        new Map([
          ['avx512', 100],
          ['avx2', 106],
        ]),
        kernels,
      ),
    ).toBe('avx2');
    expect(
      fastestKernel(
        new Map([
          ['avx512', 100],
          ['avx2', 60],
        ]),
        kernels,
      ),
    ).toBe('avx512');
    expect(fastestKernel(new Map(), [])).toBeUndefined();
  });

  it('records a choice without a system BLAS, and says so', () => {
    const path = join(dir, 'no-blas.json');
    const choice: GemmChoice = {
      choice: 'native',
      kernel: 'avx2',
      gflops: { native: 98.4, kernels: { avx512: 91.2, avx2: 98.4 } },
      measuredAt: '2026-11-29T06:00:00.000Z',
    };
    writeGemmChoice(choice, path);
    expect(readGemmChoice(path)).toEqual(choice);
    expect(describeGemmChoice(choice)).toBe(
      "tradelab's avx2 kernels 98 GFLOP/s (avx512 91), no system BLAS (measured 2026-11-29 on PPO's shapes)",
    );
  });

  it('reads the records written before kernels were compared, with a BLAS', () => {
    const path = join(dir, 'old.json');
    writeFileSync(
      path,
      JSON.stringify({
        choice: 'blas',
        kernel: 'avx512',
        blas: { vendor: 'OpenBLAS', path: 'libopenblas.so.0' },
        gflops: { native: 80, blas: 95 },
        measuredAt: '2026-11-20T00:00:00.000Z',
      }),
    );
    const choice = readGemmChoice(path);
    expect(choice?.choice).toBe('blas');
    expect(choice === undefined ? '' : describeGemmChoice(choice)).toBe(
      "OpenBLAS 95 GFLOP/s against tradelab's avx512 kernels 80 GFLOP/s (measured 2026-11-20 on PPO's shapes)",
    );
  });

  it('treats a damaged record as none: npm ci or bench gemm --save-choice measures again', () => {
    const path = join(dir, 'damaged.json');
    writeFileSync(path, '{"choice": "native", "kernel": ');
    expect(readGemmChoice(path)).toBeUndefined();
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeNativeGemm,
  loadSystemBlas,
  nativeGemmStatus,
  ownKernel,
  setNativeThreads,
  systemBlasCandidates,
  useNativeKernel,
} from './native-gemm.js';
import { openblasCoretypeFor } from './openblas-coretype.js';
import { autoMatMulPath } from './backends.js';
import { readGemmChoice } from './gemm-choice.js';

/*
 * Loading the native GEMM: the kernel chosen for this CPU, the system BLAS opened at run time
 * (OPENBLAS_CORETYPE chosen before it loads), and thread control. Skipped when the addon is not
 * built, except in CI. The kernels' arithmetic is checked in native-kernels.test.ts.
 */

const status = nativeGemmStatus();
const skip = !status.available && process.env.CI !== 'true';
if (skip)
  console.warn(
    `native-gemm.test.ts: skipping the native GEMM tests (${status.reason}). CI runs them.`,
  );

/** The CPU's feature flags, from /proc/cpuinfo (empty elsewhere). */
function cpuFlags(): Set<string> {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    return new Set((/^(flags|Features)\s*:(.*)$/m.exec(info)?.[2] ?? '').trim().split(/\s+/));
  } catch {
    return new Set();
  }
}

describe('nativeGemmStatus', () => {
  it('says why when it is not available, and how to fix it', () => {
    if (status.available) expect(status.reason).toBe('');
    else expect(status.reason).toMatch(/npm run build:native/);
    expect(describeNativeGemm(status).length).toBeGreaterThan(0);
  });
});

describe.skipIf(skip)('native GEMM', () => {
  it('is built (CI requires it) and runs the kernel npm ci measured fastest, else the best ISA', () => {
    expect(status.available, `the native GEMM must be built in CI: ${status.reason}`).toBe(true);
    const flags = cpuFlags();
    const expected =
      process.arch === 'arm64'
        ? 'neon'
        : flags.has('avx512f')
          ? 'avx512'
          : flags.has('avx2') && flags.has('fma')
            ? 'avx2'
            : 'generic';
    // The kernel running is the one npm ci measured fastest here (else the best instruction
    // set's), or, once a backend started (files share a worker), the system BLAS where npm ci
    // measured it faster.
    const own = readGemmChoice()?.kernel ?? expected;
    if (process.env.TRADELAB_GEMM_KERNEL === undefined)
      expect(autoMatMulPath().path === 'blas' ? [own, 'blas'] : [own]).toContain(status.kernel);
    expect(status.kernels?.[0]).toBe(expected);
    expect(status.kernels).toContain('generic');
    expect(describeNativeGemm(status)).toMatch(
      status.kernel === 'blas'
        ? new RegExp(`^${status.blas?.vendor ?? 'BLAS'} sgemm \\(.*1 thread\\)$`)
        : /^tradelab sgemm \((avx512|avx2|neon|generic) kernels, 1 thread\)$/,
    );
  });

  it('uses one thread by default, more on request', () => {
    expect(status.threads).toBe(1);
    try {
      expect(setNativeThreads(2)).toBe(2);
      expect(nativeGemmStatus().threads).toBe(2);
      expect(describeNativeGemm()).toMatch(/, 2 threads\)$/);
    } finally {
      setNativeThreads(1);
    }
    expect(nativeGemmStatus().threads).toBe(1);
    expect(() => setNativeThreads(0)).toThrow(/threads must be ≥ 1, got 0/);
  });

  it('refuses a kernel this CPU does not run, naming the ones it does', () => {
    expect(() => {
      useNativeKernel('sse9');
    }).toThrow(/this CPU has no sse9 kernel \(it runs .*generic\)/);
  });

  it('looks for OpenBLAS by its usual names, or where TRADELAB_BLAS says, or nowhere', () => {
    const saved = process.env.TRADELAB_BLAS;
    try {
      delete process.env.TRADELAB_BLAS;
      expect(systemBlasCandidates()).toEqual(
        process.platform === 'darwin'
          ? expect.arrayContaining(['/System/Library/Frameworks/Accelerate.framework/Accelerate'])
          : ['libopenblas.so.0', 'libopenblas.so'],
      );
      process.env.TRADELAB_BLAS = '/opt/lib/libmyblas.so';
      expect(systemBlasCandidates()).toEqual(['/opt/lib/libmyblas.so']);
      process.env.TRADELAB_BLAS = 'none';
      expect(systemBlasCandidates()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TRADELAB_BLAS;
      else process.env.TRADELAB_BLAS = saved;
    }
  });
});

/*
 * The system BLAS. CI installs OpenBLAS and runs this; it also runs the whole suite once with
 * TRADELAB_BLAS=none, where this must say why there is none.
 */
describe.skipIf(skip)('system BLAS', () => {
  const blas = loadSystemBlas();
  const wanted = process.env.CI === 'true' && process.env.TRADELAB_BLAS !== 'none';

  it('opens OpenBLAS where it is installed (CI installs it), or says why not', () => {
    if (wanted) expect(blas.available, blas.reason).toBe(true);
    if (!blas.available) {
      expect(blas.reason).toMatch(/TRADELAB_BLAS=none|none found .*not needed/);
      expect(blas.reason).not.toContain('install');
      expect(() => {
        useNativeKernel('blas');
      }).toThrow(/no system BLAS/);
    }
  });

  it.skipIf(!blas.available || blas.vendor !== 'OpenBLAS')(
    'runs the kernels OPENBLAS_CORETYPE names, set from /proc/cpuinfo unless you set it',
    () => {
      if (blas.coretype?.source === 'user') {
        expect(blas.coretype.value).toBe(process.env.OPENBLAS_CORETYPE);
        return;
      }
      const expected =
        process.platform === 'linux'
          ? openblasCoretypeFor(readFileSync('/proc/cpuinfo', 'utf8'))
          : undefined;
      expect(blas.coretype?.value).toBe(expected);
      if (expected !== undefined) {
        expect(process.env.OPENBLAS_CORETYPE).toBe(expected);
        expect(blas.corename?.toLowerCase()).toBe(expected.toLowerCase());
      }
    },
  );

  it.skipIf(!blas.available)('runs products on the BLAS when asked, and back on ours', () => {
    try {
      useNativeKernel('blas');
      const now = nativeGemmStatus();
      expect(now.kernel).toBe('blas');
      expect(describeNativeGemm(now)).toMatch(/^(OpenBLAS|Accelerate|BLAS) sgemm/);
    } finally {
      useNativeKernel('own');
    }
    // Ours: the best this CPU runs, or the one the install measured faster (gemm-choice.json:
    // on a noisy machine that may be avx2 beside avx512).
    expect(nativeGemmStatus().kernel).toBe(ownKernel());
  });
});

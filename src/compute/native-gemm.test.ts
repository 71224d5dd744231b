import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeNativeGemm, nativeGemmStatus, setNativeThreads } from './native-gemm.js';
import { openblasCoretypeFor } from './openblas-coretype.js';

/*
 * Loading the native GEMM: the status it reports, OPENBLAS_CORETYPE chosen before OpenBLAS
 * loads, and thread control. Skipped when the addon is not built, except in CI.
 */

const status = nativeGemmStatus();
const skip = !status.available && process.env.CI !== 'true';
if (skip)
  console.warn(
    `native-gemm.test.ts: skipping the native GEMM tests (${status.reason}). CI runs them.`,
  );

describe('nativeGemmStatus', () => {
  it('says why when it is not available, and how to fix it', () => {
    if (status.available) expect(status.reason).toBe('');
    else expect(status.reason).toMatch(/npm run build:native/);
    expect(describeNativeGemm(status).length).toBeGreaterThan(0);
  });
});

describe.skipIf(skip)('native GEMM on OpenBLAS', () => {
  const openblas = status.vendor === 'OpenBLAS';

  it('is built (CI requires it)', () => {
    expect(status.available, `the native GEMM must be built in CI: ${status.reason}`).toBe(true);
  });

  it.skipIf(!openblas)('runs the kernels OPENBLAS_CORETYPE names, set from /proc/cpuinfo', () => {
    if (status.coretype?.source === 'user') {
      expect(status.coretype.value).toBe(process.env.OPENBLAS_CORETYPE);
      return;
    }
    const expected =
      process.platform === 'linux'
        ? openblasCoretypeFor(readFileSync('/proc/cpuinfo', 'utf8'))
        : undefined;
    expect(status.coretype?.value).toBe(expected);
    if (expected !== undefined) {
      expect(process.env.OPENBLAS_CORETYPE).toBe(expected);
      expect(status.corename?.toLowerCase()).toBe(expected.toLowerCase());
    }
    expect(describeNativeGemm(status)).toMatch(/^OpenBLAS sgemm \(.+ kernels, \d+ threads?\)$/);
  });

  it.skipIf(!openblas)('uses one thread by default, more on request', () => {
    if (process.env.OPENBLAS_NUM_THREADS === '1') expect(status.threads).toBe(1);
    try {
      expect(setNativeThreads(2)).toBe(2);
      expect(nativeGemmStatus().threads).toBe(2);
    } finally {
      setNativeThreads(1);
    }
    expect(nativeGemmStatus().threads).toBe(1);
    expect(() => setNativeThreads(0)).toThrow(/threads must be ≥ 1, got 0/);
  });
});

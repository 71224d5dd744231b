import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TradelabError } from '../core/index.js';
import { openblasCoretypeFor } from './openblas-coretype.js';

/*
 * The optional native GEMM (native/gemm: cblas_sgemm from OpenBLAS, or Accelerate on macOS),
 * built at `npm install` by scripts/build-native.mjs when a BLAS is there. This module loads it
 * once, after setting the OpenBLAS environment that only counts before the library loads, and
 * says why it is not available when it is not.
 */

/** The addon's functions (native/gemm/gemm.c documents each). */
export interface NativeGemmAddon {
  /** "OpenBLAS" or "Accelerate". */
  vendor: string;
  /** Batched C = act(op(A)·op(B) + bias) on a Float32Array heap; offsets in elements. */
  gemm(
    heap: Float32Array,
    batch: number,
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    aOffset: number,
    aStride: number,
    bOffset: number,
    bStride: number,
    cOffset: number,
    biasOffset: number,
    biasSize: number,
    activation: number,
  ): void;
  /** False when the library has no thread control. */
  setNumThreads(threads: number): boolean;
  getNumThreads(): number | undefined;
  corename(): string | undefined;
  config(): string | undefined;
}

/** Whether the native GEMM loaded, and what it runs on or why not. */
export interface NativeGemmStatus {
  available: boolean;
  /** Why it is not available and how to fix it; empty when available. */
  reason: string;
  /** "OpenBLAS" or "Accelerate". */
  vendor?: string;
  /** OpenBLAS's kernel family in use, e.g. "SkylakeX". */
  corename?: string;
  /** OPENBLAS_CORETYPE at load time and who chose it. */
  coretype?: { value: string; source: 'user' | 'cpuinfo' };
  /** BLAS threads per product. */
  threads?: number;
  /** OpenBLAS's build configuration, e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY …". */
  config?: string;
}

const gemmDir = fileURLToPath(new URL('../../native/gemm/', import.meta.url));
const addonPath = `${gemmDir}build/Release/tradelab_gemm.node`;
const statusPath = `${gemmDir}build-status.json`;
const rebuild = 'then run `npm run build:native`';

/** The outcome of the one load attempt; undefined until the first use. */
let loaded:
  { addon?: NativeGemmAddon; reason: string; coretype?: NativeGemmStatus['coretype'] } | undefined;

/** Why the addon file is missing, from the status file the build script leaves. */
function missingReason(): string {
  if (!existsSync(statusPath))
    return `not built (${addonPath} is missing and the install script never ran, e.g. npm --ignore-scripts); run \`npm run build:native\``;
  try {
    const status = JSON.parse(readFileSync(statusPath, 'utf8')) as {
      ok?: boolean;
      reason?: string;
    };
    if (status.ok === true)
      return `built once, but ${addonPath} is missing; run \`npm run build:native\``;
    return `not built: ${status.reason ?? 'no reason recorded'}; ${rebuild}`;
  } catch (error) {
    return `not built, and ${statusPath} is unreadable (${(error as Error).message}); run \`npm run build:native\``;
  }
}

/**
 * Chooses OpenBLAS's kernels and thread count before it loads (both are read once, at load):
 * OPENBLAS_CORETYPE from /proc/cpuinfo unless the user set it, and one thread unless the user
 * set OPENBLAS_NUM_THREADS, so that trial workers, one per core, do not each start a pool.
 */
function prepareEnvironment(): NativeGemmStatus['coretype'] {
  process.env.OPENBLAS_NUM_THREADS ??= '1';
  const user = process.env.OPENBLAS_CORETYPE;
  if (user !== undefined && user !== '') return { value: user, source: 'user' };
  if (process.platform !== 'linux') return undefined;
  let cpuinfo: string;
  try {
    cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return undefined; // no /proc (a sandbox): leave detection to OpenBLAS
  }
  const value = openblasCoretypeFor(cpuinfo);
  if (value === undefined) return undefined;
  process.env.OPENBLAS_CORETYPE = value;
  return { value, source: 'cpuinfo' };
}

/** The native GEMM, loaded on first use; undefined when it is not available (see the status). */
export function loadNativeGemm(): NativeGemmAddon | undefined {
  if (loaded !== undefined) return loaded.addon;
  if (!existsSync(addonPath)) {
    loaded = { reason: missingReason() };
    return undefined;
  }
  const coretype = prepareEnvironment();
  try {
    const addon = createRequire(import.meta.url)(addonPath) as NativeGemmAddon;
    loaded = { addon, reason: '', ...(coretype === undefined ? {} : { coretype }) };
  } catch (error) {
    loaded = {
      reason: `${addonPath} failed to load (${(error as Error).message}); install OpenBLAS (Debian/Ubuntu: libopenblas-dev), ${rebuild}`,
    };
  }
  return loaded.addon;
}

/** Why the native GEMM did not load ('' when it did). */
function loadFailure(): string {
  loadNativeGemm();
  return loaded?.reason ?? '';
}

/** Whether the native GEMM is available here, what it runs on, or why not. */
export function nativeGemmStatus(): NativeGemmStatus {
  const addon = loadNativeGemm();
  if (addon === undefined) return { available: false, reason: loadFailure() };
  const corename = addon.corename();
  const threads = addon.getNumThreads();
  const config = addon.config();
  return {
    available: true,
    reason: '',
    vendor: addon.vendor,
    ...(corename === undefined ? {} : { corename }),
    ...(loaded?.coretype === undefined ? {} : { coretype: loaded.coretype }),
    ...(threads === undefined ? {} : { threads }),
    ...(config === undefined ? {} : { config: config.trim() }),
  };
}

/** One line for `tradelab backends` and ActiveBackend.matmul, e.g. "OpenBLAS sgemm (SkylakeX kernels, 1 thread)". */
export function describeNativeGemm(status: NativeGemmStatus = nativeGemmStatus()): string {
  if (!status.available) return `native GEMM not available: ${status.reason}`;
  const parts: string[] = [];
  if (status.corename !== undefined) parts.push(`${status.corename} kernels`);
  if (status.threads !== undefined)
    parts.push(`${status.threads} thread${status.threads === 1 ? '' : 's'}`);
  return `${status.vendor ?? 'BLAS'} sgemm${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * Sets how many threads each native product uses: 1 (the default) when trial workers already
 * fill the cores, `'all'` for a single training run that should use the whole machine.
 */
export function setNativeThreads(threads: number | 'all'): number {
  const addon = loadNativeGemm();
  if (addon === undefined)
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `cannot set native GEMM threads: ${loadFailure()}`,
      {
        hint: 'run `tradelab backends` to see the native GEMM status',
      },
    );
  const count = threads === 'all' ? availableParallelism() : threads;
  if (!Number.isInteger(count) || count < 1)
    throw new TradelabError('INVALID_ARGUMENT', `native GEMM threads must be ≥ 1, got ${threads}`, {
      hint: "pass a positive integer, or 'all' for every core",
    });
  if (!addon.setNumThreads(count))
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `the native GEMM's BLAS (${addon.vendor}) has no thread control`,
      { hint: 'Accelerate chooses its own threads; set VECLIB_MAXIMUM_THREADS before starting' },
    );
  return addon.getNumThreads() ?? count;
}

import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { readGemmChoice } from './gemm-choice.js';
import { TradelabError } from '../core/index.js';
import { openblasCoretypeFor } from './openblas-coretype.js';

/*
 * The native GEMM addon (native/gemm), built at `npm install` by scripts/build-native.mjs with a C
 * compiler and nothing else. It carries tradelab's own SGEMM kernels (AVX-512, AVX2+FMA, NEON,
 * portable C; the best the CPU runs is chosen at load) and can open a system BLAS (OpenBLAS, or
 * Accelerate on macOS) at run time. This module loads it once, opens the BLAS only when asked, and
 * says why either is unavailable.
 */

/** The addon's functions (native/gemm/addon.c documents each). */
export interface NativeGemmAddon {
  /** Batched C = act(op(A)·op(B) + bias) on a Float32Array heap; `params` as {@link GEMM_PARAMS}. */
  gemm(heap: Float32Array, params: Float64Array): void;
  /** tradelab's kernels this CPU runs, best first ("avx512", "avx2", "neon", "generic"). */
  kernels(): string[];
  /** Runs products on one of {@link kernels}, or on "blas" once {@link loadBlas} succeeded. */
  useKernel(name: string): void;
  /** The kernel products run on now. */
  kernel(): string;
  /** Threads per product. */
  setThreads(threads: number): void;
  /** Threads per product on the active kernel (undefined: a BLAS that cannot say). */
  threads(): number | undefined;
  /** Opens the first library of `paths` that has cblas_sgemm (once per process). */
  loadBlas(paths: string[]): LoadedBlas | { error: string };
  /** Runs `kernel`'s register-only FMA loop; returns the floating-point operations done. */
  fmaPeak(kernel: string, iterations: number): number;
  /**
   * Inverted dropout in place: params [offset, count, threshold, scale, state0] (see causal-conv.ts).
   * Absent from an addon built before it.
   */
  dropout?(heap: Float32Array, params: Float64Array): void;
}

/** What the addon says of the system BLAS it opened. */
interface LoadedBlas {
  vendor: string;
  path: string;
  corename?: string;
  config?: string;
}

/** The order of {@link NativeGemmAddon.gemm}'s parameters (addon.c's P_* constants). */
export const GEMM_PARAMS = [
  'batch',
  'transA',
  'transB',
  'm',
  'n',
  'k',
  'aOffset',
  'aStride',
  'lda',
  'bOffset',
  'bStride',
  'ldb',
  'cOffset',
  'cStride',
  'ldc',
  'biasOffset',
  'biasSize',
  'activation',
  'accumulate',
] as const;

/**
 * One product's parameters by name (see addon.c's gemm); lda/ldb/ldc/cStride 0 mean packed. The
 * optional epilogues (batch 1; see sgemm.h's tl_gemm): C masked by ReLU bits at bitsInOffset,
 * C's ReLU bits stored at bitsOutOffset (bitsLd 16-bit words a row; 0: ceil(n / 16)), C's column
 * sums at columnSumsOffset; −1 or absent: none.
 */
export type GemmCall = Record<(typeof GEMM_PARAMS)[number], number> & Partial<GemmEpilogues>;

/** The optional epilogue parameters of {@link GemmCall}, in the addon's order. */
export interface GemmEpilogues {
  bitsInOffset: number;
  bitsOutOffset: number;
  bitsLd: number;
  columnSumsOffset: number;
}

const EPILOGUE_DEFAULTS: GemmEpilogues = {
  bitsInOffset: -1,
  bitsOutOffset: -1,
  bitsLd: 0,
  columnSumsOffset: -1,
};
const EPILOGUE_PARAMS = Object.keys(EPILOGUE_DEFAULTS) as (keyof GemmEpilogues)[];

/** A reusable parameter block for {@link NativeGemmAddon.gemm}. */
export class GemmParams {
  readonly values = new Float64Array(GEMM_PARAMS.length + EPILOGUE_PARAMS.length);

  /** Fills the block from `call` and returns it. */
  set(call: GemmCall): Float64Array {
    GEMM_PARAMS.forEach((name, i) => (this.values[i] = call[name]));
    EPILOGUE_PARAMS.forEach(
      (name, i) => (this.values[GEMM_PARAMS.length + i] = call[name] ?? EPILOGUE_DEFAULTS[name]),
    );
    return this.values;
  }
}

/** A system BLAS: found and opened, or why not. */
export interface SystemBlasStatus {
  available: boolean;
  /** Why it is not available; empty when it is. */
  reason: string;
  /** "OpenBLAS", "Accelerate" or "BLAS". */
  vendor?: string;
  /** The library file opened. */
  path?: string;
  /** OpenBLAS's kernel family in use, e.g. "SkylakeX". */
  corename?: string;
  /** OPENBLAS_CORETYPE at load time and who chose it. */
  coretype?: { value: string; source: 'user' | 'cpuinfo' };
  /** OpenBLAS's build configuration, e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY …". */
  config?: string;
}

/** Whether the native GEMM loaded, which kernel runs, or why not. */
export interface NativeGemmStatus {
  available: boolean;
  /** Why it is not available and how to fix it; empty when available. */
  reason: string;
  /** tradelab's kernels this CPU runs, best first. */
  kernels?: string[];
  /** The kernel products run on now: one of `kernels`, or "blas". */
  kernel?: string;
  /** Threads per product. */
  threads?: number;
  /** The system BLAS, when it has been opened (see {@link loadSystemBlas}). */
  blas?: SystemBlasStatus;
}

const gemmDir = fileURLToPath(new URL('../../native/gemm/', import.meta.url));
const addonPath = `${gemmDir}build/Release/tradelab_gemm.node`;
const statusPath = `${gemmDir}build-status.json`;
const rebuild = 'then run `npm run build:native`';

/** The outcome of the one load attempt; undefined until the first use. */
let loaded: { addon?: NativeGemmAddon; reason: string } | undefined;
/** The outcome of the one attempt to open a system BLAS; undefined until asked. */
let blasStatus: SystemBlasStatus | undefined;

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
 * The kernel tradelab's products run on: TRADELAB_GEMM_KERNEL when set (to measure or test the
 * others; an unknown or unsupported name is an error naming the ones there), else the one `bench
 * gemm --save-choice` measured fastest here (npm ci records it), else the best instruction set's.
 */
function ownKernelOf(addon: NativeGemmAddon): string {
  const kernels = addon.kernels();
  const wanted = process.env.TRADELAB_GEMM_KERNEL;
  if (wanted !== undefined && wanted !== '') {
    if (!kernels.includes(wanted))
      throw new TradelabError(
        'CONFIG_INVALID',
        `TRADELAB_GEMM_KERNEL=${wanted} is not a kernel this CPU runs (it runs ${kernels.join(', ')})`,
        {
          hint: `set it to one of ${kernels.join(', ')}, or unset it for the best (${kernels[0]})`,
        },
      );
    return wanted;
  }
  const measured = readGemmChoice()?.kernel;
  if (measured !== undefined && kernels.includes(measured)) return measured;
  return kernels[0] ?? 'generic';
}

/** Runs products on {@link ownKernelOf}'s kernel. */
function chooseKernel(addon: NativeGemmAddon): void {
  addon.useKernel(ownKernelOf(addon));
}

/** tradelab's kernel for this machine (see {@link ownKernelOf}); undefined without the addon. */
export function ownKernel(): string | undefined {
  const addon = loadNativeGemm();
  return addon === undefined ? undefined : ownKernelOf(addon);
}

/** The native GEMM, loaded on first use; undefined when it is not available (see the status). */
export function loadNativeGemm(): NativeGemmAddon | undefined {
  if (loaded !== undefined) return loaded.addon;
  if (!existsSync(addonPath)) {
    loaded = { reason: missingReason() };
    return undefined;
  }
  let addon: NativeGemmAddon;
  try {
    addon = createRequire(import.meta.url)(addonPath) as NativeGemmAddon;
  } catch (error) {
    loaded = { reason: `${addonPath} failed to load (${(error as Error).message}); ${rebuild}` };
    return undefined;
  }
  loaded = { addon, reason: '' };
  chooseKernel(addon);
  return addon;
}

/** Why the native GEMM did not load ('' when it did). */
function loadFailure(): string {
  loadNativeGemm();
  return loaded?.reason ?? '';
}

/**
 * Where to look for a system BLAS: $TRADELAB_BLAS (a library path, or `none` to use none), else
 * OpenBLAS's usual names on Linux and Accelerate on macOS.
 */
export function systemBlasCandidates(): string[] {
  const chosen = process.env.TRADELAB_BLAS;
  if (chosen === 'none') return [];
  if (chosen !== undefined && chosen !== '') return [chosen];
  if (process.platform === 'darwin')
    return [
      '/System/Library/Frameworks/Accelerate.framework/Accelerate',
      '/opt/homebrew/opt/openblas/lib/libopenblas.dylib',
    ];
  return ['libopenblas.so.0', 'libopenblas.so'];
}

/**
 * Chooses OpenBLAS's kernels and thread count before it loads (both are read once, at load):
 * OPENBLAS_CORETYPE from /proc/cpuinfo unless the user set it, and one thread unless the user
 * set OPENBLAS_NUM_THREADS, so that trial workers, one per core, do not each start a pool.
 */
function prepareBlasEnvironment(): SystemBlasStatus['coretype'] {
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

/**
 * Opens the system BLAS through the addon (once per process) and says what it is, or why there
 * is none. Products keep running on tradelab's kernels until {@link useNativeKernel}('blas').
 */
export function loadSystemBlas(): SystemBlasStatus {
  if (blasStatus !== undefined) return blasStatus;
  const addon = loadNativeGemm();
  if (addon === undefined) {
    blasStatus = {
      available: false,
      reason: `the native GEMM addon is not loaded: ${loadFailure()}`,
    };
    return blasStatus;
  }
  const candidates = systemBlasCandidates();
  if (candidates.length === 0) {
    blasStatus = { available: false, reason: 'TRADELAB_BLAS=none' };
    return blasStatus;
  }
  const coretype = prepareBlasEnvironment();
  const result = addon.loadBlas(candidates);
  if ('error' in result) {
    blasStatus = {
      available: false,
      // No advice to install one: tradelab's own kernels run the products, and a BLAS is used
      // only where a measurement (`tradelab bench gemm --save-choice`) finds it faster.
      reason: `none found (${result.error}); not needed: tradelab's own kernels run the products`,
    };
    return blasStatus;
  }
  blasStatus = {
    available: true,
    reason: '',
    vendor: result.vendor,
    path: result.path,
    ...(result.corename === undefined ? {} : { corename: result.corename }),
    ...(coretype === undefined || result.vendor !== 'OpenBLAS' ? {} : { coretype }),
    ...(result.config === undefined ? {} : { config: result.config.trim() }),
  };
  return blasStatus;
}

/** Whether the native GEMM is available here, which kernel runs, or why not. */
export function nativeGemmStatus(): NativeGemmStatus {
  const addon = loadNativeGemm();
  if (addon === undefined) return { available: false, reason: loadFailure() };
  const threads = addon.threads();
  return {
    available: true,
    reason: '',
    kernels: addon.kernels(),
    kernel: addon.kernel(),
    ...(threads === undefined ? {} : { threads }),
    ...(blasStatus === undefined ? {} : { blas: blasStatus }),
  };
}

/** The addon, or an error saying why it is not there. */
function requireNativeGemm(what: string): NativeGemmAddon {
  const addon = loadNativeGemm();
  if (addon === undefined)
    throw new TradelabError('BACKEND_UNAVAILABLE', `cannot ${what}: ${loadFailure()}`, {
      hint: 'run `tradelab backends` to see the native GEMM status',
    });
  return addon;
}

/**
 * Runs products on `kernel`: `'own'` for tradelab's kernel for this machine (see {@link ownKernelOf}),
 * `'blas'` for the system BLAS (opened here if need be), or one of the CPU's kernel names.
 */
export function useNativeKernel(kernel: string): void {
  const addon = requireNativeGemm(`use the native kernel ${kernel}`);
  if (kernel === 'blas') {
    const blas = loadSystemBlas();
    if (!blas.available)
      throw new TradelabError('BACKEND_UNAVAILABLE', `no system BLAS: ${blas.reason}`, {
        hint: "use matmul 'native' (tradelab's own kernels), which needs no system library",
      });
    addon.useKernel('blas');
    return;
  }
  if (kernel === 'own') {
    chooseKernel(addon);
    return;
  }
  if (!addon.kernels().includes(kernel))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `this CPU has no ${kernel} kernel (it runs ${addon.kernels().join(', ')})`,
      { hint: `pick one of ${addon.kernels().join(', ')}` },
    );
  addon.useKernel(kernel);
}

/**
 * One line for `tradelab backends` and ActiveBackend.matmul, e.g. "tradelab sgemm (avx512
 * kernels, 1 thread)" or "OpenBLAS sgemm (SkylakeX kernels, 1 thread)".
 */
export function describeNativeGemm(status: NativeGemmStatus = nativeGemmStatus()): string {
  if (!status.available) return `native GEMM not available: ${status.reason}`;
  const threads =
    status.threads === undefined
      ? []
      : [`${status.threads} thread${status.threads === 1 ? '' : 's'}`];
  if (status.kernel === 'blas') {
    const blas = status.blas;
    const parts = [
      ...(blas?.corename === undefined ? [] : [`${blas.corename} kernels`]),
      ...threads,
    ];
    return `${blas?.vendor ?? 'BLAS'} sgemm${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
  }
  return `tradelab sgemm (${[`${status.kernel ?? 'unknown'} kernels`, ...threads].join(', ')})`;
}

/**
 * Sets how many threads each native product uses: 1 (the default) when trial workers already
 * fill the cores, `'all'` for a single training run that should use the whole machine.
 */
export function setNativeThreads(threads: number | 'all'): number {
  const addon = requireNativeGemm('set native GEMM threads');
  const count = threads === 'all' ? availableParallelism() : threads;
  if (!Number.isInteger(count) || count < 1)
    throw new TradelabError('INVALID_ARGUMENT', `native GEMM threads must be ≥ 1, got ${threads}`, {
      hint: "pass a positive integer, or 'all' for every core",
    });
  addon.setThreads(count);
  return addon.threads() ?? count;
}

import { availableParallelism, loadavg } from 'node:os';
import { listBackends, useBackend } from '../compute/backends.js';
import { benchGpuGemm, GPU_GEMM_REFERENCE } from './gpu-gemm-bench.js';
import type { GemmShape } from './gemm-shape.js';
import { fastestKernel, writeGemmChoice, type GemmChoice } from '../compute/gemm-choice.js';
import {
  GemmParams,
  loadNativeGemm,
  loadSystemBlas,
  nativeGemmStatus,
  type NativeGemmAddon,
} from '../compute/native-gemm.js';
import { tfjsMatMulCall } from '../compute/tfjs-matmul-call.js';
import { setWasmMatMulPath, wasmMatMulPath } from '../compute/wasm-matmul.js';
import { median, type BenchResult } from './bench-result.js';

export type { GemmShape } from './gemm-shape.js';

/*
 * GFLOP/s of single-precision matrix products per kernel and shape: tradelab's own kernels (each
 * one the CPU runs), the system BLAS when there is one, and XNNPACK through the wasm backend (what
 * runs when the native GEMM is not built), beside the core's measured FMA peak. The shapes are a
 * PPO update's on FinRL_Crypto's networks (state 81, two hidden layers of 512, 10 actions,
 * minibatch 2048): forward, both backward products, the policy head's three, a minibatch of 256,
 * a rollout step and one evaluated observation. Where the system BLAS ran in the same run, each of
 * tradelab's rows says its ratio to it on that shape, and the BLAS's rate is its TARGET.
 */

/** The PPO shapes (see the file header). */
export const PPO_GEMM_SHAPES: readonly GemmShape[] = [
  { m: 2048, n: 512, k: 81, transA: false, transB: false, role: 'forward, input layer' },
  { m: 2048, n: 512, k: 512, transA: false, transB: false, role: 'forward, hidden layer' },
  { m: 512, n: 512, k: 2048, transA: true, transB: false, role: 'weight gradient, hidden layer' },
  { m: 81, n: 512, k: 2048, transA: true, transB: false, role: 'weight gradient, input layer' },
  { m: 2048, n: 512, k: 512, transA: false, transB: true, role: 'input gradient, hidden layer' },
  { m: 2048, n: 10, k: 512, transA: false, transB: false, role: 'forward, 10-action head' },
  { m: 512, n: 10, k: 2048, transA: true, transB: false, role: 'weight gradient, head' },
  { m: 2048, n: 512, k: 10, transA: false, transB: true, role: 'input gradient, head' },
  { m: 256, n: 512, k: 512, transA: false, transB: false, role: 'forward, minibatch 256' },
  { m: 64, n: 512, k: 512, transA: false, transB: false, role: 'rollout step, 64 envs' },
  { m: 1, n: 512, k: 512, transA: false, transB: false, role: 'one evaluated observation' },
];

/** Options for {@link benchGemm}. */
export interface GemmBenchOptions {
  /** Products to time. Default {@link PPO_GEMM_SHAPES}. */
  shapes?: readonly GemmShape[];
  /** Threads per product. Default 1. */
  threads?: number;
  /** Runs per figure; the median is reported. Default 5. */
  repeat?: number;
  /** Seconds one run aims at (products are repeated to fill it). Default 0.05. */
  runSeconds?: number;
  /** Also time XNNPACK through the wasm backend. Default true. */
  xnnpack?: boolean;
  /** Record which of tradelab's kernels and the system BLAS was faster, for `matmul auto`. */
  saveChoice?: boolean;
  /** Time only tradelab's best kernel and the system BLAS, no peak. Default false. */
  onlyBest?: boolean;
  /**
   * Time what the choice needs, quickly: each of tradelab's kernels but the portable one (when
   * the CPU has another) and the system BLAS; no peak, XNNPACK or GPU rows. Default false.
   */
  forChoice?: boolean;
  /**
   * Also time the GPU engine's GEMM on these shapes and 4096×512×512: `auto` (default) where Dawn
   * finds a hardware adapter, `always` on any (a software one computes on the CPU), `never`.
   */
  gpu?: 'auto' | 'always' | 'never';
}

const flopsOf = (s: GemmShape): number => 2 * s.m * s.n * s.k;
const shapeName = (s: GemmShape): string =>
  `${s.m}×${s.n}×${s.k} ${s.transA ? 'T' : 'N'}${s.transB ? 'T' : 'N'} (${s.role})`;

/** Seconds per call of `fn`, timed over runs of about `runSeconds` each. */
function timeCalls(fn: () => void, repeat: number, runSeconds: number): number[] {
  fn(); // warm-up: packing buffers, pages, caches
  const started = performance.now();
  fn();
  const once = Math.max((performance.now() - started) / 1000, 1e-7);
  const calls = Math.max(1, Math.round(runSeconds / once));
  const runs: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    for (let c = 0; c < calls; c++) fn();
    runs.push((performance.now() - t0) / 1000 / calls);
  }
  return runs;
}

/** One product on the addon's current kernel, over a heap holding A, B and C. */
function nativeProduct(addon: NativeGemmAddon, shape: GemmShape): () => void {
  const a = shape.m * shape.k;
  const b = shape.k * shape.n;
  const heap = new Float32Array(a + b + shape.m * shape.n);
  for (let i = 0; i < a + b; i++) heap[i] = ((i * 7919) % 1000) / 1000 - 0.5;
  const params = new GemmParams().set({
    batch: 1,
    transA: shape.transA ? 1 : 0,
    transB: shape.transB ? 1 : 0,
    m: shape.m,
    n: shape.n,
    k: shape.k,
    aOffset: 0,
    aStride: 0,
    lda: 0,
    bOffset: a,
    bStride: 0,
    ldb: 0,
    cOffset: a + b,
    cStride: 0,
    ldc: 0,
    biasOffset: -1,
    biasSize: 0,
    activation: 0,
    accumulate: 0,
  });
  return () => {
    addon.gemm(heap, params);
  };
}

/** The kernel's register-only FMA loop on one thread (the core's peak): its flops and run seconds. */
function fmaPeak(
  addon: NativeGemmAddon,
  kernel: string,
  repeat: number,
): { flops: number; runs: number[] } {
  const iterations = 2_000_000;
  let flops = 0;
  const runs = Array.from({ length: repeat }, () => {
    const started = performance.now();
    flops = addon.fmaPeak(kernel, iterations);
    return (performance.now() - started) / 1000;
  });
  return { flops, runs };
}

/** Benchmarks matrix products per kernel and shape; see the file header. */
export async function benchGemm(options: GemmBenchOptions = {}): Promise<BenchResult[]> {
  const shapes = options.shapes ?? PPO_GEMM_SHAPES;
  const threads = options.threads ?? 1;
  const repeat = options.repeat ?? 5;
  const runSeconds = options.runSeconds ?? 0.05;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const results: BenchResult[] = [];
  const result = (name: string, flops: number, runs: number[], peak?: number): BenchResult => {
    const seconds = median(runs);
    const rate = flops / seconds / 1e9;
    return {
      bench: 'gemm',
      name,
      items: flops,
      seconds,
      runs,
      rate,
      unit: 'GFLOP/s',
      ...(peak === undefined ? {} : { peakShare: rate / peak }),
      machine,
    };
  };

  const addon = loadNativeGemm();
  const kernels: string[] = [];
  /** Each kernel's rate per shape, in shape order ('blas' for the system BLAS). */
  const rates = new Map<string, number[]>();
  let peak: number | undefined;
  if (addon !== undefined) {
    const before = addon.kernel();
    const best = addon.kernels()[0] ?? 'generic';
    const fast = addon.kernels().filter((k, i) => i === 0 || k !== 'generic');
    const quick = options.onlyBest === true || options.forChoice === true;
    kernels.push(
      ...(options.onlyBest === true ? [best] : options.forChoice === true ? fast : addon.kernels()),
    );
    if (loadSystemBlas().available) kernels.push('blas');
    for (const kernel of quick ? [] : addon.kernels()) {
      // One thread's loop; with more threads the peak is that many cores' worth.
      const { flops, runs } = fmaPeak(addon, kernel, repeat);
      const row = result(
        `FMA peak, ${kernel}, register-only loop${threads > 1 ? `, × ${threads} cores` : ''}`,
        flops * threads,
        runs,
      );
      if (kernel === best) peak = row.rate;
      results.push(row);
    }
    addon.setThreads(threads);
    const blasLabel = nativeGemmStatus().blas?.vendor ?? 'BLAS';
    try {
      for (const shape of shapes) {
        const rows = new Map<string, BenchResult>();
        for (const kernel of kernels) {
          addon.useKernel(kernel);
          const runs = timeCalls(nativeProduct(addon, shape), repeat, runSeconds);
          const label = kernel === 'blas' ? blasLabel : kernel;
          rows.set(kernel, result(`${shapeName(shape)}: ${label}`, flopsOf(shape), runs, peak));
        }
        const blasRow = rows.get('blas');
        for (const [kernel, row] of rows) {
          rates.set(kernel, [...(rates.get(kernel) ?? []), row.rate]);
          if (blasRow !== undefined && kernel !== 'blas')
            Object.assign(row, {
              name: `${row.name}, ${(row.rate / blasRow.rate).toFixed(2)}× ${blasLabel}`,
              target: blasRow.rate,
              targetSource: blasTarget(blasLabel, threads),
            });
          results.push(row);
        }
      }
    } finally {
      addon.useKernel(before);
      addon.setThreads(1);
    }
  }

  if (options.xnnpack !== false && options.forChoice !== true) {
    await useBackend('wasm');
    const restore = wasmMatMulPath();
    setWasmMatMulPath('xnnpack');
    try {
      for (const shape of shapes) {
        const call = tfjsMatMulCall(shape.m, shape.n, shape.k, shape.transA, shape.transB);
        const runs = timeCalls(
          () => {
            call.run();
          },
          repeat,
          runSeconds,
        );
        results.push(result(`${shapeName(shape)}: XNNPACK (wasm)`, flopsOf(shape), runs, peak));
        call.dispose();
      }
    } finally {
      setWasmMatMulPath(restore);
    }
  }

  const gpu = options.gpu ?? 'auto';
  if (gpu !== 'never' && options.onlyBest !== true && options.forChoice !== true) {
    const adapter = (await listBackends()).find((b) => b.name === 'gpu')?.webgpuAdapter;
    if (adapter !== undefined && (gpu === 'always' || !adapter.software))
      results.push(...(await benchGpuGemm({ shapes: [...shapes, GPU_GEMM_REFERENCE], repeat })));
  }

  if (options.saveChoice === true && addon !== undefined) saveChoice(rates, kernels);
  return results;
}

/**
 * What the TARGET of tradelab's rows is: the system BLAS on the same shape in the same run, and
 * which of its kernels ran (a user's OPENBLAS_CORETYPE may not be this CPU's best).
 */
function blasTarget(vendor: string, threads: number): string {
  const blas = loadSystemBlas();
  const kernels = blas.corename === undefined ? '' : `, its ${blas.corename} kernels`;
  const coretype =
    blas.coretype === undefined
      ? ''
      : blas.coretype.source === 'user'
        ? ` (OPENBLAS_CORETYPE=${blas.coretype.value} set in the environment: unset it for this CPU's own)`
        : ' (chosen for this CPU from /proc/cpuinfo)';
  return `${vendor}'s rate on the same shape in this run${kernels}${coretype}, ${threads} thread${threads === 1 ? '' : 's'}: tradelab's kernels at 1.0× or more`;
}

/**
 * Records which kernel to run and which side was faster over the shapes (the median of per-shape
 * rates): tradelab's fastest kernel (see {@link fastestKernel}), and the system BLAS only when it
 * beats that by more than 5%, since ours needs nothing installed and a near tie is noise.
 */
function saveChoice(rates: ReadonlyMap<string, number[]>, kernels: readonly string[]): void {
  const own = kernels.filter((k) => k !== 'blas');
  const medians = new Map(own.map((k) => [k, median(rates.get(k) ?? [])]));
  const kernel = fastestKernel(medians, own);
  if (kernel === undefined) return;
  const ownRate = medians.get(kernel) ?? 0;
  const blas = loadSystemBlas();
  const blasRate = blas.available ? median(rates.get('blas') ?? []) : undefined;
  const choice: GemmChoice = {
    choice: blasRate !== undefined && blasRate > ownRate * 1.05 ? 'blas' : 'native',
    kernel,
    ...(blas.available ? { blas: { vendor: blas.vendor ?? 'BLAS', path: blas.path ?? '' } } : {}),
    gflops: {
      native: ownRate,
      ...(blasRate === undefined ? {} : { blas: blasRate }),
      kernels: Object.fromEntries(medians),
    },
    measuredAt: new Date().toISOString(),
  };
  writeGemmChoice(choice);
}

import { availableParallelism, loadavg } from 'node:os';
import { Rng } from '../core/random.js';
import { openGpuDevice, GpuPassTimer, type GpuDevice, type GpuFeature } from '../gpu/index.js';
import {
  dispatchOf,
  encodeDispatches,
  runDispatches,
  storageOf,
  uniformOf,
  type Dispatch,
} from '../gpu/dispatch.js';
import type { KernelSpec } from '../gpu/pipeline-cache.js';
import { gemmKernel, gemmUniform, gemmWorkgroups } from '../gpu/kernels/gemm.js';
import {
  f32ToF16Kernel,
  f32ToF16Uniform,
  f32ToF16Workgroups,
  gemmF16Kernel,
  gemmF16Workgroups,
} from '../gpu/kernels/gemm-f16.js';
import {
  pickSubgroupMatrixConfig,
  subgroupMatrixConfigs,
  subgroupMatrixGemmKernel,
  subgroupMatrixGemmWorkgroups,
} from '../gpu/kernels/gemm-subgroup-matrix.js';
import { median, type BenchResult } from './bench-result.js';
import type { GemmShape } from './gemm-shape.js';

/*
 * GFLOP/s of the GPU engine's GEMMs per shape: a run is `calls` products in one compute pass, timed
 * by the device's timestamps (the kernels' own time) where it has them, else by the wall clock from
 * submit to done. The figure that the issue sets a target for is 4096×512×512.
 *
 * Beside f32 (the engine's default, which keeps a resumed run exact) it times the lower-precision
 * paths the adapter offers: f16 storage with f32 accumulation (`shader-f16`) and a GEMM on subgroup
 * matrices (tensor cores; `chromium-experimental-subgroup-matrix`), each with its speed over the f32
 * row of the same shape in the same run. A lower-precision row is a speed claim only once its
 * product is right: after timing, its C is read back and compared with the f32 kernel's C on the
 * same inputs, and a row beyond f16's tolerance (or whose kernel failed) reports no rate, only why.
 * f32 runs first for every shape, so a path that fails or loses the device leaves those rows.
 */

/** The shapes of a PPO update plus the engine's reference product. */
export const GPU_GEMM_REFERENCE: GemmShape = {
  m: 4096,
  n: 512,
  k: 512,
  transA: false,
  transB: false,
  role: 'reference: a 4096-row minibatch through a 512-wide layer',
};

/** Options of {@link benchGpuGemm}. */
export interface GpuGemmBenchOptions {
  shapes: readonly GemmShape[];
  /** Runs per figure; the median is reported. Default 5. */
  repeat?: number;
  /** Products per run. Default 20. */
  calls?: number;
  /** Features not to use even where the adapter offers them (to see a path absent). Default none. */
  withoutFeatures?: readonly GpuFeature[];
}

/** Which of the engine's GEMMs a row measured. */
export type GpuGemmPath = 'f32' | 'f16-storage' | 'subgroup-matrix';

/** What a GPU GEMM row says beside its rate. */
export interface GpuGemmDetail {
  path: GpuGemmPath;
  /** e.g. "f16 storage, f32 accumulate". */
  precision: string;
  /** This row's rate over the f32 row's of the same shape, both measured in this run; 0 when not reported. */
  speedupOverF32: number;
  /** max |C − C_f32| / max |C_f32| on the same inputs (0 for the f32 row itself). */
  maxError: number;
  /** The largest `maxError` accepted (see {@link f16GemmTolerance}). */
  tolerance: number;
  /** False when the product was wrong or the kernel failed: the row then reports no rate. */
  verified: boolean;
  /** Why the row reports no rate. */
  refusal?: string;
  /** Whether this is the fastest verified path for its shape in this run. */
  fastest: boolean;
}

/** A row of {@link benchGpuGemm}. */
export interface GpuGemmResult extends BenchResult {
  gpuGemm: GpuGemmDetail;
}

/** A GEMM the bench can time: its kernel for a shape, and whether it reads f16 copies. */
interface GemmPath {
  path: GpuGemmPath;
  precision: string;
  accumulate: 'f32' | 'f16';
  operands: 'f32' | 'f16';
  /** The kernel and its workgroups for `shape`; throws where the path cannot run. */
  kernel(shape: GemmShape): { spec: KernelSpec; workgroups: [number, number] };
}

/**
 * The largest max |C − C_f32| / max |C_f32| accepted from f16 operands. Each operand rounded to f16
 * is off by up to 2⁻¹⁰ (WGSL may round either way); those errors add up over k with random signs,
 * as C itself does, so against max |C| they stay near 2⁻¹¹ whatever k: 2⁻⁸ leaves eight times that,
 * and a wrong kernel (a missed block, a transposed fragment) is off by tenths or more. An f16
 * accumulator also rounds its running sum at each of the k/16 steps: √(k/16) times more room.
 */
export function f16GemmTolerance(accumulate: 'f32' | 'f16', k: number): number {
  const base = 2 ** -8;
  return accumulate === 'f32' ? base : base * Math.max(1, Math.sqrt(k / 16));
}

/** max |got − want| / max |want| (NaN if any value of `got` is not a number). */
export function maxErrorOfMaxC(got: Float32Array, want: Float32Array): number {
  if (got.length !== want.length)
    throw new Error(`maxErrorOfMaxC: ${got.length} values against ${want.length}`);
  let error = 0;
  let largest = 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as number;
    const difference = Math.abs((got[i] as number) - w);
    if (Number.isNaN(difference)) return Number.NaN;
    error = Math.max(error, difference);
    largest = Math.max(largest, Math.abs(w));
  }
  return largest === 0 ? error : error / largest;
}

/** One row per shape and path: the engine's GEMMs on this machine's adapter. */
export async function benchGpuGemm(options: GpuGemmBenchOptions): Promise<GpuGemmResult[]> {
  const gpu = await openGpuDevice(
    options.withoutFeatures === undefined ? {} : { withoutFeatures: options.withoutFeatures },
  );
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const repeat = options.repeat ?? 5;
  const calls = options.calls ?? 20;
  const timer = GpuPassTimer.create(gpu);
  const adapter = gpu.adapter.description || gpu.adapter.device;
  const clock = timer === undefined ? 'wall clock' : 'GPU timestamps';
  const shapeName = (s: GemmShape): string =>
    `${s.m}×${s.n}×${s.k} ${s.transA ? 'T' : 'N'}${s.transB ? 'T' : 'N'}`;
  const lower = lowerPrecisionPaths(gpu);
  const rows: GpuGemmResult[][] = options.shapes.map(() => []);
  const row = (
    shape: GemmShape,
    path: GemmPath,
    runs: number[],
    detail: Omit<GpuGemmDetail, 'path' | 'precision' | 'speedupOverF32' | 'fastest'>,
  ): GpuGemmResult => {
    const flops = 2 * shape.m * shape.n * shape.k;
    const seconds = runs.length === 0 ? 0 : median(runs);
    return {
      bench: 'gemm',
      name: `gpu engine ${path.precision} on ${adapter}, ${shapeName(shape)} (${shape.role}; ${clock})`,
      items: flops,
      seconds,
      runs,
      rate: seconds === 0 ? 0 : flops / seconds / 1e9,
      unit: 'GFLOP/s',
      machine,
      gpuGemm: {
        path: path.path,
        precision: path.precision,
        speedupOverF32: 0,
        fastest: false,
        ...detail,
      },
    };
  };
  try {
    // f32 for every shape first; its C is each other path's reference.
    const reference: Float32Array[] = [];
    for (const [index, shape] of options.shapes.entries()) {
      const { runs, c } = await measure(
        gpu,
        timer,
        F32_PATH,
        shape,
        repeat,
        calls,
        lower.length > 0,
      );
      if (c !== undefined) reference[index] = c;
      rows[index]?.push(row(shape, F32_PATH, runs, { maxError: 0, tolerance: 0, verified: true }));
    }
    for (const path of lower)
      for (const [index, shape] of options.shapes.entries()) {
        const tolerance = f16GemmTolerance(path.accumulate, shape.k);
        let measured: GpuGemmResult;
        try {
          const { runs, c } = await measure(gpu, timer, path, shape, repeat, calls, true);
          const want = reference[index];
          if (c === undefined || want === undefined) throw new Error('no product was read back');
          const maxError = maxErrorOfMaxC(c, want);
          const verified = maxError <= tolerance;
          measured = row(shape, path, runs, {
            maxError,
            tolerance,
            verified,
            ...(verified
              ? {}
              : {
                  refusal: `max error ${maxError.toExponential(1)} of max |C|, beyond ${tolerance.toExponential(1)}`,
                }),
          });
        } catch (error) {
          measured = row(shape, path, [], {
            maxError: Number.NaN,
            tolerance,
            verified: false,
            refusal: (error as Error).message,
          });
        }
        rows[index]?.push(measured);
      }
  } finally {
    timer?.destroy();
    gpu.destroy();
  }
  return rows.flatMap(compareWithF32);
}

/**
 * One shape's rows as reported: a row not verified loses its runs and rate (a wrong product makes
 * no speed claim); the others get their speed over the f32 row, the fastest is marked, and the
 * names of the lower-precision rows say both, or why there is no rate.
 */
export function compareWithF32(shapeRows: readonly GpuGemmResult[]): GpuGemmResult[] {
  const reported = shapeRows.map((r) =>
    r.gpuGemm.verified ? r : { ...r, runs: [], seconds: 0, rate: 0 },
  );
  const f32 = reported.find((r) => r.gpuGemm.path === 'f32' && r.gpuGemm.verified);
  const fastest = reported
    .filter((r) => r.gpuGemm.verified)
    .reduce<GpuGemmResult | undefined>(
      (best, r) => (best === undefined || r.rate > best.rate ? r : best),
      undefined,
    );
  return reported.map((r) => {
    const verified = r.gpuGemm.verified;
    const speedup = verified && f32 !== undefined && f32.rate > 0 ? r.rate / f32.rate : 0;
    const detail = { ...r.gpuGemm, speedupOverF32: speedup, fastest: r === fastest };
    // The f32 row's name stays as it always was; the others say what they were measured against.
    const said = verified
      ? `; ${speedup.toFixed(2)}× f32${detail.fastest ? ', fastest' : ''}; max error ${r.gpuGemm.maxError.toExponential(1)} of max |C|`
      : `; not reported: ${firstLine(r.gpuGemm.refusal ?? 'not verified')}`;
    const name = r.gpuGemm.path === 'f32' ? r.name : `${r.name.slice(0, -1)}${said})`;
    return { ...r, name, gpuGemm: detail };
  });
}

/** The first line of a message, cut to fit a table row. */
function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

const F32_PATH: GemmPath = {
  path: 'f32',
  precision: 'f32',
  accumulate: 'f32',
  operands: 'f32',
  kernel: (shape) => {
    const variant = {
      transposeA: shape.transA,
      transposeB: shape.transB,
      epilogue: 'none' as const,
    };
    return { spec: gemmKernel(variant), workgroups: gemmWorkgroups(variant, shape.m, shape.n) };
  },
};

/** The lower-precision paths `gpu` offers, in the order they are timed. */
function lowerPrecisionPaths(gpu: GpuDevice): GemmPath[] {
  if (!gpu.has('shader-f16')) return [];
  const paths: GemmPath[] = [
    {
      path: 'f16-storage',
      precision: 'f16 storage, f32 accumulate',
      accumulate: 'f32',
      operands: 'f16',
      kernel: (shape) => ({
        spec: gemmF16Kernel({ transposeA: shape.transA, transposeB: shape.transB }),
        workgroups: gemmF16Workgroups(shape.m, shape.n),
      }),
    },
  ];
  if (!gpu.has('chromium-experimental-subgroup-matrix') || !gpu.has('subgroups')) return paths;
  const configs = subgroupMatrixConfigs(gpu);
  const config = pickSubgroupMatrixConfig(configs);
  const accumulate = config?.resultComponentType === 'f16' ? 'f16' : 'f32';
  const limits = gpu.device.limits;
  paths.push({
    path: 'subgroup-matrix',
    precision:
      config === undefined
        ? 'subgroup-matrix f16'
        : `subgroup-matrix f16 ${config.M}×${config.N}×${config.K}, ${accumulate} accumulate`,
    accumulate,
    operands: 'f16',
    kernel: (shape) => {
      if (config === undefined)
        throw new Error(
          `none of the adapter's subgroup matrix configs has f16 operands and sides of 8 or 16: ${JSON.stringify(configs)}`,
        );
      const subgroupMaxSize = gpu.device.adapterInfo.subgroupMaxSize ?? 0;
      if (subgroupMaxSize === 0) throw new Error('the adapter reports no subgroupMaxSize');
      return {
        spec: subgroupMatrixGemmKernel({
          transposeA: shape.transA,
          transposeB: shape.transB,
          config,
          subgroupMaxSize,
          maxThreads: Math.min(
            limits.maxComputeInvocationsPerWorkgroup,
            limits.maxComputeWorkgroupSizeX,
          ),
        }),
        workgroups: subgroupMatrixGemmWorkgroups(shape.m, shape.n),
      };
    },
  });
  return paths;
}

/**
 * Seconds per product of `shape` on `path`, one figure per run, and C read back after the runs
 * when `readBack`. The operands are the same for every path: f16 paths read copies made on the
 * device by the conversion kernel (untimed, as a program makes them once).
 */
async function measure(
  gpu: GpuDevice,
  timer: GpuPassTimer | undefined,
  path: GemmPath,
  shape: GemmShape,
  repeat: number,
  calls: number,
  readBack: boolean,
): Promise<{ runs: number[]; c: Float32Array | undefined }> {
  const rng = new Rng(shape.m + shape.n + shape.k);
  const values = (n: number): Float32Array =>
    Float32Array.from({ length: n }, () => rng.uniform() - 0.5);
  const buffers: GPUBuffer[] = [];
  const keep = (buffer: GPUBuffer): GPUBuffer => {
    buffers.push(buffer);
    return buffer;
  };
  try {
    const { spec, workgroups } = path.kernel(shape);
    const kernel = await gpu.pipelines.kernel(spec);
    let a = keep(storageOf(gpu, values(shape.m * shape.k), 'a'));
    let b = keep(storageOf(gpu, values(shape.k * shape.n), 'b'));
    if (path.operands === 'f16') {
      a = keep(await halfCopy(gpu, a, shape.m * shape.k, 'a f16', keep));
      b = keep(await halfCopy(gpu, b, shape.k * shape.n, 'b f16', keep));
    }
    const uniform = keep(
      uniformOf(
        gpu,
        gemmUniform({
          m: shape.m,
          n: shape.n,
          k: shape.k,
          lda: shape.transA ? shape.m : shape.k,
          ldb: shape.transB ? shape.k : shape.n,
          ldc: shape.n,
        }),
        'gemm bench',
      ),
    );
    const c = keep(gpu.storageBuffer(shape.m * shape.n * 4, 'c'));
    const dispatch = dispatchOf(gpu, kernel, [uniform, a, b, c], workgroups);
    const timed = (): Promise<number> => timeRun(gpu, timer, dispatch, calls);
    await timed(); // warm-up
    const runs: number[] = [];
    for (let r = 0; r < repeat; r++) runs.push(await timed());
    gpu.check();
    const product = readBack ? await gpu.readFloats(c, 0, shape.m * shape.n) : undefined;
    return { runs, c: product };
  } finally {
    for (const buffer of buffers) buffer.destroy();
  }
}

/** An f16 copy of the `count` f32 values of `source`, made on the device. */
async function halfCopy(
  gpu: GpuDevice,
  source: GPUBuffer,
  count: number,
  label: string,
  keep: (buffer: GPUBuffer) => GPUBuffer,
): Promise<GPUBuffer> {
  const kernel = await gpu.pipelines.kernel(f32ToF16Kernel());
  const half = gpu.storageBuffer(count * 2, label);
  const uniform = keep(uniformOf(gpu, f32ToF16Uniform({ count }), `${label} params`));
  runDispatches(gpu, [dispatchOf(gpu, kernel, [uniform, source, half], f32ToF16Workgroups(count))]);
  return half;
}

/** Seconds per product of one run of `calls` products in one pass. */
async function timeRun(
  gpu: GpuDevice,
  timer: GpuPassTimer | undefined,
  dispatch: Dispatch,
  calls: number,
): Promise<number> {
  const started = performance.now();
  const encoder = gpu.device.createCommandEncoder();
  const pass = encoder.beginComputePass(
    timer === undefined ? {} : { timestampWrites: timer.timestampWrites },
  );
  encodeDispatches(
    pass,
    Array.from({ length: calls }, () => dispatch),
  );
  pass.end();
  timer?.resolve(encoder);
  gpu.submit(encoder, calls);
  await gpu.device.queue.onSubmittedWorkDone();
  const wall = (performance.now() - started) / 1000;
  return (timer === undefined ? wall : await timer.seconds()) / calls;
}

import { availableParallelism, loadavg } from 'node:os';
import { Rng } from '../core/random.js';
import { openGpuDevice, GpuPassTimer, type GpuDevice } from '../gpu/index.js';
import { dispatchOf, encodeDispatches, storageOf, uniformOf } from '../gpu/dispatch.js';
import { gemmKernel, gemmUniform, gemmWorkgroups } from '../gpu/kernels/gemm.js';
import { median, type BenchResult } from './bench-result.js';
import type { GemmShape } from './gemm-shape.js';

/*
 * GFLOP/s of the GPU engine's tiled GEMM per shape: a run is `calls` products in one compute pass,
 * timed by the device's timestamps (the kernels' own time) where it has them, else by the wall
 * clock from submit to done. The figure that the issue sets a target for is 4096×512×512.
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
}

/** One row per shape: the engine's GEMM on this machine's adapter. */
export async function benchGpuGemm(options: GpuGemmBenchOptions): Promise<BenchResult[]> {
  const gpu = await openGpuDevice();
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const timer = GpuPassTimer.create(gpu);
  const results: BenchResult[] = [];
  try {
    for (const shape of options.shapes) {
      const runs = await timeShape(gpu, timer, shape, options.repeat ?? 5, options.calls ?? 20);
      const seconds = median(runs);
      const flops = 2 * shape.m * shape.n * shape.k;
      results.push({
        bench: 'gemm',
        name: `gpu engine f32 on ${gpu.adapter.description || gpu.adapter.device}, ${shape.m}×${shape.n}×${shape.k} ${shape.transA ? 'T' : 'N'}${shape.transB ? 'T' : 'N'} (${shape.role}; ${timer === undefined ? 'wall clock' : 'GPU timestamps'})`,
        items: flops,
        seconds,
        runs,
        rate: flops / seconds / 1e9,
        unit: 'GFLOP/s',
        machine,
      });
    }
  } finally {
    timer?.destroy();
    gpu.destroy();
  }
  return results;
}

/** Seconds per product of `shape`, one figure per run. */
async function timeShape(
  gpu: GpuDevice,
  timer: GpuPassTimer | undefined,
  shape: GemmShape,
  repeat: number,
  calls: number,
): Promise<number[]> {
  const rng = new Rng(shape.m + shape.n + shape.k);
  const values = (n: number): Float32Array =>
    Float32Array.from({ length: n }, () => rng.uniform() - 0.5);
  const variant = { transposeA: shape.transA, transposeB: shape.transB, epilogue: 'none' as const };
  const kernel = await gpu.pipelines.kernel(gemmKernel(variant));
  const buffers = [
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
    storageOf(gpu, values(shape.m * shape.k), 'a'),
    storageOf(gpu, values(shape.k * shape.n), 'b'),
    gpu.storageBuffer(shape.m * shape.n * 4, 'c'),
  ];
  const dispatch = dispatchOf(gpu, kernel, buffers, gemmWorkgroups(variant, shape.m, shape.n));
  const run = async (): Promise<number> => {
    const started = performance.now();
    const encoder = gpu.device.createCommandEncoder();
    const pass = encoder.beginComputePass(
      timer === undefined ? {} : { timestampWrites: timer.timestampWrites },
    );
    const list = Array.from({ length: calls }, () => dispatch);
    encodeDispatches(pass, list);
    pass.end();
    timer?.resolve(encoder);
    gpu.submit(encoder, calls);
    await gpu.device.queue.onSubmittedWorkDone();
    const wall = (performance.now() - started) / 1000;
    return (timer === undefined ? wall : await timer.seconds()) / calls;
  };
  await run(); // warm-up
  const runs: number[] = [];
  for (let r = 0; r < repeat; r++) runs.push(await run());
  gpu.check();
  for (const buffer of buffers) buffer.destroy();
  return runs;
}

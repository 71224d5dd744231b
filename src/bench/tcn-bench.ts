import { availableParallelism, loadavg } from 'node:os';
import { useBackend, type BackendName } from '../compute/backends.js';
import { nativeConvActive } from '../compute/index.js';
import * as tf from '../compute/tfjs.js';
import { Rng } from '../core/index.js';
import { startGpuCallMeter, type GpuCallMeter, type KernelTime } from '../gpu/index.js';
import { GpuTcnTrainer, Tcn, TcnTrainer, type TcnBatch } from '../models/index.js';
import { tcnEngineStepBytes, tcnStepBytes } from '../profiles/index.js';
import { median, type BenchResult, type BenchStep, type TcnBenchDetail } from './bench-result.js';
import { describeReferenceBlas, runPytorchReference } from './pytorch-reference.js';

/*
 * `tradelab bench tcn`: TCN training steps (forward, MSE, backward, gradient clip, Adam) on random
 * chunks, in it/s, chunks/s and timesteps/s, with and without gradient checkpointing; the memory a
 * step holds (tfjs's peak tensor bytes during the step, above what was alive before it) beside the
 * planner's estimate; and where a step's time goes. The reference is bench/pytorch-tcn.py on the
 * same shapes. On `gpu` the steps run on tradelab's engine: its memory is what its program
 * allocates on the device, the split comes from the device's timestamps per kernel, and the row
 * counts the dispatches, submits and bytes of a step.
 */

/** Options of {@link benchTcn}. */
export interface TcnBenchOptions {
  layers?: number;
  hidden?: number;
  kernel?: number;
  /** Bars per chunk. */
  seq?: number;
  /** Chunks per step. */
  batch?: number;
  features?: number;
  dropout?: number;
  /** Chunk counts to sweep (each one a row per checkpointing mode); default [batch]. */
  sweep?: readonly number[];
  /** Checkpointing modes to measure. Default both. */
  checkpoint?: 'both' | 'on' | 'off';
  /** Steps per run. Default 5. */
  steps?: number;
  /** Runs; the median is reported. Default 3. */
  repeat?: number;
  backend?: BackendName;
  /**
   * PyTorch's step on the first chunk count's shapes without checkpointing, one thread, measured
   * in this run (bench/pytorch-tcn.py) as the target's reference: 'auto' (default) on the CPU when
   * python3 has PyTorch, 'never'.
   */
  reference?: 'auto' | 'never';
  /** Progress: before each shape, and at the end. */
  onStep?: BenchStep;
}

/** The issue's target: PyTorch's TCN step on the CPU, measured in the same run, × this. */
const TARGET_OVER_PYTORCH = 1.2;

/** Measures TCN training steps; one result per chunk count and checkpointing mode. */
export async function benchTcn(options: TcnBenchOptions = {}): Promise<BenchResult[]> {
  const layers = options.layers ?? 6;
  const hidden = options.hidden ?? 64;
  const kernel = options.kernel ?? 3;
  const seq = options.seq ?? 512;
  const batch = options.batch ?? 32;
  const features = options.features ?? 8;
  const steps = options.steps ?? 5;
  const repeat = options.repeat ?? 3;
  const active = await useBackend(options.backend ?? 'wasm', { nativeThreads: 1 });
  const gpu = active.gpu;
  const meter: GpuCallMeter | undefined = gpu === undefined ? undefined : await startGpuCallMeter();
  const sweep = options.sweep ?? [batch];
  const modes =
    options.checkpoint === 'on' ? [true] : options.checkpoint === 'off' ? [false] : [false, true];
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const results: BenchResult[] = [];
  // PyTorch's CPU step is the CPU backend's reference; a GPU's is the bundle's (PyTorch CUDA).
  const withReference =
    options.reference !== 'never' && active.name === 'wasm' && modes.includes(false);
  const total = sweep.length * modes.length + (withReference ? 1 : 0);
  try {
    for (const chunks of sweep)
      for (const checkpoint of modes) {
        options.onStep?.(
          `${chunks} chunks, checkpointing ${checkpoint ? 'on' : 'off'}`,
          results.length,
          total,
        );
        const net = new Tcn(
          {
            inputs: features,
            hidden,
            layers,
            kernel,
            ...(options.dropout === undefined ? {} : { dropout: options.dropout }),
          },
          `bench-${chunks}-${String(checkpoint)}`,
        );
        const trainer = new TcnTrainer(net, { learningRate: 1e-3, checkpoint });
        const rng = new Rng(1, chunks);
        const micro: TcnBatch = {
          x: Float32Array.from({ length: chunks * seq * features }, () => rng.normal()),
          y: Float32Array.from({ length: chunks }, () => rng.normal()),
          rows: chunks,
        };
        const engine =
          gpu === undefined
            ? undefined
            : await GpuTcnTrainer.create(gpu, net, trainer, seq, chunks);
        let step = 0;
        const run = async (): Promise<void> => {
          if (engine === undefined) trainer.step([micro], step++);
          else await engine.step([micro], step++);
        };
        await run();
        await run();
        meter?.take();
        const runs: number[] = [];
        for (let r = 0; r < repeat; r++) {
          const started = performance.now();
          for (let s = 0; s < steps; s++) await run();
          runs.push((performance.now() - started) / 1000 / steps);
        }
        const counted = meter?.take();
        const seconds = median(runs);
        const params = net.variables.reduce((n, v) => n + v.size, 0);
        const shape = { inputs: features, hidden, layers, kernel, chunkLen: seq, checkpoint };
        const { kernels, ...measured } =
          engine === undefined
            ? await measureCpuStep(trainer, micro, step++, seconds)
            : await measureEngineStep(engine, micro, step++, seconds, params);
        const detail: TcnBenchDetail = {
          chunks,
          seq,
          checkpoint,
          itPerSecond: 1 / seconds,
          timestepsPerSecond: (chunks * seq) / seconds,
          ...measured,
          plannedBytes:
            engine === undefined ? tcnStepBytes(shape, chunks) : tcnEngineStepBytes(shape, chunks),
          params,
        };
        trainer.dispose();
        net.dispose();
        results.push({
          bench: 'tcn',
          name: `TCN train step, ${chunks} chunks × ${seq} bars, checkpointing ${checkpoint ? 'on' : 'off'} (${layers}×${hidden}, k ${kernel}, ${features} features; ${gpu === undefined ? active.name : `gpu, tradelab's engine on ${gpu.adapter.description || gpu.adapter.device}`}${active.name === 'wasm' ? `, ${nativeConvActive() ? 'native conv' : 'tfjs ops'}` : ''})`,
          items: chunks * seq,
          seconds,
          runs,
          rate: (chunks * seq) / seconds,
          unit: 'timesteps/s',
          machine,
          tcn: detail,
          ...(counted === undefined
            ? {}
            : {
                gpu: {
                  dispatches: counted.dispatches / (repeat * steps),
                  submits: counted.submits / (repeat * steps),
                  uploadBytes: counted.uploadBytes / (repeat * steps),
                  downloadBytes: counted.downloadBytes / (repeat * steps),
                },
              }),
          ...(kernels === undefined ? {} : { gpuKernels: kernels }),
          ...(engine === undefined ? {} : { gpuMemoryBytes: engine.deviceBytes }),
        });
      }
  } finally {
    meter?.stop();
  }
  const first = results.find((r) => r.tcn?.checkpoint === false && r.tcn.chunks === sweep[0]);
  if (withReference && first !== undefined) {
    options.onStep?.('PyTorch reference (bench/pytorch-tcn.py)', results.length, total);
    const chunks = sweep[0] ?? batch;
    const reference = await runPytorchReference(
      'pytorch-tcn.py',
      [
        ...['--layers', String(layers), '--hidden', String(hidden), '--kernel', String(kernel)],
        ...['--seq', String(seq), '--batch', String(chunks), '--features', String(features)],
        ...['--dropout', String(options.dropout ?? 0.1), '--steps', String(steps)],
        ...['--repeat', String(repeat), '--threads', '1'],
      ],
      'timestepsPerSecond',
    );
    if ('unavailable' in reference)
      first.note = `no PyTorch reference in this run (${reference.unavailable}): no ratio is printed`;
    else {
      const stepSeconds = Number(reference.record.secondsPerStep);
      results.push({
        bench: 'tcn',
        name: `TCN train step, ${chunks} chunks × ${seq} bars, checkpointing off (${layers}×${hidden}, k ${kernel}, ${features} features; ${String(reference.record.reference)}) (reference)`,
        items: chunks * seq,
        seconds: stepSeconds,
        runs: Array.isArray(reference.record.runs) ? (reference.record.runs as number[]) : [],
        rate: reference.rate,
        unit: 'timesteps/s',
        machine,
      });
      first.target = TARGET_OVER_PYTORCH * reference.rate;
      first.targetSource = `${TARGET_OVER_PYTORCH}× PyTorch's TCN step measured in this run on these shapes, one thread (${Math.round(reference.rate).toLocaleString('en-US')} timesteps/s, ${describeReferenceBlas(reference.blas)}); ours is ${(first.rate / reference.rate).toFixed(2)}× it`;
    }
  }
  options.onStep?.('done', total, total);
  return results;
}

/** What a step holds and where its time goes, beside the timed runs. */
interface StepMeasurement {
  stepMemoryBytes: number;
  split: TcnBenchDetail['split'];
  /** The engine's GPU time per kernel. */
  kernels?: KernelTime[];
}

/** tfjs's peak bytes during one more step, and its kernels' shares scaled to the median step. */
async function measureCpuStep(
  trainer: TcnTrainer,
  micro: TcnBatch,
  seed: number,
  seconds: number,
): Promise<StepMeasurement> {
  const before = tf.memory().numBytes;
  const profile = await tf.profile(() => {
    trainer.step([micro], seed);
  });
  const convForward = sumKernels(profile.kernels, (n) => n === 'TradelabCausalConv');
  const convBackward = sumKernels(profile.kernels, (n) => n === 'TradelabCausalConvGrad');
  // Custom ops appear twice: as their kernel and as the scope around it.
  const all = sumKernels(profile.kernels, (n) => n !== 'unnamed scope');
  return {
    stepMemoryBytes: Math.max(0, profile.peakBytes - before),
    split: {
      convForward: (convForward / all) * seconds,
      convBackward: (convBackward / all) * seconds,
      other: ((all - convForward - convBackward) / all) * seconds,
    },
  };
}

/**
 * What the engine's program holds above the weights and Adam's two moments (as the plan counts
 * it), and one more step's kernels timed by the device, their shares scaled to the median step.
 */
async function measureEngineStep(
  engine: GpuTcnTrainer,
  micro: TcnBatch,
  seed: number,
  seconds: number,
  params: number,
): Promise<StepMeasurement> {
  const kernels = await engine.profileStep(micro, seed);
  const gpuSeconds = (keep: (label: string) => boolean): number =>
    (kernels ?? []).filter((k) => keep(k.kernel)).reduce((sum, k) => sum + k.seconds, 0);
  const all = gpuSeconds(() => true);
  const convForward = gpuSeconds((k) => k.endsWith('conv forward'));
  const convBackward = gpuSeconds((k) => /conv (input|weight)-gradient$/.test(k));
  return {
    stepMemoryBytes: engine.deviceBytes - 12 * params,
    split:
      all > 0
        ? {
            convForward: (convForward / all) * seconds,
            convBackward: (convBackward / all) * seconds,
            other: ((all - convForward - convBackward) / all) * seconds,
          }
        : { convForward: 0, convBackward: 0, other: seconds },
    ...(kernels === undefined ? {} : { kernels }),
  };
}

/** Milliseconds of the profiled kernels whose name passes `keep`. */
function sumKernels(
  kernels: readonly { name: string; kernelTimeMs: unknown }[],
  keep: (name: string) => boolean,
): number {
  let sum = 0;
  for (const k of kernels)
    if (keep(k.name) && typeof k.kernelTimeMs === 'number') sum += k.kernelTimeMs;
  return sum;
}

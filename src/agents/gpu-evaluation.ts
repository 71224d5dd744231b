import type { Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import type { EnvRange, TradingEnvOptions } from '../env/index.js';
import { EvaluationCurves } from '../eval/evaluation-curves.js';
import type { RangeEvaluation } from '../eval/evaluate.js';
import {
  dispatchOf,
  encodeDispatches,
  ENV_FLOATS,
  ENV_WORDS,
  evaluationHistoryKernel,
  MINIBATCH_STRIDE,
  type Dispatch,
  type GpuDevice,
  type ParameterSlot,
} from '../gpu/index.js';
import { mlpForward } from './gpu-mlp-forward.js';
import { GpuTradingEnv } from './gpu-trading-env.js';

/*
 * The deterministic policy evaluated on the device: one env per test range (as the CPU evaluator
 * runs them), the actor's mean written straight into the env's actions by the last layer's GEMM
 * (tanh in its epilogue when the mean is squashed), the env's step, and a record of each step's
 * equity, benchmark, fills and episode ends. Every step of every range goes in command buffers
 * with nothing read until the end; the curves are then built by the CPU evaluator's own code
 * (EvaluationCurves), so the two differ only by the device's f32 accounting.
 */

/** The env fields each step records, in EvaluationCurves' CurveInfo order. */
const FLOAT_FIELDS = [
  ENV_FLOATS.value,
  ENV_FLOATS.benchmark,
  ENV_FLOATS.turnover,
  ENV_FLOATS.cash,
  ENV_FLOATS.fees,
] as const;
const WORD_FIELDS = [ENV_WORDS.bar, ENV_WORDS.terminated, ENV_WORDS.truncated] as const;

/** Steps encoded per command buffer (a long test range is several submits, none read). */
const STEPS_PER_SUBMIT = 256;

/** The actor as the program lays it out, for its forward pass. */
export interface EvaluationActor {
  hidden: readonly number[];
  activation: 'relu' | 'tanh';
  tanhMean: boolean;
}

/** Test ranges evaluated with the actor in a parameters buffer, on the device. */
export class GpuEvaluation {
  private constructor(
    private readonly gpu: GpuDevice,
    private readonly env: GpuTradingEnv,
    private readonly ranges: readonly EnvRange[],
    private readonly perStep: Dispatch[],
    private readonly stepGroup: GPUBindGroup,
    private readonly history: { floats: GPUBuffer; words: GPUBuffer; steps: number },
    private readonly owned: GPUBuffer[],
  ) {}

  /**
   * The evaluation of `ranges` over `data` (env options as the CPU evaluator takes them), its actor
   * read from `parameters` at `slots` (ppoParameterSlots' layout: the trained program's buffer).
   */
  static async build(
    gpu: GpuDevice,
    data: MarketData,
    normalizer: Normalizer | undefined,
    ranges: readonly EnvRange[],
    options: Omit<TradingEnvOptions, 'ranges' | 'nEnvs' | 'randomStart' | 'episodeLength'>,
    actor: EvaluationActor,
    parameters: GPUBuffer,
    slots: readonly ParameterSlot[],
  ): Promise<GpuEvaluation> {
    const n = ranges.length;
    const env = await GpuTradingEnv.create(gpu, data, normalizer, {
      ...options,
      ranges,
      nEnvs: n,
      randomStart: false,
    });
    const owned: GPUBuffer[] = [];
    const storage = (bytes: number, label: string): GPUBuffer => {
      const b = gpu.storageBuffer(bytes, label);
      owned.push(b);
      return b;
    };
    // The longest episode: a range's bars past its first observation (a step a bar).
    const steps = Math.max(...ranges.map(([start, end]) => end - start));
    const forward = await mlpForward(gpu, {
      name: 'actor',
      sizes: [env.obsDim, ...actor.hidden, env.assets],
      activation: actor.activation,
      lastEpilogue: actor.tanhMean ? 'bias-tanh' : 'bias',
      rows: n,
      input: env.obs,
      output: env.actions,
      parameters,
      slots,
      owned,
    });
    const history = {
      floats: storage(steps * FLOAT_FIELDS.length * n * 4, 'evaluation float history'),
      words: storage(steps * WORD_FIELDS.length * n * 4, 'evaluation word history'),
      steps,
    };
    const record = dispatchOf(
      gpu,
      await gpu.pipelines.kernel(evaluationHistoryKernel(FLOAT_FIELDS, WORD_FIELDS)),
      [env.floats, env.words, history.floats, history.words],
      [Math.ceil(n / 64)],
    );
    // One slot per step: (start t · n, rows n), as the rollout's.
    const stepRanges = gpu.uniformBuffer(steps * MINIBATCH_STRIDE, 'evaluation steps');
    owned.push(stepRanges);
    const words = new Uint32Array((steps * MINIBATCH_STRIDE) / 4);
    for (let t = 0; t < steps; t++) words.set([t * n, n], (t * MINIBATCH_STRIDE) / 4);
    gpu.write(stepRanges, 0, words);
    const stepGroup = gpu.device.createBindGroup({
      label: 'evaluation steps',
      layout: gpu.pipelines.rangeLayout,
      entries: [{ binding: 0, resource: { buffer: stepRanges, size: 8 } }],
    });
    return new GpuEvaluation(
      gpu,
      env,
      ranges,
      [...forward, env.stepKernel, record],
      stepGroup,
      history,
      owned,
    );
  }

  /** Runs every range to its end from the env's reset, then reads the history once. */
  async run(data: Pick<MarketData, 'timeframe' | 'calendar'>): Promise<RangeEvaluation[]> {
    const { gpu, env, history } = this;
    const n = env.nEnvs;
    const reset = await env.read();
    for (let first = 0; first < history.steps; first += STEPS_PER_SUBMIT) {
      const encoder = gpu.device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      let count = 0;
      for (let t = first; t < Math.min(history.steps, first + STEPS_PER_SUBMIT); t++)
        count += encodeDispatches(pass, this.perStep, { group: this.stepGroup, slot: t, rows: n });
      pass.end();
      gpu.submit(encoder, count);
    }
    const F = FLOAT_FIELDS.length;
    const W = WORD_FIELDS.length;
    const [floats, words] = await Promise.all([
      gpu.readFloats(history.floats, 0, history.steps * F * n),
      gpu.read(history.words, 0, history.steps * W * n * 4).then((b) => new Uint32Array(b)),
    ]);
    const curves = new EvaluationCurves(this.ranges, {
      bar: reset.info.bar,
      value: reset.info.value,
      benchmarkValue: reset.info.benchmarkValue,
      turnover: reset.info.turnover,
      cash: reset.info.cash,
      feesPaid: reset.info.feesPaid,
    });
    const field = (t: number, f: number): Float32Array =>
      floats.subarray((t * F + f) * n, (t * F + f + 1) * n);
    const word = (t: number, w: number): Uint32Array =>
      words.subarray((t * W + w) * n, (t * W + w + 1) * n);
    for (let t = 0; t < history.steps && curves.running; t++)
      curves.step(
        {
          value: field(t, 0),
          benchmarkValue: field(t, 1),
          turnover: field(t, 2),
          cash: field(t, 3),
          feesPaid: field(t, 4),
          bar: word(t, 0),
        },
        word(t, 1),
        word(t, 2),
      );
    return curves.finish(data);
  }

  /** Releases the env's and the history's buffers (not the parameters). */
  destroy(): void {
    for (const b of this.owned) b.destroy();
    this.env.destroy();
  }
}

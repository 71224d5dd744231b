import { TradelabError } from '../core/index.js';
import type { MarketData } from '../data/load-market-data.js';
import type { Normalizer } from '../data/features/normalizer.js';
import {
  VectorTradingEnv,
  type EnvStepResult,
  type ObservationLayout,
  type ResolvedEnvOptions,
  type TradingEnvOptions,
} from '../env/index.js';
import {
  ENV_FLOATS,
  ENV_PARAM_WORDS,
  ENV_WORD_BLOCKS,
  ENV_WORDS,
  ENV_WORKGROUP,
  dispatchOf,
  envFloatBlocks,
  runDispatches,
  storageOf,
  tradingEnvKernel,
  uniformOf,
  type Dispatch,
  type GpuDevice,
} from '../gpu/index.js';

/*
 * The trading env resident on the GPU: VectorTradingEnv's state and tables in device buffers and
 * its step as one kernel over every env (gpu/kernels/trading-env-step.ts), so a rollout's
 * observations, actions and rewards never cross to the host. The CPU env built with nEnvs 1 checks
 * the options and the data and lends its tables (normalized, windowed features; unit scales;
 * episode-start counts); prices go to the device as f32. What the device's f32 changes and what it
 * keeps is in the kernel's header; src/agents/gpu-trading-env.test.ts measures it against the CPU
 * env over whole episodes.
 */

/** What {@link GpuTradingEnv.read} brings back: the CPU env's step result, as copies. */
export type GpuEnvSnapshot = EnvStepResult;

/** The trading env on a GPU device. Destroy it when done (its buffers are the device's). */
export class GpuTradingEnv {
  readonly nEnvs: number;
  readonly assets: number;
  readonly obsDim: number;
  readonly layout: ObservationLayout;
  readonly options: Readonly<ResolvedEnvOptions>;
  /** nEnvs × assets actions the next step reads; a policy on the device writes them here. */
  readonly actions: GPUBuffer;
  /** nEnvs × obsDim observations, written by reset and every step. */
  readonly obs: GPUBuffer;
  /** The per-env f32 fields (ENV_FLOATS), each a block of nEnvs values. */
  readonly floats: GPUBuffer;
  /** The per-env u32 fields (ENV_WORDS), each a block of nEnvs values. */
  readonly words: GPUBuffer;
  private readonly buffers: GPUBuffer[];

  private constructor(
    /** The device the env lives on. */
    readonly gpu: GpuDevice,
    cpu: VectorTradingEnv,
    nEnvs: number,
    buffers: {
      actions: GPUBuffer;
      obs: GPUBuffer;
      floats: GPUBuffer;
      words: GPUBuffer;
      all: GPUBuffer[];
    },
    private readonly resetDispatch: Dispatch,
    private readonly stepDispatch: Dispatch,
  ) {
    this.nEnvs = nEnvs;
    this.assets = cpu.assets;
    this.obsDim = cpu.obsDim;
    this.layout = cpu.layout;
    this.options = { ...cpu.options, nEnvs };
    this.actions = buffers.actions;
    this.obs = buffers.obs;
    this.floats = buffers.floats;
    this.words = buffers.words;
    this.buffers = buffers.all;
  }

  /**
   * An env of `options.nEnvs` envs over `data` on `gpu`, reset (every env at its first episode),
   * as `new VectorTradingEnv(data, normalizer, options)` would be.
   */
  static async create(
    gpu: GpuDevice,
    data: MarketData,
    normalizer: Normalizer | undefined,
    options: TradingEnvOptions = {},
  ): Promise<GpuTradingEnv> {
    const nEnvs = options.nEnvs ?? 1;
    const cpu = new VectorTradingEnv(data, normalizer, { ...options, nEnvs: 1 });
    const o = cpu.options;
    const tables = cpu.tables();
    const A = cpu.assets;
    const bars = tables.close.length / A;
    if (o.allowShort)
      throw new TradelabError('INVALID_ARGUMENT', 'the GPU env does not sell short', {
        hint: 'leave allowShort false',
      });

    const prices = new Float32Array(2 * bars * A);
    prices.set(tables.close);
    prices.set(tables.fill, bars * A);
    const config = new Uint32Array(A + 4 * o.ranges.length);
    new Float32Array(config.buffer, 0, A).set(tables.unitScale);
    o.ranges.forEach(([start, end], r) => {
      config.set([start, end, tables.lastStart[r] ?? 0, tables.startsBefore[r] ?? 0], A + 4 * r);
    });
    const params = new ArrayBuffer(ENV_PARAM_WORDS * 4);
    new Uint32Array(params, 0, 8).set([
      nEnvs,
      bars,
      tables.totalStarts,
      o.seed >>> 0,
      o.episodeLength,
    ]);
    new Float32Array(params, 32, 13).set([
      o.initialCash,
      o.cashScale,
      o.holdingsScale,
      o.maxTradeFraction,
      o.noTradeBand,
      o.minOrderValue,
      o.buyFeeBps * 1e-4,
      o.sellFeeBps * 1e-4,
      o.slippageBps * 1e-4,
      o.terminationThreshold * o.initialCash,
      o.drawdownPenalty,
      o.turnoverPenalty,
      o.rewardScale,
    ]);

    const all: GPUBuffer[] = [];
    const keep = (b: GPUBuffer): GPUBuffer => (all.push(b), b);
    const uniform = keep(uniformOf(gpu, new Uint32Array(params), 'env params'));
    const priceBuffer = keep(storageOf(gpu, prices, 'env prices'));
    // NaN where no observation may read: the device gets the same values, NaN included.
    const featureBuffer = keep(storageOf(gpu, tables.features, 'env features'));
    const configBuffer = keep(storageOf(gpu, config, 'env config'));
    const floats = keep(gpu.storageBuffer(4 * envFloatBlocks(A) * nEnvs, 'env floats'));
    const words = keep(gpu.storageBuffer(4 * ENV_WORD_BLOCKS * nEnvs, 'env words'));
    const actions = keep(gpu.storageBuffer(4 * A * nEnvs, 'env actions'));
    const obs = keep(gpu.storageBuffer(4 * cpu.obsDim * nEnvs, 'env observations'));

    const shape = {
      assets: A,
      rowWidth: tables.features.length / bars,
      lookback: o.lookback,
      obsDim: cpu.obsDim,
      scaling: o.actionScaling,
      excessReward: o.reward === 'excess',
      positionWeights: o.includePositionWeights,
      timeFeature: o.includeTimeFeature,
      randomStart: o.randomStart,
      ranges: o.ranges.length,
    };
    const bindings = [
      uniform,
      priceBuffer,
      featureBuffer,
      configBuffer,
      floats,
      words,
      actions,
      obs,
    ];
    const groups = [Math.ceil(nEnvs / ENV_WORKGROUP)] as const;
    const resetKernel = await gpu.pipelines.kernel(tradingEnvKernel(shape, true));
    const stepKernel = await gpu.pipelines.kernel(tradingEnvKernel(shape, false));
    const env = new GpuTradingEnv(
      gpu,
      cpu,
      nEnvs,
      { actions, obs, floats, words, all },
      dispatchOf(gpu, resetKernel, bindings, groups),
      dispatchOf(gpu, stepKernel, bindings, groups),
    );
    env.reset();
    return env;
  }

  /** Starts every env's first episode (in-order starts cycle from range env mod ranges). */
  reset(): void {
    runDispatches(this.gpu, [this.resetDispatch]);
  }

  /** Steps every env with the actions in {@link actions} (queued; nothing is read back). */
  step(): void {
    runDispatches(this.gpu, [this.stepDispatch]);
  }

  /** The step's dispatch, for a program that encodes it among its own (a rollout). */
  get stepKernel(): Dispatch {
    return this.stepDispatch;
  }

  /** Writes `actions` (nEnvs × assets) into {@link actions}, for the next step. */
  setActions(actions: Float32Array): void {
    if (actions.length !== this.nEnvs * this.assets)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `env: ${actions.length} actions, expected ${this.nEnvs} envs × ${this.assets} assets`,
        { hint: 'pass one Float32Array of nEnvs × assets actions' },
      );
    this.gpu.write(this.actions, 0, actions);
  }

  /** Everything a CPU env's step returns, read back (after all queued steps). */
  async read(): Promise<GpuEnvSnapshot> {
    const n = this.nEnvs;
    const A = this.assets;
    const [obs, floats, words] = await Promise.all([
      this.gpu.readFloats(this.obs),
      this.gpu.readFloats(this.floats),
      this.gpu.read(this.words, 0, 4 * ENV_WORD_BLOCKS * n).then((b) => new Uint32Array(b)),
    ]);
    const field = (f: number): Float32Array => floats.subarray(f * n, (f + 1) * n);
    const word = (f: number): Uint32Array => words.subarray(f * n, (f + 1) * n);
    const holdings = new Float64Array(n * A);
    for (let a = 0; a < A; a++) {
      const block = field(ENV_FLOATS.holdings + a);
      for (let i = 0; i < n; i++) holdings[i * A + a] = block[i] as number;
    }
    return {
      obs: obs.slice(0, n * this.obsDim),
      rewards: field(ENV_FLOATS.reward).slice(),
      terminations: Uint8Array.from(word(ENV_WORDS.terminated)),
      truncations: Uint8Array.from(word(ENV_WORDS.truncated)),
      resetMask: Uint8Array.from(word(ENV_WORDS.resetMask)),
      info: {
        value: Float64Array.from(field(ENV_FLOATS.value)),
        cash: Float64Array.from(field(ENV_FLOATS.cash)),
        holdings,
        feesPaid: Float64Array.from(field(ENV_FLOATS.fees)),
        turnover: Float64Array.from(field(ENV_FLOATS.turnover)),
        benchmarkValue: Float64Array.from(field(ENV_FLOATS.benchmark)),
        bar: Int32Array.from(word(ENV_WORDS.bar)),
        episodeStep: Int32Array.from(word(ENV_WORDS.episodeStep)),
      },
    };
  }

  /** Releases the env's buffers (the device stays open). */
  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}

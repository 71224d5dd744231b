import * as tf from '../compute/tfjs.js';
import { Rng } from '../core/random.js';
import type { Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import type { EnvRange, TradingEnvOptions } from '../env/index.js';
import type { RangeEvaluation } from '../eval/evaluate.js';
import {
  PpoUpdateProgram,
  type GpuDevice,
  type PpoTrainResult,
  type ParameterSlot,
} from '../gpu/index.js';
import { PPO_DEFAULTS, type PpoConfig } from './ppo-config.js';
import { ppoProgramConstants, variablesBySlot } from './ppo-gpu-update.js';
import {
  createPpoNetworks,
  disposePpoNetworks,
  ppoStepStats,
  type PpoNetworks,
  type PpoStepStats,
} from './ppo-update.js';
import { GpuEvaluation } from './gpu-evaluation.js';
import { GpuRollout } from './gpu-rollout.js';
import { GpuTradingEnv } from './gpu-trading-env.js';

/*
 * PPO with a whole trial resident on the GPU: the env (GpuTradingEnv), the rollout with reward
 * scaling and GAE (GpuRollout) and the update (PpoUpdateProgram) share one device and one
 * parameters buffer; an update is one rollout command buffer, one read of which rows train (to
 * shuffle them), and the update's own submits and statistics read. Nothing else crosses.
 *
 * The networks start as the CPU trainer's do (createPpoNetworks: orthogonal init, the same seed
 * gives the same weights), and the loss and optimizer constants are PpoConfig's. What differs from
 * the CPU trainer: the noise and the episode starts come from counter-based hashes (see the
 * kernels), so a seed's trajectories are its own on the device, not the CPU trainer's; the money
 * is f32 (gpu/kernels/trading-env-step.ts).
 */

/** The PpoConfig fields {@link ResidentPpo} takes (advantages are normalized per minibatch). */
const RESIDENT_FIELDS = [
  'netDim',
  'layers',
  'activation',
  'meanSquash',
  'initLogStd',
  'nEnvs',
  'targetStep',
  'batchSize',
  'repeatTimes',
  'learningRate',
  'gamma',
  'lambdaGae',
  'ratioClip',
  'lambdaEntropy',
  'valueCoef',
  'maxGradNorm',
  'normalizeAdvantages',
  'normalizeRewards',
  'clipValueLoss',
  'adamEpsilon',
  'breakStep',
  'annealLr',
  'targetKl',
  'seed',
] as const satisfies readonly (keyof PpoConfig)[];

/** What {@link ResidentPpo} trains; PpoConfig's fields, defaults PPO_DEFAULTS'. */
export type ResidentPpoConfig = Partial<Pick<PpoConfig, (typeof RESIDENT_FIELDS)[number]>>;

/** One update's report. */
export interface ResidentUpdateReport {
  /** Means over the minibatch steps. */
  stats: PpoStepStats;
  /** Env steps collected (nEnvs × steps per rollout). */
  envSteps: number;
  /** Rows trained on (the rest were autoreset steps). */
  rows: number;
  seconds: number;
  /** Of which the rollout (env, policy, reward scaling, GAE) until its rows were read. */
  rolloutSeconds: number;
  result: PpoTrainResult;
}

/**
 * Why a PPO config and env options cannot train resident on the device, or undefined when they
 * can: what the device path does not do (a caller falls back to the CPU env for those).
 */
export function residentUnsupported(
  ppo: Pick<PpoConfig, 'policy' | 'normalizeAdvantages' | 'normalizeAdvantagesOver'>,
  env: Pick<TradingEnvOptions, 'allowShort'>,
): string | undefined {
  if (ppo.policy !== 'mlp') return `the ${ppo.policy} actor trains on the CPU env`;
  if (ppo.normalizeAdvantages && ppo.normalizeAdvantagesOver === 'rollout')
    return 'advantages normalized over the whole rollout (the device normalizes per minibatch)';
  if (env.allowShort === true) return 'the device env does not sell short';
  return undefined;
}

/** A PPO trial resident on one device. Destroy it when done. */
export class ResidentPpo {
  private updates = 0;
  private steps = 0;

  private constructor(
    readonly env: GpuTradingEnv,
    readonly program: PpoUpdateProgram,
    readonly rollout: GpuRollout,
    private readonly config: Required<ResidentPpoConfig>,
    private readonly rolloutSteps: number,
  ) {}

  /** Updates to reach breakStep env steps (as the CPU trainer counts them). */
  get totalUpdates(): number {
    return Math.ceil(this.config.breakStep / this.config.targetStep);
  }

  /** Updates done so far. */
  get updatesDone(): number {
    return this.updates;
  }

  /** Env steps one update collects (nEnvs × steps per rollout). */
  get envStepsPerUpdate(): number {
    return this.rolloutSteps * this.env.nEnvs;
  }

  /** Env steps collected so far. */
  get envSteps(): number {
    return this.steps;
  }

  /** Whether {@link totalUpdates} are done. */
  get finished(): boolean {
    return this.updates >= this.totalUpdates;
  }

  /** Adam's learning rate for update `index`: learningRate, annealed linearly when asked. */
  learningRateAt(index: number): number {
    const c = this.config;
    return c.annealLr ? c.learningRate * (1 - index / this.totalUpdates) : c.learningRate;
  }

  /** Builds the env, the rollout and the update on `gpu`, with freshly initialized networks. */
  static async create(
    gpu: GpuDevice,
    data: MarketData,
    normalizer: Normalizer | undefined,
    envOptions: TradingEnvOptions,
    options: ResidentPpoConfig = {},
  ): Promise<ResidentPpo> {
    const config = { ...pick(PPO_DEFAULTS), ...options } as Required<ResidentPpoConfig>;
    const nEnvs = config.nEnvs;
    const steps = Math.max(1, Math.round(config.targetStep / nEnvs));
    const rows = steps * nEnvs;
    const env = await GpuTradingEnv.create(gpu, data, normalizer, { ...envOptions, nEnvs });
    const hidden = Array.from({ length: config.layers }, () => config.netDim);
    const shape = {
      stateDim: env.obsDim,
      actionDim: env.assets,
      hidden,
      activation: config.activation,
      tanhMean: config.meanSquash === 'tanh',
    };
    const program = await PpoUpdateProgram.build(
      gpu,
      {
        ...shape,
        rolloutRows: rows,
        batchSize: Math.min(config.batchSize, rows),
        passes: config.repeatTimes,
        normalizeAdvantages: config.normalizeAdvantages,
        clipValueLoss: config.clipValueLoss,
      },
      ppoProgramConstants(config),
    );
    const initial = initialParameters(program.slots, {
      stateDim: env.obsDim,
      actionDim: env.assets,
      netDim: config.netDim,
      layers: config.layers,
      activation: config.activation,
      meanSquash: config.meanSquash,
      initLogStd: config.initLogStd,
      seed: config.seed,
    });
    program.writeParameters(initial);
    program.writeMoments({
      m: new Float32Array(initial.length),
      v: new Float32Array(initial.length),
      accBeta1: 0.9,
      accBeta2: 0.999,
    });
    const rollout = await GpuRollout.build(
      gpu,
      env,
      { ...shape, steps },
      program.parameters,
      program.slots,
      {
        gamma: config.gamma,
        lambda: config.lambdaGae,
        ...(config.normalizeRewards ? { rewardScaling: { gamma: config.gamma } } : {}),
      },
    );
    return new ResidentPpo(env, program, rollout, config, steps);
  }

  /** Collects a rollout and trains on it. */
  async update(): Promise<ResidentUpdateReport> {
    const started = performance.now();
    const u = this.updates++;
    const seed = this.config.seed;
    this.rollout.collect((seed * 1_000_003 + u) >>> 0);
    const rows = await this.rollout.trainingRows();
    const rolloutSeconds = (performance.now() - started) / 1000;
    const result = await this.program.train(
      this.rollout.deviceRollout,
      (pass) => shuffled(rows, new Rng(seed, u, pass)),
      { learningRate: this.learningRateAt(u), targetKl: this.config.targetKl },
    );
    const envSteps = this.envStepsPerUpdate;
    this.steps += envSteps;
    return {
      stats: ppoStepStats(result.statSums, Math.max(1, result.steps)),
      envSteps,
      rows: rows.length,
      seconds: (performance.now() - started) / 1000,
      rolloutSeconds,
      result,
    };
  }

  /**
   * The trained networks as tfjs variables (the CPU trainer's kind), for evaluation and
   * checkpoints. The caller disposes them (disposePpoNetworks).
   */
  async networks(): Promise<PpoNetworks> {
    const flat = await this.program.readParameters();
    const nets = createPpoNetworks(this.networkConfig());
    variablesBySlot(nets, this.program.slots).forEach((variable, i) => {
      const slot = this.program.slots[i] as ParameterSlot;
      variable.assign(
        tf.tensor(flat.subarray(slot.offset, slot.offset + slot.size), variable.shape),
      );
    });
    return nets;
  }

  /**
   * The deterministic policy on `ranges`, evaluated on the device with the parameters as they are
   * now (GpuEvaluation): the CPU evaluator's curves and metrics, within f32 accounting.
   */
  async evaluate(
    data: MarketData,
    normalizer: Normalizer | undefined,
    ranges: readonly EnvRange[],
    options: Omit<TradingEnvOptions, 'ranges' | 'nEnvs' | 'randomStart' | 'episodeLength'>,
  ): Promise<RangeEvaluation[]> {
    const c = this.config;
    const evaluation = await GpuEvaluation.build(
      this.env.gpu,
      data,
      normalizer,
      ranges,
      options,
      {
        hidden: Array.from({ length: c.layers }, () => c.netDim),
        activation: c.activation,
        tanhMean: c.meanSquash === 'tanh',
      },
      this.program.parameters,
      this.program.slots,
    );
    try {
      return await evaluation.run(data);
    } finally {
      evaluation.destroy();
    }
  }

  /** The networks' shapes and initialization, as createPpoNetworks takes them. */
  networkConfig(): Parameters<typeof createPpoNetworks>[0] {
    const c = this.config;
    return {
      stateDim: this.env.obsDim,
      actionDim: this.env.assets,
      netDim: c.netDim,
      layers: c.layers,
      activation: c.activation,
      meanSquash: c.meanSquash,
      initLogStd: c.initLogStd,
      seed: c.seed,
    };
  }

  /** Releases the env's, the rollout's buffers (the program's are the device's). */
  destroy(): void {
    this.rollout.destroy();
    this.env.destroy();
  }
}

/** PPO_DEFAULTS' values of the fields {@link ResidentPpoConfig} has. */
function pick(defaults: Readonly<PpoConfig>): Required<ResidentPpoConfig> {
  return Object.fromEntries(
    RESIDENT_FIELDS.map((field) => [field, defaults[field]]),
  ) as Required<ResidentPpoConfig>;
}

/** The CPU trainer's initial networks, flat in the program's slots. */
function initialParameters(
  slots: readonly ParameterSlot[],
  config: Parameters<typeof createPpoNetworks>[0],
): Float32Array {
  const nets = createPpoNetworks(config);
  try {
    return flatParameters(nets, slots);
  } finally {
    disposePpoNetworks(nets);
  }
}

/** The networks' variables flat, in the program's slots (ppoParameterSlots' layout). */
export function flatParameters(nets: PpoNetworks, slots: readonly ParameterSlot[]): Float32Array {
  const last = slots[slots.length - 1] as ParameterSlot;
  const flat = new Float32Array(last.offset + last.size);
  variablesBySlot(nets, slots).forEach((variable, i) => {
    flat.set(variable.dataSync(), (slots[i] as ParameterSlot).offset);
  });
  return flat;
}

/** `rows` in a seeded random order (Fisher–Yates). */
function shuffled(rows: Int32Array, rng: Rng): Int32Array {
  const out = rows.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    const t = out[i] as number;
    out[i] = out[j] as number;
    out[j] = t;
  }
  return out;
}

import { TradelabError } from '../../core/index.js';
import { forecastSettingsAt } from '../forecast-settings.js';
import type { ForecastTimeframe, GpuProfile, Workload } from '../profile-schema.js';
import { computeDevice, type ComputeDevice, type PlanBackend } from './compute-device.js';
import { formatBytes, formatCount, GIB, MIB } from './format-bytes.js';
import {
  mlpParamCount,
  mlpTrainingElementsPerSample,
  mlpUnitsPerSample,
  type MlpShape,
} from './mlp-size.js';
import {
  SEED_TCN_SHAPE,
  TCN_ENGINE_TRANSIENT_BYTES_PER_PARAM,
  tcnElementsPerBar,
  tcnEngineElementsPerBar,
  tcnEngineElementsPerChunk,
  tcnParamCount,
  tcnTransientBytesPerParam,
  type TcnShape,
} from './tcn-size.js';

/** Element type of weights, gradients and activations. */
export type PlanDtype = 'float32' | 'float16' | 'bfloat16';

/** A model given by its architecture: the PPO actor-critic MLP pair. */
export interface MlpModel extends MlpShape {
  kind: 'mlp';
}

/** A TCN given by its architecture and chunk length (`batchSize` counts chunks). */
export interface TcnModel extends TcnShape {
  kind: 'tcn';
}

/** A model given by its size, for architectures the planner does not know. */
export interface SizedModel {
  kind: 'params';
  paramCount: number;
  /** Elements kept per sample for the backward pass; unknown (0) when absent. */
  activationsPerSample?: number;
  /** Where these figures come from, shown beside the terms. */
  source?: string;
}

/** Measured memory (from a benchmark) that replaces the planner's estimates. */
export interface MeasuredMemory {
  /** Framework/context memory of one process. */
  contextBytes?: number;
  /** Everything one worker uses; replaces the sum of the terms. */
  perWorkerBytes?: number;
  /** Where the measurement comes from, e.g. "bench ppo-update, h100, 2026-12-01". */
  source?: string;
}

/** The memory the workers share: the GPU's, or the host's when the backend computes on the CPU. */
export interface MemoryBudget {
  kind: 'gpu' | 'host';
  totalBytes: number;
  /** Free memory right now, when detected. */
  freeBytes?: number;
  /** Where the free figure comes from, e.g. "nvidia-smi GPU 0". */
  freeSource?: string;
}

/** The dataset arrays each worker holds: `priceArray` (float64) and `techArray` (float32). */
export interface DatasetShape {
  bars: number;
  assets: number;
  features: number;
}

/** Input of {@link planWorkers}. */
export interface PlanInput {
  profile: GpuProfile;
  workload: Workload;
  /**
   * Required for `drl`, and for `forecast` on the host. `forecast` on the card is charged the
   * profile's memory per model at the timeframe (seed 004's figures for the card) instead.
   */
  model?: MlpModel | TcnModel | SizedModel;
  /** Minibatch size (chunks for `tcn`). Default: the profile's value for the workload. */
  batchSize?: number;
  /** Envs stepped together per worker (`drl`). Default 1. */
  nEnvs?: number;
  /** Env steps collected per update (`drl`). Default 2 × batchSize. */
  targetStep?: number;
  /** Arrays each worker loads. Default: none. */
  dataset?: DatasetShape;
  /** Default `float32` (TensorFlow.js trains in float32). */
  dtype?: PlanDtype;
  backend: PlanBackend;
  /** The memory of the device `backend` computes on ({@link computeDevice}). */
  memory: MemoryBudget;
  /** CPU cores available to workers (env stepping runs on the CPU). */
  cpuCores: number;
  /** Fraction of total memory to plan with. Default 0.85. */
  safetyFactor?: number;
  /** `forecast`: the bars' timeframe. Default `1h`. */
  timeframe?: ForecastTimeframe;
  /** A worker count the user asked for; the plan says whether it fits. */
  requestedWorkers?: number;
  /**
   * `drl` on the engine: whole trials resident on the card (env, rollout, update; see
   * agents/gpu-resident-ppo.ts), several per worker process. The context and the dataset are then
   * charged once per process, not per trial, and no CPU core limits the trials (no env steps on
   * the CPU); `workers` counts trials at once, `trialsPerProcess` how many share a process.
   */
  residentTrials?: boolean;
  /** PPO passes over each rollout (the resident update's shuffled row order). Default 8. */
  repeatTimes?: number;
  measured?: MeasuredMemory;
}

/** One line of the memory breakdown, with its arithmetic. */
export interface Term {
  label: string;
  bytes: number;
  /** How the bytes were computed, e.g. "17,154,058 params × 4 B". */
  formula: string;
}

/** What caps the worker count. */
export type LimitKind =
  'requested' | 'wasm32' | 'memory' | 'maxWorkers' | 'cpuCores' | 'trialsPerProcess';

/** Trials one worker process runs at once, at most (tune/heartbeat.ts's HEARTBEAT_SLOTS). */
export const MAX_TRIALS_PER_PROCESS = 64;

/** One cap on the worker count and why. */
export interface WorkerLimit {
  by: LimitKind;
  workers: number;
  detail: string;
}

/** The plan: memory per worker, usable memory, and how many workers fit. */
export interface WorkerPlan {
  profile: string;
  workload: Workload;
  backend: PlanBackend;
  /** What the workers compute on, which decides the limits that apply. */
  device: ComputeDevice;
  dtype: PlanDtype;
  batchSize: number;
  nEnvs: number;
  targetStep: number;
  paramCount: number | undefined;
  /** What each worker (each trial, for resident trials) needs. */
  perWorker: Term[];
  perWorkerBytes: number;
  /** What a process holds once for all its trials (resident trials); empty otherwise. */
  shared: Term[];
  sharedBytes: number;
  /** Trials one worker process runs at once: 1, or `workers` for resident trials. */
  trialsPerProcess: number;
  memoryKind: 'gpu' | 'host';
  usable: Term;
  workers: number;
  limitedBy: LimitKind;
  limits: WorkerLimit[];
  /** At least one worker fits, and the requested count if one was given. */
  fits: boolean;
}

/** Bytes per element of each dtype. */
export const DTYPE_BYTES: Readonly<Record<PlanDtype, number>> = {
  float32: 4,
  float16: 2,
  bfloat16: 2,
};

/**
 * Framework/context memory of one worker process, before any tensor: our estimates until a
 * benchmark measures them (pass `measured.contextBytes`). GPU backends pay a driver context
 * (Dawn + Vulkan/Metal/D3D12); CPU backends pay the Node.js runtime and tfjs.
 */
export const CONTEXT_BYTES: Readonly<
  Record<'gpu' | 'host', Readonly<Record<PlanBackend, number>>>
> = {
  // The engine holds one Dawn device and its own buffers, without tfjs's webgpu backend around it.
  gpu: { webgpu: 512 * MIB, gpu: 256 * MIB, wasm: 0, cpu: 0 },
  host: { webgpu: 256 * MIB, gpu: 256 * MIB, wasm: 160 * MIB, cpu: 160 * MIB },
};

/** A wasm32 heap cannot grow past 4 GiB. */
export const WASM32_LIMIT_BYTES = 4 * GIB;

/** Adam keeps two float32 moments per parameter. */
const ADAM_BYTES_PER_PARAM = 8;
/** Rollout buffer floats per env step: obs, next obs, action, reward, done, log-prob. */
const rolloutFloatsPerStep = (obsDim: number, actDim: number): number => 2 * obsDim + actDim + 3;

/**
 * Plans trial workers: sums what one worker needs (every term with its arithmetic), takes the
 * usable memory — min(total × safety factor, free memory when detected) — and caps the count by
 * CPU cores, the wasm32 heap and the requested count, and on the card by the profile's max workers
 * for the workload ({@link computeDevice}).
 */
export function planWorkers(input: PlanInput): WorkerPlan {
  const settings = input.profile.workloads[input.workload];
  const device = computeDevice(input.profile, input.backend, input.workload, input.model?.kind);
  // tfjs's webgpu on the card is charged seed 004's memory per model; the engine its own buffers.
  const forecastOnCard = input.workload === 'forecast' && input.backend === 'webgpu';
  // The engine's TCN step: its buffers, counted from the program (tcn-size.ts).
  const tcnOnEngine = input.backend === 'gpu' && device === 'gpu';
  const resident =
    input.residentTrials === true &&
    input.workload === 'drl' &&
    input.backend === 'gpu' &&
    device === 'gpu' &&
    input.model?.kind === 'mlp';
  const passes = input.repeatTimes ?? 8;
  const dtype = input.dtype ?? 'float32';
  const bytes = DTYPE_BYTES[dtype];
  const batchSize = input.batchSize ?? defaultBatch(input);
  const nEnvs = input.nEnvs ?? 1;
  const targetStep = input.targetStep ?? 2 * batchSize;
  const safetyFactor = input.safetyFactor ?? 0.85;
  assertPositive({ batchSize, nEnvs, targetStep, cpuCores: input.cpuCores, passes });

  const terms: Term[] = [];
  // Resident trials share their process's context and the dataset's copy on the card.
  const shared: Term[] = [];
  const once = resident ? shared : terms;
  let paramCount: number | undefined;
  const contextBytes =
    input.measured?.contextBytes ?? CONTEXT_BYTES[input.memory.kind][input.backend];
  if (input.measured?.perWorkerBytes !== undefined) {
    terms.push({
      label: 'measured worker',
      bytes: input.measured.perWorkerBytes,
      formula: `measured${input.measured.source === undefined ? '' : ` (${input.measured.source})`}`,
    });
  } else {
    if (contextBytes > 0) {
      once.push({
        label: 'framework/context',
        bytes: contextBytes,
        formula:
          input.measured?.contextBytes !== undefined
            ? `measured${input.measured.source === undefined ? '' : ` (${input.measured.source})`}`
            : `${input.backend} on ${input.memory.kind === 'gpu' ? 'GPU' : 'host'}, estimate per process`,
      });
    }
    const model = forecastOnCard ? undefined : (input.model ?? defaultModel(input));
    if (model === undefined) {
      const at = forecastSettingsAt(input.profile, input.timeframe ?? '1h');
      terms.push({
        label: 'model (from profile)',
        bytes: at.memoryPerModelGb * GIB,
        formula: `memoryPerModelGb['${at.timeframe}'] = ${at.memoryPerModelGb} GB (${at.source})`,
      });
    } else {
      paramCount =
        model.kind === 'mlp'
          ? mlpParamCount(model)
          : model.kind === 'tcn'
            ? tcnParamCount(model)
            : model.paramCount;
      const p = formatCount(paramCount);
      const paramsFormula =
        model.kind === 'mlp'
          ? `${p} params (actor+critic, ${model.layers}×${model.netDim} hidden, obs ${model.obsDim}, act ${model.actDim})`
          : model.kind === 'tcn'
            ? `${p} params (TCN ${model.layers}×${model.hidden}, kernel ${model.kernel}, ${model.inputs} features)`
            : `${p} params${model.source === undefined ? '' : ` (${model.source})`}`;
      terms.push({
        label: 'weights',
        bytes: paramCount * bytes,
        formula: `${paramsFormula} × ${bytes} B`,
      });
      terms.push({
        label: 'gradients',
        bytes: paramCount * bytes,
        formula: `${p} params × ${bytes} B`,
      });
      if (model.kind === 'tcn') {
        const perParam = tcnOnEngine
          ? TCN_ENGINE_TRANSIENT_BYTES_PER_PARAM
          : tcnTransientBytesPerParam(model.checkpoint);
        terms.push({
          label: 'step transients',
          bytes: paramCount * perParam,
          formula: tcnOnEngine
            ? `${p} params × ${perParam} B (two gradient sums, the weight-normalized kernels and their gradients: the engine's buffers)`
            : `${p} params × ${perParam} B (weight-normalized kernels and their gradients${model.checkpoint ? ', one block at a time' : ''}, clipped gradients, Adam's new state; measured by bench tcn)`,
        });
      }
      terms.push({
        label: 'Adam state',
        bytes: paramCount * ADAM_BYTES_PER_PARAM,
        formula: `${p} params × 2 moments × 4 B`,
      });
      if (dtype !== 'float32') {
        terms.push({
          label: 'float32 master weights',
          bytes: paramCount * 4,
          formula: `${p} params × 4 B`,
        });
      }
      const perSample =
        model.kind === 'mlp'
          ? mlpTrainingElementsPerSample(model)
          : model.kind === 'tcn'
            ? tcnOnEngine
              ? model.chunkLen * tcnEngineElementsPerBar(model) + tcnEngineElementsPerChunk(model)
              : model.chunkLen * tcnElementsPerBar(model)
            : (model.activationsPerSample ?? 0);
      terms.push({
        label: 'activations',
        bytes: batchSize * perSample * bytes,
        formula:
          model.kind === 'mlp'
            ? `batch ${formatCount(batchSize)} × (2 × ${formatCount(mlpUnitsPerSample(model))} layer outputs, saved + gradient, + ${model.obsDim} obs) × ${bytes} B`
            : model.kind === 'tcn'
              ? tcnOnEngine
                ? `${formatCount(batchSize)} chunks × (${formatCount(model.chunkLen)} bars × ${formatCount(tcnEngineElementsPerBar(model))} elements a bar (${model.checkpoint ? `checkpointed: ${model.layers} block outputs + 2 recomputed` : `${model.layers} block outputs + 2×${model.layers} convolution outputs`}${model.inputs === model.hidden ? '' : ' + 1 residual'} + 6 of the backward) × ${model.hidden} + ${model.inputs}, + ${formatCount(tcnEngineElementsPerChunk(model))} a chunk) × ${bytes} B`
                : `${formatCount(batchSize)} chunks × ${formatCount(model.chunkLen)} bars × ${formatCount(tcnElementsPerBar(model))} elements a bar (${model.checkpoint ? `checkpointed: (2×${model.layers} + 14)` : `no checkpointing: 11×${model.layers}`} × ${model.hidden} + ${model.inputs}) × ${bytes} B`
              : perSample === 0
                ? 'unknown: pass activationsPerSample or a measured figure'
                : `batch ${formatCount(batchSize)} × ${formatCount(perSample)} elements × ${bytes} B`,
      });
      if (input.workload === 'drl' && model.kind === 'mlp') {
        const units = mlpUnitsPerSample(model) + model.obsDim;
        terms.push({
          label: 'rollout forward pass',
          bytes: nEnvs * units * bytes,
          formula: `${formatCount(nEnvs)} envs × ${formatCount(units)} units × ${bytes} B`,
        });
        if (resident)
          terms.push(...residentRolloutTerms(model, nEnvs, targetStep, batchSize, passes));
        else {
          const floats = rolloutFloatsPerStep(model.obsDim, model.actDim);
          terms.push({
            label: 'rollout buffer',
            bytes: targetStep * floats * 4,
            formula: `targetStep ${formatCount(targetStep)} × (2×${model.obsDim} obs + ${model.actDim} act + 3) floats × 4 B`,
          });
        }
      }
    }
    if (input.dataset !== undefined) {
      const { bars, assets, features } = input.dataset;
      once.push({
        label: resident ? 'dataset on the card' : 'dataset arrays',
        bytes: bars * assets * (8 + 4 * features),
        formula: resident
          ? `${formatCount(bars)} bars × ${assets} assets × (2 f32 prices + ${features} features × 4 B), once for the process's trials`
          : `${formatCount(bars)} bars × ${assets} assets × (8 B price + ${features} features × 4 B)`,
      });
    }
  }
  const perWorkerBytes = terms.reduce((sum, t) => sum + t.bytes, 0);
  const sharedBytes = shared.reduce((sum, t) => sum + t.bytes, 0);

  const budget = input.memory;
  const scaled = budget.totalBytes * safetyFactor;
  const usableBytes = budget.freeBytes === undefined ? scaled : Math.min(scaled, budget.freeBytes);
  const what = budget.kind === 'gpu' ? 'VRAM' : 'RAM';
  const usable: Term = {
    label: `usable ${what}`,
    bytes: usableBytes,
    formula:
      budget.freeBytes === undefined
        ? `${formatBytes(budget.totalBytes)} ${what} × ${safetyFactor}`
        : `min(${formatBytes(budget.totalBytes)} ${what} × ${safetyFactor}, ${formatBytes(budget.freeBytes)} free${budget.freeSource === undefined ? '' : ` per ${budget.freeSource}`})`,
  };

  const limits: WorkerLimit[] = [];
  if (input.requestedWorkers !== undefined) {
    limits.push({
      by: 'requested',
      workers: input.requestedWorkers,
      detail: `--workers ${input.requestedWorkers}`,
    });
  }
  const onWasm = budget.kind === 'host' && input.backend === 'wasm';
  if (onWasm && perWorkerBytes > WASM32_LIMIT_BYTES) {
    limits.push({
      by: 'wasm32',
      workers: 0,
      detail: `a wasm worker cannot use more than 4 GiB; this one needs ${formatBytes(perWorkerBytes)}`,
    });
  }
  const forTrials = Math.max(0, usableBytes - sharedBytes);
  const byMemory =
    perWorkerBytes > 0 ? Math.floor(forTrials / perWorkerBytes) : Number.MAX_SAFE_INTEGER;
  limits.push({
    by: 'memory',
    workers: byMemory,
    detail: resident
      ? `floor((${formatBytes(usableBytes)} − ${formatBytes(sharedBytes)} shared) / ${formatBytes(perWorkerBytes)} per trial)`
      : `floor(${formatBytes(usableBytes)} / ${formatBytes(perWorkerBytes)} per worker)`,
  });
  // The profile's cap counts worker processes on its card (each with its own context, as the
  // seed's campaigns ran them); resident trials share one process, whose heartbeat caps them.
  if (resident)
    limits.push({
      by: 'trialsPerProcess',
      workers: MAX_TRIALS_PER_PROCESS,
      detail: `trials one worker process heartbeats at once`,
    });
  else if (device === 'gpu')
    limits.push({
      by: 'maxWorkers',
      workers: settings.maxWorkers,
      detail: `profile ${input.profile.name}, ${input.workload}.maxWorkers; source: ${settings.source}`,
    });
  // Resident trials step no env on the CPU: one process per card holds them all.
  if (!resident)
    limits.push({
      by: 'cpuCores',
      workers: input.cpuCores,
      detail:
        device === 'gpu'
          ? `${input.cpuCores} CPU cores (envs and data run on the CPU)`
          : `${input.cpuCores} CPU cores (the ${input.backend} backend computes on them${input.profile.vendor === 'cpu' ? '' : `, not on the card: profile ${input.profile.name}'s ${input.workload}.maxWorkers ${settings.maxWorkers} is for its card`})`,
    });

  const binding = limits.reduce((min, l) => (l.workers < min.workers ? l : min));
  const workers = binding.workers;
  return {
    profile: input.profile.name,
    workload: input.workload,
    backend: input.backend,
    device,
    dtype,
    batchSize,
    nEnvs,
    targetStep,
    paramCount,
    perWorker: terms,
    perWorkerBytes,
    shared,
    sharedBytes,
    trialsPerProcess: resident ? Math.max(1, workers) : 1,
    memoryKind: budget.kind,
    usable,
    workers,
    limitedBy: binding.by,
    limits,
    fits:
      workers >= 1 && (input.requestedWorkers === undefined || workers === input.requestedWorkers),
  };
}

/**
 * Per-env u32 and f32 fields of the env on the card besides holdings (gpu/kernels/
 * trading-env-step.ts: ENV_FLOATS' 7 scalars, ENV_WORD_BLOCKS 10); the planner test holds them
 * to the kernel's constants.
 */
export const RESIDENT_ENV_SCALARS = 17;

/** A rollout step's slot in its uniform buffer (gpu/pipeline-cache.ts's MINIBATCH_STRIDE). */
const STEP_UNIFORM_BYTES = 256;

/** A resident trial's rollout and env on the card, as GpuRollout and GpuTradingEnv allocate them. */
function residentRolloutTerms(
  model: MlpShape,
  nEnvs: number,
  targetStep: number,
  batchSize: number,
  passes: number,
): Term[] {
  const { obsDim, actDim } = model;
  // Rows as the rollout makes them: whole steps of every env.
  const steps = Math.max(1, Math.round(targetStep / nEnvs));
  const rows = steps * nEnvs;
  const row = obsDim + actDim + 4;
  const perRow = 2 * row + 7 + passes;
  // The env's fields, its actions and observations, and the rollout's 3 per-env values.
  const perEnv = RESIDENT_ENV_SCALARS + 3 * actDim + obsDim + 3;
  const minibatchSteps = passes * Math.ceil(rows / Math.min(batchSize, rows));
  return [
    {
      label: 'rollout on the card',
      bytes: rows * perRow * 4 + steps * STEP_UNIFORM_BYTES,
      formula: `${formatCount(rows)} rows × (2 × (${obsDim} obs + ${actDim} act + 4) gathered + 7 per-step + ${passes} passes' order) × 4 B + ${formatCount(steps)} steps × ${STEP_UNIFORM_BYTES} B uniforms`,
    },
    {
      label: 'minibatch gather',
      bytes: Math.min(batchSize, rows) * (actDim + 4) * 4 + minibatchSteps * STEP_UNIFORM_BYTES,
      formula: `batch ${formatCount(Math.min(batchSize, rows))} × (${actDim} act + 4) × 4 B (its obs are in the activations) + ${formatCount(minibatchSteps)} minibatch steps × ${STEP_UNIFORM_BYTES} B uniforms`,
    },
    {
      label: 'env state',
      bytes: nEnvs * perEnv * 4,
      formula: `${formatCount(nEnvs)} envs × (${RESIDENT_ENV_SCALARS} + 3 × ${actDim} assets + ${obsDim} obs + 3 rollout values) × 4 B`,
    },
  ];
}

function defaultBatch(input: PlanInput): number {
  const w = input.profile.workloads;
  switch (input.workload) {
    case 'drl':
      return w.drl.batchSize;
    case 'forecast':
      return forecastSettingsAt(input.profile, input.timeframe ?? '1h').batchSize;
    case 'tcn':
      return w.tcn.chunksPerBatch;
  }
}

/** Seed 003's TCN-12 with 512 channels, as tradelab builds and trains it (checkpointed). */
export const SEED_TCN_MODEL: TcnModel = { kind: 'tcn', ...SEED_TCN_SHAPE };

/** The model of a workload that names none: seed 003's TCN; drl, and forecast on the host, need theirs. */
function defaultModel(input: PlanInput): MlpModel | TcnModel | SizedModel {
  if (input.workload === 'tcn') return SEED_TCN_MODEL;
  if (input.workload === 'drl')
    throw new TradelabError(
      'INVALID_ARGUMENT',
      'the drl workload needs a model: {kind: "mlp", obsDim, actDim, netDim, layers} or {kind: "params", paramCount}',
    );
  // The profile's memory per forecasting model is tfjs's on the card (seed 004's VRAM figures).
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `the forecast workload on the ${input.backend} backend needs its model: profile ${input.profile.name}'s memoryPerModelGb is for tfjs's webgpu on its card, and this backend's memory is its model's own`,
    { hint: 'pass model: {kind: "tcn", …} or {kind: "params", paramCount, activationsPerSample}' },
  );
}

function assertPositive(values: Record<string, number>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${name} must be a positive whole number, got ${value}`,
      );
    }
  }
}

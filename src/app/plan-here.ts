import { availableParallelism, freemem, totalmem } from 'node:os';
import type { BackendChoice } from '../config/index.js';
import { TradelabError } from '../core/index.js';
import {
  computeDevice,
  planWorkers,
  SEED_TCN_SHAPE,
  type DatasetShape,
  type ForecastTimeframe,
  type GpuProfile,
  type MeasuredMemory,
  type MemoryBudget,
  type PlanBackend,
  type PlanDtype,
  type ProfileChoice,
  type SizedModel,
  type TcnShape,
  type Workload,
  type WorkerPlan,
} from '../profiles/index.js';
import {
  forecastModelDefaults,
  forecastPlanModel,
  type ForecastModelShape,
} from './forecast-plan-model.js';
import type { Project } from './open-project.js';

/** What to plan: the workload and its model; unset fields take the profile's or our defaults. */
export interface PlanRequest {
  /** Default `drl`. */
  workload?: Workload;
  /** `drl` hidden width. Default: min(1024, the profile's `netDimMax`). */
  netDim?: number;
  /** `drl` hidden layers per network. Default 3 (ElegantRL's ActorPPO/CriticPPO). */
  layers?: number;
  /** Default: the profile's batch size for the workload. */
  batchSize?: number;
  /** Envs per worker. Default 16. */
  nEnvs?: number;
  /** Default 2 × batchSize. */
  targetStep?: number;
  /** Worker count to check; default: as many as fit. */
  workers?: number;
  /** Dataset: default seed 000's 30m campaign, 8,615 bars of 10 assets with 7 features. */
  dataset?: DatasetShape;
  /** Observation window in bars. Default 1. */
  lookback?: number;
  dtype?: PlanDtype;
  timeframe?: ForecastTimeframe;
  measured?: MeasuredMemory;
  /** `drl`: a model given by its size (another architecture than the MLP pair). */
  sizedModel?: SizedModel;
  /**
   * `drl` on the engine: plan whole trials resident on the card. Default: when the trial workers
   * will really train on the engine here ({@link engineRunsHere}).
   */
  resident?: boolean;
  /** `tcn`: the network and chunk length; unset fields are seed 003's (SEED_TCN_SHAPE). */
  tcn?: Partial<TcnShape>;
  /** `forecast`: the set's model; unset fields are `train forecast`'s defaults for its kind. */
  forecast?: Partial<ForecastModelShape>;
}

/** Seed 000's 30m campaign data, and the env benchmark's asset and feature counts. */
export const DEFAULT_DATASET: DatasetShape = { bars: 8615, assets: 10, features: 7 };

/** A plan with the profile choice behind it. */
export interface PlanHere {
  choice: ProfileChoice;
  plan: WorkerPlan;
  /** The memory budget planned against. */
  memory: MemoryBudget;
}

/**
 * `auto` is wasm on a CPU profile and tradelab's GPU engine (`gpu`) on a GPU profile, as the compute
 * layer's `auto` is where it finds a hardware adapter. Whether one really exists is the compute
 * layer's check; the planner plans for the choice.
 */
export function resolvePlanBackend(choice: BackendChoice, profile: GpuProfile): PlanBackend {
  if (choice === 'auto') return profile.vendor === 'cpu' ? 'wasm' : 'gpu';
  // `gpu` is planned on the host's limits whatever the profile (computeDevice): Dawn finding an
  // adapter the profile detection did not see is no reason to refuse it.
  if (choice === 'webgpu' && profile.vendor === 'cpu') {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `backend webgpu needs a GPU, and profile ${profile.name} has none`,
      {
        hint: 'use --backend wasm, or choose a GPU profile with --profile',
      },
    );
  }
  return choice;
}

/** What this machine offers workers: the profile in use, the backend planned for, the memory. */
export interface MachineBudget {
  choice: ProfileChoice;
  backend: PlanBackend;
  /** The GPU's memory when the backend computes on it, else the host's. */
  memory: MemoryBudget;
  safetyFactor: number;
}

/**
 * The profile, backend and memory this project plans `workload` against here (detects GPUs
 * once). Default workload: drl.
 */
export async function machineBudget(
  project: Project,
  workload: Workload = 'drl',
  modelKind?: 'mlp' | 'tcn' | 'params',
): Promise<MachineBudget> {
  const choice = await project.chooseProfile();
  const { profile } = choice;
  const backend = resolvePlanBackend(project.config.settings.backend, profile);
  const memory: MemoryBudget =
    computeDevice(profile, backend, workload, modelKind) === 'gpu'
      ? {
          kind: 'gpu',
          totalBytes: profile.vramGb * 1024 ** 3,
          ...(choice.freeBytes === undefined
            ? {}
            : {
                freeBytes: choice.freeBytes,
                freeSource: `${choice.gpu?.tool ?? 'detection'} GPU ${choice.gpu?.index ?? 0}`,
              }),
        }
      : { kind: 'host', totalBytes: totalmem(), freeBytes: freemem(), freeSource: 'the OS' };
  return { choice, backend, memory, safetyFactor: project.config.settings.safetyFactor };
}

/**
 * Whether this project's trial workers will train on tradelab's engine here: `--backend gpu`, or
 * `auto` on a GPU profile with a hardware adapter (as the workers' useBackend decides).
 */
export async function engineRunsHere(project: Project): Promise<boolean> {
  // Loaded here: compute/ brings TensorFlow.js, which planning on the CPU does not need.
  const { chooseBackend } = await import('../compute/index.js');
  const choice = await project.chooseProfile();
  const decision = await chooseBackend(project.config.settings.backend, {
    gpuProfile: choice.profile.vendor !== 'cpu',
  });
  return decision.name === 'gpu';
}

/** Plans workers for this project on this machine: the chosen profile, its memory, this CPU. */
export async function planHere(project: Project, request: PlanRequest = {}): Promise<PlanHere> {
  const workload = request.workload ?? 'drl';
  // A forecasting set of window MLPs is sized as `params`, and the engine leaves it on the host.
  const forecastKind = request.forecast?.kind === 'mlp' ? 'params' : 'tcn';
  const { choice, backend, memory, safetyFactor } = await machineBudget(
    project,
    workload,
    workload === 'forecast' ? forecastKind : undefined,
  );
  const { profile } = choice;
  const dataset = request.dataset ?? DEFAULT_DATASET;
  const lookback = request.lookback ?? 1;
  const plan = planWorkers({
    profile,
    workload,
    backend,
    memory,
    cpuCores: availableParallelism(),
    safetyFactor,
    // The DRL env's arrays; a TCN or forecast worker streams its chunks instead.
    ...(workload === 'drl' || request.dataset !== undefined ? { dataset } : {}),
    ...(workload === 'tcn'
      ? { model: { kind: 'tcn' as const, ...SEED_TCN_SHAPE, ...request.tcn } }
      : {}),
    ...(workload === 'forecast'
      ? {
          model: forecastPlanModel({
            ...forecastModelDefaults(request.forecast?.kind),
            ...request.forecast,
          }),
        }
      : {}),
    nEnvs: request.nEnvs ?? 16,
    // A trading trial's MLP trains resident on the engine's card (trading/train-split.ts).
    residentTrials:
      workload === 'drl' &&
      request.sizedModel === undefined &&
      backend === 'gpu' &&
      (request.resident ?? (await engineRunsHere(project))),
    ...(workload === 'drl' && request.sizedModel !== undefined
      ? { model: request.sizedModel }
      : workload === 'drl'
        ? {
            model: {
              kind: 'mlp' as const,
              obsDim: 1 + dataset.assets + dataset.assets * dataset.features * lookback,
              actDim: dataset.assets,
              netDim: request.netDim ?? Math.min(1024, profile.workloads.drl.netDimMax),
              layers: request.layers ?? 3,
            },
          }
        : {}),
    ...optional({
      batchSize: request.batchSize,
      targetStep: request.targetStep,
      requestedWorkers: request.workers,
      dtype: request.dtype,
      timeframe: request.timeframe,
      measured: request.measured,
    }),
  });
  return { choice, plan, memory };
}

/** Drops undefined fields, as `exactOptionalPropertyTypes` wants. */
function optional<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

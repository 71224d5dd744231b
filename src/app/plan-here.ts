import { availableParallelism, freemem, totalmem } from 'node:os';
import type { BackendChoice } from '../config/index.js';
import { TradelabError } from '../core/index.js';
import {
  planWorkers,
  type DatasetShape,
  type GpuProfile,
  type MeasuredMemory,
  type MemoryBudget,
  type PlanBackend,
  type PlanDtype,
  type ProfileChoice,
  type SizedModel,
  type Workload,
  type WorkerPlan,
} from '../profiles/index.js';
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
  timeframe?: '1d' | '1h';
  measured?: MeasuredMemory;
  /** `drl`: a model given by its size (another architecture than the MLP pair). */
  sizedModel?: SizedModel;
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
 * `auto` computes on the GPU (WebGPU) for a GPU profile and on the CPU (wasm) otherwise. Whether a
 * WebGPU adapter really exists is the compute layer's check; the planner plans for the choice.
 */
export function resolvePlanBackend(choice: BackendChoice, profile: GpuProfile): PlanBackend {
  if (choice === 'auto') return profile.vendor === 'cpu' ? 'wasm' : 'webgpu';
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

/** Plans workers for this project on this machine: the chosen profile, its memory, this CPU. */
export async function planHere(project: Project, request: PlanRequest = {}): Promise<PlanHere> {
  const choice = await project.chooseProfile();
  const { profile } = choice;
  const backend = resolvePlanBackend(project.config.settings.backend, profile);
  const onGpu = profile.vendor !== 'cpu' && backend === 'webgpu';
  const memory: MemoryBudget = onGpu
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
  const workload = request.workload ?? 'drl';
  const dataset = request.dataset ?? DEFAULT_DATASET;
  const lookback = request.lookback ?? 1;
  const plan = planWorkers({
    profile,
    workload,
    backend,
    memory,
    cpuCores: availableParallelism(),
    safetyFactor: project.config.settings.safetyFactor,
    dataset,
    nEnvs: request.nEnvs ?? 16,
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

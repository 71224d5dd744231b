import { availableParallelism } from 'node:os';
import { nativeTransformerKernelsActive, useBackend } from '../compute/index.js';
import type { BackendChoice } from '../config/index.js';
import { plural } from '../core/index.js';
import { openDatasetStore } from '../data/index.js';
import { ftTransformerSize } from '../models/index.js';
import {
  formatBytes,
  mlpParamCount,
  mlpTrainingElementsPerSample,
  planWorkers,
  type GpuProfile,
  type MemoryBudget,
  type PlanBackend,
  type SizedModel,
} from '../profiles/index.js';
import type { Objective, ObjectiveSetup } from '../tune/index.js';
import { createDrlObjective, type TrialShape } from './drl-objective.js';
import { loadStudyData } from './study-data.js';

/*
 * The built-in `drl` objective as a module, for worker processes. Everything a worker needs comes
 * in its start message (`setup.options`, a {@link DrlWorkerSettings}), resolved once by the process
 * that runs the study: no worker reads the environment or re-detects the GPU.
 */

/** What a trading study's workers are sent: where the data is, what to compute on, the budget. */
export interface DrlWorkerSettings {
  /** The dataset store's directory. */
  dataDir: string;
  /** The compute backend (`auto` is resolved in the worker, with `gpuProfile`). */
  backend: BackendChoice;
  /** Whether the profile in use is a GPU one (`auto` may then take webgpu: see useBackend). */
  gpuProfile: boolean;
  /** The planner's inputs for each trial's memory check. */
  budget: {
    profile: GpuProfile;
    backend: PlanBackend;
    memory: MemoryBudget;
    safetyFactor: number;
  };
}

/**
 * The native GEMM threads of each of `workers` trial workers on this machine: the cores shared
 * out, so that a pool of N workers on N cores keeps one thread each and `--workers 1` uses them
 * all. tradelab's kernels give the same bits on any thread count, so a trial's result does not
 * depend on how many workers ran beside it.
 */
export function workerThreads(workers: number, cores: number = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / Math.max(1, workers)));
}

/** The `drl` objective of one worker, its products on its share of the cores. */
export async function createObjective(setup: ObjectiveSetup): Promise<Objective> {
  const settings = setup.options as unknown as DrlWorkerSettings;
  const active = await useBackend(settings.backend, {
    gpuProfile: settings.gpuProfile,
    nativeThreads: workerThreads(setup.workers),
  });
  return createDrlObjective({
    gpu: active.gpu,
    loadMarket: (spec) => loadStudyData(openDatasetStore(settings.dataDir), spec),
    memoryCheck: (shape) =>
      Promise.resolve(
        memoryShortfall(settings, setup.workers, shape, {
          fusedAttention: nativeTransformerKernelsActive(),
          trialsPerWorker: setup.slots ?? 1,
        }),
      ),
  });
}

/**
 * Why a trial of `shape` does not fit when `workers` run at once, judged by memory alone: the
 * cores and the profile's worker cap shape how many workers a run starts, not whether a trial fits.
 * `fusedAttention`: the FT-Transformer's attention runs on the native kernels, which hold no
 * T × T scores. `trialsPerWorker`: trials each worker runs at once (resident on the engine's
 * card, they share one process's context and dataset).
 */
export function memoryShortfall(
  settings: Pick<DrlWorkerSettings, 'budget'>,
  workers: number,
  shape: TrialShape,
  options: { fusedAttention?: boolean; trialsPerWorker?: number } = {},
): string | undefined {
  const { budget } = settings;
  const resident = shape.ppo.policy === 'mlp';
  const atOnce = workers * (resident ? (options.trialsPerWorker ?? 1) : 1);
  const plan = planWorkers({
    profile: budget.profile,
    workload: 'drl',
    backend: budget.backend,
    memory: budget.memory,
    cpuCores: atOnce,
    safetyFactor: budget.safetyFactor,
    residentTrials: resident,
    repeatTimes: shape.ppo.repeatTimes,
    dataset: { bars: shape.bars, assets: shape.assets, features: shape.features },
    nEnvs: shape.ppo.nEnvs,
    batchSize: shape.ppo.batchSize,
    targetStep: shape.ppo.targetStep,
    model:
      shape.ppo.policy === 'ft_transformer'
        ? ftTransformerPolicySize(shape, options.fusedAttention === true)
        : {
            kind: 'mlp',
            obsDim: shape.obsDim,
            actDim: shape.assets,
            netDim: shape.ppo.netDim,
            layers: shape.ppo.layers,
          },
  });
  const limit = plan.limits.find(
    (l) => (l.by === 'memory' || l.by === 'wasm32') && l.workers < atOnce,
  );
  if (limit === undefined) return undefined;
  const unit = plan.trialsPerProcess > 1 || plan.shared.length > 0 ? 'trial' : 'worker';
  return `netDim ${shape.ppo.netDim}, batchSize ${shape.ppo.batchSize}, nEnvs ${shape.ppo.nEnvs} needs ${formatBytes(plan.perWorkerBytes)} per ${unit}; ${plural(atOnce, unit)} do${atOnce === 1 ? 'es' : ''} not fit (${limit.detail})`;
}

/** An FT-Transformer actor beside the MLP critic, sized for the planner. */
function ftTransformerPolicySize(shape: TrialShape, fusedAttention: boolean): SizedModel {
  const actor = ftTransformerSize(
    { inputs: shape.obsDim, outputs: shape.assets },
    { fusedAttention },
  );
  // The MLP pair's figures, less its actor: half the hidden stack, one output.
  const mlp = {
    obsDim: shape.obsDim,
    actDim: shape.assets,
    netDim: shape.ppo.netDim,
    layers: shape.ppo.layers,
  };
  const critic = Math.ceil(mlpParamCount(mlp) / 2);
  return {
    kind: 'params',
    paramCount: actor.paramCount + critic + shape.assets,
    activationsPerSample:
      actor.activationsPerSample + Math.ceil(mlpTrainingElementsPerSample(mlp) / 2),
    source: 'FT-Transformer actor (estimate) + MLP critic',
  };
}

import { availableParallelism } from 'node:os';
import type { StudyRecord } from '../storage/index.js';
import type { DrlStudySpec, DrlWorkerSettings } from '../trading/index.js';
import type { Project } from './open-project.js';
import { DEFAULT_DATASET, machineBudget, planHere, type PlanHere } from './plan-here.js';

/**
 * What a study run sends each of its worker processes for the objective (`setup.options`): the
 * settings this run resolved — flags, environment and config file — and the machine's budget,
 * detected once here rather than once per worker.
 */
export async function workerSettings(project: Project): Promise<DrlWorkerSettings> {
  const { choice, backend, memory, safetyFactor } = await machineBudget(project);
  return {
    dataDir: project.config.settings.dataDir,
    backend: project.config.settings.backend,
    gpuProfile: choice.profile.vendor !== 'cpu',
    budget: { profile: choice.profile, backend, memory, safetyFactor },
  };
}

/** How many workers fit for a study, and what the plan was made for. */
export interface StudyPlan extends PlanHere {
  /** The model planned for: a trading study's largest trial, else the profile's default. */
  model: string | undefined;
}

/**
 * Plans workers for a study: a trading study (`drl`, its spec) for its largest model, so no trial
 * fails for memory; another for the profile's default.
 */
export async function planStudyWorkers(
  project: Project,
  drl: DrlStudySpec | undefined,
): Promise<StudyPlan> {
  if (drl === undefined) return { ...(await planHere(project)), model: undefined };
  // Loaded here: trading/ brings TensorFlow.js, which planning a plain study does not need.
  const { largestTrial } = await import('../trading/index.js');
  const largest = largestTrial(drl);
  const planned = await planHere(project, {
    workload: 'drl',
    netDim: largest.netDim,
    layers: largest.layers,
    batchSize: largest.batchSize,
    nEnvs: largest.nEnvs,
    targetStep: largest.targetStep,
    dataset: {
      bars: largest.dataset.bars,
      assets: largest.dataset.assets,
      features: largest.dataset.features ?? DEFAULT_DATASET.features,
    },
    lookback: largest.lookback,
    // The FT-Transformer's trials keep their env on the CPU (trading/train-split.ts).
    ...(drl.policy === 'ft_transformer' ? { resident: false } : {}),
  });
  return {
    ...planned,
    model: `the study's largest model (netDim ${largest.netDim}, batchSize ${largest.batchSize}, nEnvs ${largest.nEnvs})`,
  };
}

/** A warning when more workers than CPU cores will run (each steps its envs on the CPU). */
export function oversubscription(workers: number): string | undefined {
  const cores = availableParallelism();
  if (workers <= cores) return undefined;
  return `${workers} workers on ${cores} CPU cores: they will share cores, and each trial runs slower (trials/hour rarely rises past one worker per core)`;
}

/** A stored study's trading spec, if it is a trading study. */
export function drlSpecOf(study: StudyRecord): DrlStudySpec | undefined {
  return study.systemAttrs.drl as DrlStudySpec | undefined;
}

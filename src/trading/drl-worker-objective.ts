import { openDatasetStore } from '../data/index.js';
import { loadStudyData } from './study-data.js';
import type { SizedModel } from '../profiles/index.js';
import { openProject, planHere, startBackend, type Project } from '../app/index.js';
import { mlpParamCount, mlpTrainingElementsPerSample } from '../profiles/planner/mlp-size.js';
import { ftTransformerSize } from '../models/ft-transformer.js';
import { createDrlObjective, type TrialShape } from './drl-objective.js';
import type { Trial } from '../tune/trial.js';

/*
 * The built-in `drl` objective as a module, for worker processes. The project (config, dataset
 * store, profile, backend) is the one `study run` resolved and passed down in the environment;
 * a worker's memory share is what the planner fits for TRADELAB_WORKERS workers.
 */

let project: Project | undefined;
let backend: Promise<unknown> | undefined;

const here = (): Project => (project ??= openProject());

const drl = createDrlObjective({
  loadMarket: (spec) => loadStudyData(openDatasetStore(here().config.settings.dataDir), spec),
  memoryCheck: async (shape) => {
    const workers = Math.max(1, Number(process.env.TRADELAB_WORKERS ?? 1) || 1);
    const { plan } = await planHere(here(), {
      workload: 'drl',
      ...(shape.ppo.policy === 'ft_transformer'
        ? { sizedModel: ftTransformerPolicySize(shape) }
        : {}),
      netDim: shape.ppo.netDim,
      layers: shape.ppo.layers,
      batchSize: shape.ppo.batchSize,
      nEnvs: shape.ppo.nEnvs,
      targetStep: shape.ppo.targetStep,
      workers,
      dataset: { bars: shape.bars, assets: shape.assets, features: shape.features },
      lookback: shape.lookback,
    });
    if (plan.fits) return undefined;
    const limit = plan.limits.find((l) => l.workers < workers) ?? plan.limits[0];
    return `netDim ${shape.ppo.netDim}, batchSize ${shape.ppo.batchSize}, nEnvs ${shape.ppo.nEnvs} needs ${(plan.perWorkerBytes / 2 ** 20).toFixed(0)} MiB per worker; ${workers} workers do not fit (${limit?.detail ?? plan.limitedBy})`;
  },
});

/** One DRL trial: the backend is started once per worker, one thread (workers fill the cores). */
export async function objective(trial: Trial): Promise<number> {
  backend ??= startBackend(here(), { nativeThreads: 1 });
  await backend;
  return drl(trial);
}

/** An FT-Transformer actor beside the MLP critic, sized for the planner. */
function ftTransformerPolicySize(shape: TrialShape): SizedModel {
  const actor = ftTransformerSize({ inputs: shape.obsDim, outputs: shape.assets });
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

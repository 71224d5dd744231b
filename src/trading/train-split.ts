import { ResidentPpo, residentUnsupported } from '../agents/gpu-resident-ppo.js';
import type { PpoConfig } from '../agents/ppo-config.js';
import { disposePpoNetworks, type PpoNetworks } from '../agents/ppo-update.js';
import { PpoTrainer } from '../agents/ppo.js';
import type { Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import { VectorTradingEnv, type EnvRange, type TradingEnvOptions } from '../env/index.js';
import { evaluate, type RangeEvaluation } from '../eval/evaluate.js';
import type { GpuDevice } from '../gpu/index.js';

/*
 * One split's training for a trading trial, wherever it runs. With tradelab's GPU engine a trial
 * whose settings the device path covers (residentUnsupported) trains resident: env, rollout and
 * update on the device, nothing crossing per step; otherwise the env steps on the CPU and the
 * update runs on the engine (an MLP) or on tfjs. A resident split's test ranges are evaluated on
 * the device too (GpuEvaluation), and its networks come back only to be saved.
 */

/** Where a split's env stepped and its update ran. */
export interface SplitPlacement {
  env: 'gpu' | 'cpu';
  update: 'gpu' | 'cpu';
  /** Why a trial on the GPU engine kept its env on the CPU. */
  envOnCpuBecause?: string;
}

/** Env options as the evaluator takes them (one env per range, each run to its end). */
export type EvaluationEnvOptions = Omit<
  TradingEnvOptions,
  'ranges' | 'nEnvs' | 'randomStart' | 'episodeLength'
>;

/** A trained split: evaluates its deterministic policy and gives its networks until disposed. */
export interface TrainedSplit {
  /** The deterministic policy on `ranges`: on the device for a resident split. */
  evaluate(ranges: readonly EnvRange[], options: EvaluationEnvOptions): Promise<RangeEvaluation[]>;
  /** The trained networks (read from the device once, for a resident split); the split owns them. */
  networks(): Promise<PpoNetworks>;
  placement: SplitPlacement;
  envSteps: number;
  rolloutSeconds: number;
  updateSeconds: number;
  dispose(): void;
}

/** What one split trains on. */
export interface SplitTrainingInput {
  data: MarketData;
  normalizer: Normalizer | undefined;
  ppo: PpoConfig;
  /** The env's options with the split's train ranges. */
  env: TradingEnvOptions;
  /** The split's index (its envs' seed is ppo.seed × 1000 + index). */
  index: number;
  gpu: GpuDevice | undefined;
}

/** Trains one split; `progress(envSteps, totalEnvSteps)` after every update. */
export async function trainSplit(
  input: SplitTrainingInput,
  progress: (done: number, total: number) => void,
): Promise<TrainedSplit> {
  const { gpu, ppo } = input;
  if (gpu === undefined) return trainOnCpuEnv(input, progress, { env: 'cpu', update: 'cpu' });
  const unsupported = residentUnsupported(ppo, input.env);
  if (unsupported === undefined) return trainResident(input, gpu, progress);
  return trainOnCpuEnv(input, progress, {
    env: 'cpu',
    update: ppo.policy === 'mlp' ? 'gpu' : 'cpu',
    envOnCpuBecause: unsupported,
  });
}

async function trainOnCpuEnv(
  input: SplitTrainingInput,
  progress: (done: number, total: number) => void,
  placement: SplitPlacement,
): Promise<TrainedSplit> {
  const { ppo } = input;
  const env = new VectorTradingEnv(input.data, input.normalizer, {
    ...input.env,
    nEnvs: ppo.nEnvs,
    seed: ppo.seed * 1000 + input.index,
  });
  const trainer = new PpoTrainer(
    env,
    ppo,
    placement.update === 'gpu' && input.gpu !== undefined ? { gpu: input.gpu } : {},
  );
  try {
    // What a split really runs: whole updates of targetStep, so breakStep rounded up.
    const total = trainer.totalUpdates * ppo.targetStep;
    const reports = await trainer.train({
      onUpdate: (r) => {
        progress(r.envSteps, total);
      },
    });
    return {
      evaluate: (ranges, options) =>
        evaluate(input.data, input.normalizer, trainer.policy(), ranges, options),
      networks: () => Promise.resolve(trainer.nets),
      placement,
      envSteps: trainer.envSteps,
      rolloutSeconds: reports.reduce((s, r) => s + r.rolloutSeconds, 0),
      updateSeconds: reports.reduce((s, r) => s + r.updateSeconds, 0),
      dispose: () => {
        trainer.dispose();
      },
    };
  } catch (error) {
    trainer.dispose();
    throw error;
  }
}

async function trainResident(
  input: SplitTrainingInput,
  gpu: GpuDevice,
  progress: (done: number, total: number) => void,
): Promise<TrainedSplit> {
  const { ppo } = input;
  const run = await ResidentPpo.create(
    gpu,
    input.data,
    input.normalizer,
    { ...input.env, seed: ppo.seed * 1000 + input.index },
    ppo,
  );
  try {
    let rolloutSeconds = 0;
    let updateSeconds = 0;
    const total = run.totalUpdates * run.envStepsPerUpdate;
    while (!run.finished) {
      const report = await run.update();
      rolloutSeconds += report.rolloutSeconds;
      updateSeconds += report.seconds - report.rolloutSeconds;
      progress(run.envSteps, total);
    }
    let nets: Promise<PpoNetworks> | undefined;
    return {
      evaluate: (ranges, options) => run.evaluate(input.data, input.normalizer, ranges, options),
      networks: () => (nets ??= run.networks()),
      placement: { env: 'gpu', update: 'gpu' },
      envSteps: run.envSteps,
      rolloutSeconds,
      updateSeconds,
      dispose: () => {
        run.destroy();
        void nets?.then(disposePpoNetworks);
      },
    };
  } catch (error) {
    run.destroy();
    throw error;
  }
}

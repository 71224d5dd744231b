import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GpuDevice } from '../gpu/index.js';
import { savePpoModel } from '../agents/ppo-checkpoint.js';
import { resolvePpoConfig, type PpoConfig } from '../agents/ppo-config.js';
import { evaluationEnvOptions, type RunEnvOptions } from '../agents/run-manifest.js';
import { memoryReport } from '../compute/memory-report.js';
import { fitNormalizer, type Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { TradelabError } from '../core/index.js';
import { makeOwnedTempDir, removeOwnedTempDir } from '../core/owned-temp-dir.js';
import { periodsPerYear } from '../eval/periods-per-year.js';
import type { Objective } from '../tune/objective.js';
import { TrialPruned, type Trial } from '../tune/trial.js';
import { studySplits, type StudySplits } from './cv-spec.js';
import { checkStudyData, withStudyEncoder } from './study-data.js';
import { aggregateSplits, barReturns, splitMetrics, type SplitResult } from './split-metrics.js';
import { suggestParams, trialConfigs } from './search-space.js';
import { trainSplit, type SplitPlacement, type TrainedSplit } from './train-split.js';
import { studyDefaults, type DrlStudySpec } from './study-spec.js';

/*
 * The DRL trial objective (seed 000's, made right): sample PPO's hyperparameters and the env's
 * settings, then per split train on the split's train ranges (the normalizer fitted on them
 * alone), evaluate the deterministic policy on each test range, and report the split's Sharpe
 * ratio so the pruner can stop a bad trial after a fold or two. A trial that does not fit the
 * worker's memory fails at once with that cause; running out of memory later is a failure too,
 * never a prune.
 */

/** The artifact names a trial writes. */
export const DRL_ARTIFACTS = {
  /** Float64 pairs (bar, return) of the out-of-sample bars, in bar order (CPCV: path mean). */
  oosReturns: 'oos-returns.f64',
  /** The best split's model (model.json and weights.bin of `tradelab train ppo`). */
  modelJson: 'model.json',
  modelWeights: 'weights.bin',
} as const;

/** The temp directory where a trial saves its best split's model before storing it. */
const TRIAL_DIR_PREFIX = 'tradelab-trial-';

/** What the objective asks of the process it runs in. */
export interface DrlObjectiveHost {
  /** Loads the study's market data from this worker's store. */
  loadMarket(spec: DrlStudySpec): Promise<MarketData>;
  /**
   * Why a trial's model would not fit this worker's share of memory, or undefined when it fits.
   * Asked before any training.
   */
  memoryCheck?(trial: TrialShape): Promise<string | undefined> | string | undefined;
  /** Keep the best split's model as artifacts. Default true. */
  keepModel?: boolean;
  /** tradelab's GPU engine (backend `gpu`): every split's updates run there. Default none. */
  gpu?: GpuDevice | undefined;
}

/** A trial's model and data sizes, for the memory check. */
export interface TrialShape {
  ppo: PpoConfig;
  obsDim: number;
  assets: number;
  features: number;
  bars: number;
  lookback: number;
}

/** A trading study's spec from its record, or a clear error when it is not a trading study. */
export function drlSpecOf(
  study: Readonly<{ name: string; systemAttrs: Record<string, unknown> }>,
): DrlStudySpec {
  const spec = study.systemAttrs.drl as DrlStudySpec | undefined;
  if (spec?.version !== 1)
    throw new TradelabError('INVALID_ARGUMENT', `study "${study.name}" is not a trading study`, {
      hint: 'create it with `tradelab study create NAME --preset P --data SYM:TF`, or run it with --objective MODULE',
    });
  return spec;
}

/** What a worker keeps between trials of one study: the data, its splits and their normalizers. */
interface StudyContext {
  data: MarketData;
  splits: StudySplits;
  normalizers: Normalizer[];
  periodsPerYear: number;
}

/** The DRL objective on `host`. */
export function createDrlObjective(host: DrlObjectiveHost): Objective {
  const contexts = new Map<string, Promise<StudyContext>>();
  const context = (spec: DrlStudySpec): Promise<StudyContext> => {
    const key = `${spec.data.spec}:${spec.data.digest}:${String(spec.features)}:${JSON.stringify(spec.cv)}:${spec.embargo}:${JSON.stringify(spec.holdout)}:${spec.lookback}`;
    let found = contexts.get(key);
    if (found === undefined) {
      found = loadContext(spec, host);
      contexts.set(key, found);
      found.catch(() => contexts.delete(key));
    }
    return found;
  };
  return async (trial: Trial): Promise<number> => {
    const spec = drlSpecOf(trial.study);
    return runDrlTrial(trial, spec, await context(spec), host);
  };
}

async function loadContext(spec: DrlStudySpec, host: DrlObjectiveHost): Promise<StudyContext> {
  const market = await host.loadMarket(spec);
  // A worker whose store holds other bars than the study's would score trials on them.
  checkStudyData(market, spec);
  const data = withStudyEncoder(market, spec);
  const splits = studySplits(data.timestamps.length, spec.cv, spec);
  const shape = { assets: data.symbols.length, features: data.featureNames.length };
  const normalizers = splits.splits.map((s) => fitNormalizer(data.techArray, shape, s.train));
  return {
    data,
    splits,
    normalizers,
    periodsPerYear: periodsPerYear(data.timeframe, data.calendar),
  };
}

/** Out-of-memory errors of tfjs and of the wasm heap, told apart from other failures. */
function isOutOfMemory(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /out of memory|allocation failed|cannot enlarge memory|memory access out of bounds|Array buffer allocation/i.test(
    message,
  );
}

async function runDrlTrial(
  trial: Trial,
  spec: DrlStudySpec,
  ctx: StudyContext,
  host: DrlObjectiveHost,
): Promise<number> {
  const values = suggestParams(trial, spec.params);
  // The study's own defaults first: a study keeps what it was created with.
  const configs = trialConfigs({ ...studyDefaults(spec), ...values }, spec.budgetScale);
  const ppo = resolvePpoConfig({
    policy: spec.policy,
    ...configs.ppo,
    // A retried trial (its worker died) runs on its original's seed, as the original would have.
    seed: spec.seed + trial.seedNumber,
  });
  const env: RunEnvOptions = { ...configs.env, lookback: spec.lookback };
  const { data } = ctx;
  const first = ctx.splits.splits[0];
  if (first === undefined)
    throw new TradelabError('INTERNAL', 'the study has no splits', { hint: 'check --cv' });
  const probe = new VectorTradingEnv(data, ctx.normalizers[0], { ...env, ranges: first.train });
  const shape: TrialShape = {
    ppo,
    obsDim: probe.obsDim,
    assets: data.symbols.length,
    features: data.featureNames.length,
    bars: data.timestamps.length,
    lookback: spec.lookback,
  };
  const tooBig = await host.memoryCheck?.(shape);
  if (tooBig !== undefined)
    throw new TradelabError('PLAN_DOES_NOT_FIT', `exceeds memory budget: ${tooBig}`, {
      hint: 'narrow the netDim/batchSize/nEnvs ranges, or run fewer workers',
    });

  const results: SplitResult[] = [];
  const oos = new Map<number, { sum: number; count: number }>();
  let envSteps = 0;
  let rolloutSeconds = 0;
  let updateSeconds = 0;
  let peakRss = 0;
  let peakTensorBytes = 0;
  let best: { split: number; value: number } | undefined;
  const modelDir = host.keepModel === false ? undefined : makeOwnedTempDir(TRIAL_DIR_PREFIX);
  // Where the splits trained (the same for every split of a trial).
  let placement: SplitPlacement = { env: 'cpu', update: 'cpu' };
  const attrs = (): Record<string, unknown> => ({
    updateDevice: placement.update,
    envDevice: placement.env,
    ...(placement.envOnCpuBecause === undefined
      ? {}
      : { envOnCpuBecause: placement.envOnCpuBecause }),
    splits: results,
    envSteps,
    rolloutSeconds,
    updateSeconds,
    peakRssBytes: peakRss,
    peakTensorBytes,
    bestSplit: best?.split ?? null,
  });
  try {
    for (const [index, split] of ctx.splits.splits.entries()) {
      const normalizer = ctx.normalizers[index];
      const splits = ctx.splits.splits.length;
      const splitStarted = performance.now();
      trial.progress(index / splits, `split ${index + 1}/${splits}: starting`);
      let result: SplitResult;
      let trained: TrainedSplit | undefined;
      try {
        trained = await trainSplit(
          { data, normalizer, ppo, env: { ...env, ranges: split.train }, index, gpu: host.gpu },
          (done, total) => {
            const seconds = (performance.now() - splitStarted) / 1000;
            const rate = done / Math.max(seconds, 1e-9);
            trial.progress(
              (index + done / total) / splits,
              `split ${index + 1}/${splits}: ${whole(done)}/${whole(total)} env steps, ${whole(rate)} env steps/s`,
            );
            const memory = memoryReport();
            peakRss = Math.max(peakRss, memory.rssBytes);
            peakTensorBytes = Math.max(peakTensorBytes, memory.tensorBytes);
          },
        );
        placement = trained.placement;
        const evaluations = await trained.evaluate(split.test, evaluationEnvOptions(env));
        const returns = barReturns(evaluations);
        returns.bars.forEach((bar, i) => {
          const cell = oos.get(bar) ?? { sum: 0, count: 0 };
          cell.sum += returns.returns[i] as number;
          cell.count++;
          oos.set(bar, cell);
        });
        result = {
          split: index,
          train: split.train,
          test: split.test,
          ...splitMetrics(evaluations, ctx.periodsPerYear),
          envSteps: trained.envSteps,
          rolloutSeconds: trained.rolloutSeconds,
          updateSeconds: trained.updateSeconds,
        };
        if (modelDir !== undefined && (best === undefined || result.sharpe > best.value)) {
          await savePpoModel(modelDir, await trained.networks(), {
            ppo,
            normalizer,
            meta: {
              data: {
                spec: spec.data.spec,
                symbols: data.symbols,
                timeframe: data.timeframe,
                featureNames: data.featureNames,
                sha256: spec.data.digest,
              },
              env,
              train: split.train,
              study: trial.study.name,
              trial: trial.number,
              split: index,
            },
          });
        }
      } catch (error) {
        if (isOutOfMemory(error))
          throw new TradelabError(
            'OUT_OF_MEMORY',
            `out of memory in split ${index} (netDim ${ppo.netDim}, batchSize ${ppo.batchSize}, nEnvs ${ppo.nEnvs}): ${(error as Error).message}`,
            {
              hint: 'narrow the netDim/batchSize/nEnvs ranges, or run fewer workers',
              cause: error,
            },
          );
        throw error;
      } finally {
        trained?.dispose();
      }
      if (best === undefined || result.sharpe > best.value)
        best = { split: index, value: result.sharpe };
      results.push(result);
      envSteps += result.envSteps;
      rolloutSeconds += result.rolloutSeconds;
      updateSeconds += result.updateSeconds;
      // The split's own figure: what the final value averages (excess when the study ranks by it).
      const reported =
        spec.aggregate.method === 'excess' ? result.sharpe - result.benchmarkSharpe : result.sharpe;
      await trial.report(reported, index);
      if (trial.shouldPrune()) {
        await trial.setUserAttrs({ ...attrs(), prunedAfterSplit: index });
        throw new TrialPruned(`pruned after split ${index}`);
      }
    }
    await trial.setUserAttrs(attrs());
    await trial.putArtifact(DRL_ARTIFACTS.oosReturns, encodeOosReturns(oos));
    if (modelDir !== undefined) {
      await trial.putArtifact(DRL_ARTIFACTS.modelJson, readFileSync(join(modelDir, 'model.json')));
      await trial.putArtifact(
        DRL_ARTIFACTS.modelWeights,
        readFileSync(join(modelDir, 'weights.bin')),
      );
    }
    return aggregateSplits(results, spec.aggregate);
  } finally {
    if (modelDir !== undefined) removeOwnedTempDir(modelDir);
  }
}

/** A whole number with thousands separators, for progress lines. */
function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** (bar, mean return) pairs as Float64, in bar order. */
export function encodeOosReturns(
  oos: ReadonlyMap<number, { sum: number; count: number }>,
): Uint8Array {
  const bars = [...oos.keys()].sort((a, b) => a - b);
  const out = new Float64Array(bars.length * 2);
  bars.forEach((bar, i) => {
    const cell = oos.get(bar) as { sum: number; count: number };
    out[2 * i] = bar;
    out[2 * i + 1] = cell.sum / cell.count;
  });
  return new Uint8Array(out.buffer);
}

/** The pairs {@link encodeOosReturns} wrote. */
export function decodeOosReturns(bytes: Uint8Array): { bars: Float64Array; returns: Float64Array } {
  const copy = new Float64Array(bytes.slice().buffer);
  const n = copy.length / 2;
  const bars = new Float64Array(n);
  const returns = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    bars[i] = copy[2 * i] as number;
    returns[i] = copy[2 * i + 1] as number;
  }
  return { bars, returns };
}

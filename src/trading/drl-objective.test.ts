import { beforeAll, describe, expect, it } from 'vitest';
import { disposeModel } from '../agents/backtest.js';
import { useBackend } from '../compute/backends.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { digestMarketData } from '../data/market-digest.js';
import { featureMarket } from '../env/synthetic-market.js';
import { openMemoryStorage } from '../storage/memory-storage.js';
import { optimize } from '../tune/optimize.js';
import type { Pruner } from '../tune/pruner.js';
import { NopPruner } from '../tune/pruners/index.js';
import { Study } from '../tune/study.js';
import {
  createDrlObjective,
  decodeOosReturns,
  DRL_ARTIFACTS,
  type DrlObjectiveHost,
} from './drl-objective.js';
import { loadPreset } from './presets.js';
import type { SplitResult } from './split-metrics.js';
import { resolveDrlStudy, type DrlStudySpec } from './study-spec.js';
import { evaluateTrialModel, holdoutRange, loadTrialModel } from './trial-model.js';

/*
 * The DRL objective on a real (in-memory) study with tiny budgets: per-split training and
 * reports, the stored results, pruning by fold, and failures that say why.
 */

const data = featureMarket({ assets: 2, bars: 1500, seed: 4, signal: 0.2 });

function spec(): DrlStudySpec {
  return resolveDrlStudy(
    {
      dataSpec: 'SYN0,SYN1:1h',
      market: {
        symbols: data.symbols,
        timeframe: data.timeframe,
        bars: data.timestamps.length,
        digest: digestMarketData(data),
      },
      cv: 'walk-forward:3',
      holdout: '20%',
      embargo: 5,
      params: {
        netDim: [16, 32],
        targetStep: 256,
        batchSize: 128,
        breakStep: 512,
        repeatTimes: 1,
        nEnvs: 4,
        episodeLength: 64,
      },
    },
    loadPreset('ensemble_balanced'),
  );
}

async function study(name: string, pruner: Pruner = new NopPruner()): Promise<Study> {
  return Study.create(
    openMemoryStorage(),
    {
      name,
      direction: 'maximize',
      systemAttrs: { drl: spec() },
      sampler: { type: 'random', seed: 1 },
    },
    { pruner },
  );
}

const host: DrlObjectiveHost = { loadMarket: () => Promise.resolve(data) };

beforeAll(async () => {
  await useBackend('wasm');
});

describe('the DRL objective', () => {
  it('trains and tests each split, reports each, and keeps what PBO and backtests need', async () => {
    const s = await study('complete');
    const summary = await optimize(s, createDrlObjective(host), { nTrials: 2 });
    expect(summary.complete).toBe(2);
    const [trial] = await s.storage.getTrials(s.id);
    if (trial === undefined) throw new Error('no trial');
    const splits = trial.userAttrs.splits as SplitResult[];
    expect(splits).toHaveLength(3);
    // One intermediate value per split, the split's Sharpe ratio; the value is their mean.
    expect(Object.keys(trial.intermediate).map(Number)).toEqual([0, 1, 2]);
    splits.forEach((split, i) => {
      expect(trial.intermediate[i]).toBeCloseTo(split.sharpe, 12);
    });
    expect(trial.value).toBeCloseTo(splits.reduce((sum, x) => sum + x.sharpe, 0) / 3, 12);
    for (const split of splits) {
      expect(split.envSteps).toBe(512);
      expect(Number.isFinite(split.benchmarkSharpe)).toBe(true);
    }
    expect(trial.userAttrs.envSteps).toBe(1536);
    expect(trial.userAttrs.peakRssBytes).toBeGreaterThan(0);
    expect(trial.userAttrs.updateDevice).toBe('cpu');

    // Out-of-sample returns: one per filled test bar, each tested once in walk-forward.
    const oos = decodeOosReturns(await s.storage.getArtifact(trial.id, DRL_ARTIFACTS.oosReturns));
    const expectedBars = splits.flatMap((x) =>
      x.test.flatMap(([start, end]) =>
        Array.from({ length: end - start - 1 }, (_, k) => start + 1 + k),
      ),
    );
    expect(Array.from(oos.bars)).toEqual(expectedBars);
    expect(oos.returns.every(Number.isFinite)).toBe(true);

    // The kept model is the best split's, with the normalizer fitted on that split's train ranges.
    const bestSplit = trial.userAttrs.bestSplit as number;
    expect(splits[bestSplit]?.sharpe).toBe(Math.max(...splits.map((x) => x.sharpe)));
    const model = await loadTrialModel(s.storage, trial);
    const shape = { assets: 2, features: data.featureNames.length };
    expect(model.normalizer?.toJSON()).toEqual(
      fitNormalizer(data.techArray, shape, splits[bestSplit]?.train ?? []).toJSON(),
    );
    disposeModel(model);
    const holdout = await evaluateTrialModel(s.storage, spec(), trial, data);
    expect(holdout.range).toEqual(holdoutRange(spec()));
    expect(Number.isFinite(holdout.metrics.sharpe)).toBe(true);

    // A kept model damaged in the storage is refused, named as the trial's.
    const weights = await s.storage.getArtifact(trial.id, DRL_ARTIFACTS.modelWeights);
    const damaged = Uint8Array.from(weights);
    damaged[8] = (damaged[8] as number) ^ 0x01;
    await s.storage.putArtifact(trial.id, DRL_ARTIFACTS.modelWeights, damaged);
    await expect(loadTrialModel(s.storage, trial)).rejects.toThrow(
      `weights.bin of trial ${trial.number}'s kept model: is corrupted`,
    );
  });

  it('says how far a trial has got: split i of n and env steps done of the split, rising to 1', async () => {
    const s = await study('progress');
    const seen: { number: number; fraction: number; detail: string }[] = [];
    await optimize(s, createDrlObjective(host), {
      nTrials: 1,
      onTrialProgress: (p) => seen.push(p),
    });
    // 3 splits × 2 updates of 256 env steps: a line at each split's start and after each update.
    const steps = seen.filter((p) => /env steps/.test(p.detail));
    expect(steps.map((p) => p.detail.replace(/, [\d,.]+ env steps\/s$/, ''))).toEqual([
      'split 1/3: 256/512 env steps',
      'split 1/3: 512/512 env steps',
      'split 2/3: 256/512 env steps',
      'split 2/3: 512/512 env steps',
      'split 3/3: 256/512 env steps',
      'split 3/3: 512/512 env steps',
    ]);
    expect(steps.every((p) => /env steps\/s$/.test(p.detail))).toBe(true);
    expect(steps.map((p) => p.fraction)).toEqual([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1]);
    const fractions = seen.map((p) => p.fraction);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(seen[0]).toMatchObject({ number: 0, fraction: 0, detail: 'split 1/3: starting' });
  });

  it('is pruned by fold: a pruner may stop a trial after its first split', async () => {
    const always: Pruner = { description: 'always', shouldPrune: () => true };
    const s = await study('pruned', always);
    const summary = await optimize(s, createDrlObjective(host), { nTrials: 1 });
    expect(summary.pruned).toBe(1);
    const [trial] = await s.storage.getTrials(s.id);
    expect(Object.keys(trial?.intermediate ?? {})).toEqual(['0']);
    expect(trial?.userAttrs.prunedAfterSplit).toBe(0);
    expect(trial?.value).toBe(trial?.intermediate[0]);
  });

  it('fails a trial that exceeds the memory budget at once, with that cause, never as a prune', async () => {
    const s = await study('memory');
    await s.storage.enqueueTrial(s.id, { params: { netDim: 32 } });
    const started = performance.now();
    const objective = createDrlObjective({
      ...host,
      memoryCheck: (shape) =>
        shape.ppo.netDim === 32 ? 'netDim 32 needs 9 GiB per worker' : undefined,
    });
    const summary = await optimize(s, objective, { nTrials: 1 });
    expect(summary.failed).toBe(1);
    expect(summary.pruned).toBe(0);
    const [trial] = await s.storage.getTrials(s.id);
    expect(trial?.failReason).toBe('exceeds memory budget: netDim 32 needs 9 GiB per worker');
    expect(trial?.userAttrs.splits).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('fails, saying so, when a worker sees other data than the study was created on', async () => {
    const s = await study('other-data');
    const other = featureMarket({ assets: 2, bars: 1500, seed: 5 });
    const summary = await optimize(
      s,
      createDrlObjective({ loadMarket: () => Promise.resolve(other) }),
      { nTrials: 1 },
    );
    expect(summary.failed).toBe(1);
    const [trial] = await s.storage.getTrials(s.id);
    expect(trial?.failReason).toMatch(/the dataset .* changed since the study was created on it/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { disposeModel } from '../agents/backtest.js';
import { useBackend } from '../compute/backends.js';
import { digestMarketData } from '../data/market-digest.js';
import { featureMarket } from '../env/synthetic-market.js';
import { openGpuDevice, type GpuDevice } from '../gpu/index.js';
import { openMemoryStorage } from '../storage/memory-storage.js';
import type { TrialRecord } from '../storage/records.js';
import { optimize } from '../tune/optimize.js';
import { Study } from '../tune/study.js';
import { createDrlObjective, type DrlObjectiveHost } from './drl-objective.js';
import { loadPreset } from './presets.js';
import type { SplitResult } from './split-metrics.js';
import { resolveDrlStudy, type DrlStudySpec } from './study-spec.js';
import { evaluateTrialModel, loadTrialModel } from './trial-model.js';

/*
 * A trading study's trials resident on the GPU engine (lavapipe in CI): every split's env,
 * rollout and update on the device, the kept model evaluated by the CPU code, and a seeded study
 * giving the same per-trial values on a rerun. Tiny budgets: lavapipe is the CPU.
 */

const found = await gpuTestAdapter('src/trading/drl-objective-gpu.test.ts');

const data = featureMarket({ assets: 2, bars: 900, seed: 4, signal: 0.2 });

function spec(policy: 'mlp' | 'ft_transformer' = 'mlp'): DrlStudySpec {
  return resolveDrlStudy(
    {
      policy,
      dataSpec: 'SYN0,SYN1:1h',
      market: {
        symbols: data.symbols,
        timeframe: data.timeframe,
        bars: data.timestamps.length,
        digest: digestMarketData(data),
      },
      cv: 'walk-forward:2',
      holdout: '20%',
      embargo: 5,
      params: {
        netDim: [16, 32],
        targetStep: 128,
        batchSize: 64,
        breakStep: 256,
        repeatTimes: 1,
        nEnvs: 8,
        episodeLength: 32,
      },
    },
    loadPreset('ensemble_balanced'),
  );
}

describe.skipIf(!found)('the DRL objective on the GPU engine', { timeout: 300_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  async function run(
    name: string,
    s: DrlStudySpec,
  ): Promise<{ study: Study; trials: TrialRecord[] }> {
    const study = await Study.create(openMemoryStorage(), {
      name,
      direction: 'maximize',
      systemAttrs: { drl: s },
      sampler: { type: 'random', seed: 3 },
    });
    const host: DrlObjectiveHost = { loadMarket: () => Promise.resolve(data), gpu };
    const summary = await optimize(study, createDrlObjective(host), { nTrials: 2 });
    expect(summary.failed).toBe(0);
    return { study, trials: summary.trials };
  }

  it('trains every split resident, keeps a model the CPU evaluates, and reruns identically', async () => {
    const first = await run('resident', spec());
    for (const trial of first.trials) {
      expect(trial.state).toBe('complete');
      expect(trial.userAttrs.envDevice).toBe('gpu');
      expect(trial.userAttrs.updateDevice).toBe('gpu');
      const splits = trial.userAttrs.splits as SplitResult[];
      expect(splits).toHaveLength(2);
      // 256 env steps in whole updates of 8 envs × 16 steps.
      for (const split of splits) expect(split.envSteps).toBe(256);
      expect(Number.isFinite(trial.value)).toBe(true);
    }
    const [trial] = first.trials;
    if (trial === undefined) throw new Error('no trial');
    const model = await loadTrialModel(first.study.storage, trial);
    disposeModel(model);
    const holdout = await evaluateTrialModel(first.study.storage, spec(), trial, data);
    expect(Number.isFinite(holdout.metrics.sharpe)).toBe(true);

    const again = await run('resident-again', spec());
    expect(again.trials.map((t) => [t.number, t.value, t.intermediate])).toEqual(
      first.trials.map((t) => [t.number, t.value, t.intermediate]),
    );
  });

  it('keeps the env on the CPU, and says why, where the device path does not reach', async () => {
    const { trials } = await run('transformer', spec('ft_transformer'));
    for (const trial of trials) {
      expect(trial.userAttrs.envDevice).toBe('cpu');
      expect(trial.userAttrs.updateDevice).toBe('cpu');
      expect(trial.userAttrs.envOnCpuBecause).toBe(
        'the ft_transformer actor trains on the CPU env',
      );
    }
  });
});

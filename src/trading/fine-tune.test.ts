import { describe, expect, it } from 'vitest';
import { trialRecord } from '../storage/records.js';
import { bestTrials, fineTuneSpec, narrowParam } from './fine-tune.js';
import type { DrlStudySpec } from './study-spec.js';

const source: DrlStudySpec = {
  version: 1,
  preset: 'ensemble_balanced',
  data: { spec: 'A,B:1h', symbols: ['A', 'B'], timeframe: '1h', bars: 5000, digest: 'd' },
  features: null,
  cv: { method: 'kfold', k: 3 },
  embargo: 10,
  holdout: { fraction: 0.2 },
  lookback: 1,
  params: {
    learningRate: { low: 1e-5, high: 1e-3, log: true },
    gamma: { low: 0.95, high: 0.999 },
    netDim: [128, 256, 512, 1024],
    breakStep: { low: 50_000, high: 200_000, step: 10_000 },
    repeatTimes: { low: 4, high: 16 },
    nEnvs: 16,
  },
  budgetScale: 1,
  policy: 'mlp',
  aggregate: { method: 'mean', lambda: 1 },
  seed: 1,
  from: null,
};

describe('fine-tuning neighbourhoods', () => {
  it('narrows log ranges by a factor and linear ones by a share of their width', () => {
    expect(narrowParam('learningRate', { low: 1e-5, high: 1e-3, log: true }, [1e-4], 0.5)).toEqual({
      low: 5e-5,
      high: 2e-4,
      log: true,
    });
    const gamma = narrowParam('gamma', { low: 0.95, high: 0.999 }, [0.99], 0.5);
    expect(gamma).toEqual({ low: 0.99 - 0.01225, high: 0.999 });
    const wider = narrowParam('gamma', { low: 0.95, high: 0.999 }, [0.99], 0.25);
    expect((wider as { low: number }).low).toBeLessThan((gamma as { low: number }).low);
  });

  it('keeps integers and steps on their grid, and lists to the nearby choices', () => {
    expect(narrowParam('repeatTimes', { low: 4, high: 16 }, [8, 10], 0.5)).toEqual({
      low: 5,
      high: 13,
    });
    expect(
      narrowParam('breakStep', { low: 50_000, high: 200_000, step: 10_000 }, [120_000], 0.5),
    ).toEqual({ low: 80_000, high: 160_000, step: 10_000 });
    expect(narrowParam('netDim', [128, 256, 512, 1024], [256], 0.5)).toEqual([128, 256, 512]);
    expect(narrowParam('activation', ['relu', 'tanh'], ['relu'], 0.5)).toEqual(['relu', 'tanh']);
  });

  it('enqueues the best trials, each inside the narrowed space', () => {
    const trials = [
      trialRecord({
        number: 0,
        state: 'complete',
        value: 0.5,
        params: { learningRate: 2e-4, gamma: 0.97, netDim: 512, breakStep: 60_000, repeatTimes: 4 },
      }),
      trialRecord({
        number: 1,
        state: 'complete',
        value: 1.5,
        params: {
          learningRate: 5e-5,
          gamma: 0.99,
          netDim: 256,
          breakStep: 100_000,
          repeatTimes: 8,
        },
      }),
      trialRecord({ number: 2, state: 'pruned', value: 9, params: { learningRate: 1e-3 } }),
      trialRecord({ number: 3, state: 'complete', value: -1, params: { learningRate: 1e-5 } }),
    ];
    const top = bestTrials(trials, 'maximize', 2);
    expect(top.map((t) => t.number)).toEqual([1, 0]);
    const { spec, enqueue } = fineTuneSpec(
      { ...source, preset: 'ft_small', params: { nEnvs: 8 }, cv: { method: 'kfold', k: 5 } },
      { study: 'src', top: 2, neighbourhood: 0.5 },
      source,
      top,
    );
    expect(enqueue).toHaveLength(2);
    expect(spec.params.nEnvs).toBe(8);
    expect(spec.cv).toEqual(source.cv);
    const lr = spec.params.learningRate as { low: number; high: number };
    expect(lr.low).toBeCloseTo(2.5e-5, 12);
    expect(lr.high).toBeCloseTo(4e-4, 12);
    for (const params of enqueue)
      for (const [name, value] of Object.entries(params)) {
        const p = spec.params[name];
        if (Array.isArray(p)) expect(p).toContain(value);
        else if (typeof p === 'object' && p !== null) {
          expect(value as number).toBeGreaterThanOrEqual(p.low);
          expect(value as number).toBeLessThanOrEqual(p.high);
        }
      }
  });

  it('refuses a source on other data, or without a complete trial', () => {
    const from = { study: 'src', top: 3, neighbourhood: 0.5 };
    expect(() =>
      fineTuneSpec({ ...source, data: { ...source.data, digest: 'x' } }, from, source, []),
    ).toThrow(/created on other market data/);
    expect(() => fineTuneSpec(source, from, source, [])).toThrow(/no complete trial/);
  });
});

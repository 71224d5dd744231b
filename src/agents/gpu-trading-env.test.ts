import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { Rng } from '../core/random.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { syntheticMarket, VectorTradingEnv, type TradingEnvOptions } from '../env/index.js';
import { openGpuDevice, type GpuDevice } from '../gpu/index.js';
import { GpuTradingEnv } from './gpu-trading-env.js';

/*
 * The env on the device against the CPU env: the same data, options and actions, stepped together
 * over whole episodes (truncations and autoresets included), every field compared after every
 * step. Flags, bars and episode steps must be equal; money within stated tolerances of the initial
 * cash (the device's f32 against the CPU's f64, see gpu/kernels/trading-env-step.ts); rewards
 * within 1e-6 (a return on initial cash: 1 = the whole initial cash); observations within 1e-5 of
 * their size. On lavapipe in CI.
 */

const found = await gpuTestAdapter('src/agents/gpu-trading-env.test.ts');

/** Largest |gpu − cpu| / scale over two arrays. */
function worst(gpu: ArrayLike<number>, cpu: ArrayLike<number>, scale = 1): number {
  let max = 0;
  for (let j = 0; j < cpu.length; j++) {
    const d = Math.abs((gpu[j] ?? Number.NaN) - (cpu[j] ?? Number.NaN)) / scale;
    max = Number.isNaN(d) ? Infinity : Math.max(max, d);
  }
  return max;
}

/** Largest |gpu − cpu| / (1 + |cpu|), for values of any size (observations). */
function worstRelative(gpu: ArrayLike<number>, cpu: ArrayLike<number>): number {
  let max = 0;
  for (let j = 0; j < cpu.length; j++) {
    const c = cpu[j] ?? Number.NaN;
    const d = Math.abs((gpu[j] ?? Number.NaN) - c) / (1 + Math.abs(c));
    max = Number.isNaN(d) ? Infinity : Math.max(max, d);
  }
  return max;
}

describe.skipIf(!found)('the trading env on the GPU', { timeout: 180_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  const data = syntheticMarket({ assets: 4, bars: 500, features: 3, seed: 5 });
  const normalizer = fitNormalizer(data.techArray, { assets: 4, features: 3 }, [[0, 200]]);
  const common: TradingEnvOptions = {
    nEnvs: 7,
    lookback: 3,
    ranges: [
      [2, 200],
      [230, 480],
    ],
    episodeLength: 70,
    randomStart: false,
    buyFeeBps: 10,
    sellFeeBps: 15,
    slippageBps: 5,
    seed: 9,
  };
  const cases: [string, TradingEnvOptions][] = [
    [
      'fraction scaling, excess reward, penalties, weights and time, a minimum order',
      {
        ...common,
        actionScaling: 'fraction',
        noTradeBand: 0.02,
        minOrderValue: 2000,
        reward: 'excess',
        drawdownPenalty: 0.5,
        turnoverPenalty: 1e-4,
        includePositionWeights: true,
        includeTimeFeature: true,
      },
    ],
    ['units scaling, close fills', { ...common, actionScaling: 'units', executionPrice: 'close' }],
    [
      'target scaling with a band',
      { ...common, actionScaling: 'target', noTradeBand: 0.01, maxTradeFraction: 0.9 },
    ],
  ];

  for (const [name, options] of cases)
    it(`steps as the CPU env does: ${name}`, async () => {
      const cpu = new VectorTradingEnv(data, normalizer, options);
      const env = await GpuTradingEnv.create(gpu, data, normalizer, options);
      try {
        expect(env.obsDim).toBe(cpu.obsDim);
        const cash = cpu.options.initialCash;
        const A = cpu.assets;
        const rng = new Rng(21);
        const actions = new Float32Array(cpu.nEnvs * A);
        const errors = { money: 0, reward: 0, obs: 0, fees: 0 };
        let trades = 0;
        let resets = 0;
        const first = await env.read();
        errors.obs = worstRelative(first.obs, cpu.reset().obs);
        for (let step = 0; step < 300; step++) {
          // Some actions past ±1 (clipped) and some near 0 (under the band or the minimum order).
          for (let j = 0; j < actions.length; j++)
            actions[j] = (rng.uniform() * 2.4 - 1.2) * (rng.uniform() < 0.2 ? 0.01 : 1);
          const want = cpu.step(actions);
          env.setActions(actions);
          env.step();
          const got = await env.read();
          const where = `${name}, step ${step}`;
          expect(Array.from(got.terminations), where).toEqual(Array.from(want.terminations));
          expect(Array.from(got.truncations), where).toEqual(Array.from(want.truncations));
          expect(Array.from(got.resetMask), where).toEqual(Array.from(want.resetMask));
          expect(Array.from(got.info.bar), where).toEqual(Array.from(want.info.bar));
          expect(Array.from(got.info.episodeStep), where).toEqual(
            Array.from(want.info.episodeStep),
          );
          errors.money = Math.max(
            errors.money,
            worst(got.info.value, want.info.value, cash),
            worst(got.info.cash, want.info.cash, cash),
            worst(got.info.benchmarkValue, want.info.benchmarkValue, cash),
          );
          errors.fees = Math.max(
            errors.fees,
            worst(got.info.feesPaid, want.info.feesPaid, cash),
            worst(got.info.turnover, want.info.turnover, cash),
          );
          errors.reward = Math.max(errors.reward, worst(got.rewards, want.rewards));
          errors.obs = Math.max(errors.obs, worstRelative(got.obs, want.obs));
          for (let i = 0; i < cpu.nEnvs; i++) {
            if ((want.info.turnover[i] ?? 0) > 0) trades++;
            resets += want.resetMask[i] ?? 0;
          }
        }
        // The runs exercised what they compare: trades, and episodes ending and restarting.
        expect(trades).toBeGreaterThan(300);
        expect(resets).toBeGreaterThan(2 * cpu.nEnvs);
        expect(errors.money, JSON.stringify(errors)).toBeLessThan(2e-5);
        expect(errors.fees, JSON.stringify(errors)).toBeLessThan(2e-5);
        expect(errors.reward, JSON.stringify(errors)).toBeLessThan(1e-6);
        expect(errors.obs, JSON.stringify(errors)).toBeLessThan(1e-5);
      } finally {
        env.destroy();
      }
    });

  it('draws random episode starts inside the ranges, the same for the same seed', async () => {
    const options: TradingEnvOptions = {
      ...common,
      nEnvs: 64,
      randomStart: true,
      episodeLength: 5,
    };
    const starts = async (seed: number): Promise<number[]> => {
      const env = await GpuTradingEnv.create(gpu, data, normalizer, { ...options, seed });
      try {
        const seen: number[] = [];
        const actions = new Float32Array(64 * 4);
        for (let step = 0; step < 12; step++) {
          const s = await env.read();
          for (let i = 0; i < 64; i++)
            if ((s.info.episodeStep[i] ?? 0) === 0) seen.push(s.info.bar[i] ?? -1);
          env.setActions(actions);
          env.step();
        }
        return seen;
      } finally {
        env.destroy();
      }
    };
    const a = await starts(1);
    expect(await starts(1)).toEqual(a);
    expect(await starts(2)).not.toEqual(a);
    // In a range, at most its last start (end − 1 − episodeLength): 194 and 474.
    for (const s of a)
      expect((s >= 2 && s <= 194) || (s >= 230 && s <= 474), `start ${s}`).toBe(true);
    // Both ranges are drawn, in proportion to their possible starts (193 and 245: 56% the second).
    const second = a.filter((s) => s >= 230).length / a.length;
    expect(second).toBeGreaterThan(0.4);
    expect(second).toBeLessThan(0.72);
  });
});

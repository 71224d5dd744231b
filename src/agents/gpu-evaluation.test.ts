import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import * as tf from '../compute/tfjs.js';
import { useBackend } from '../compute/backends.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { syntheticMarket, VectorTradingEnv, type EnvRange } from '../env/index.js';
import { evaluate } from '../eval/evaluate.js';
import { Mlp } from '../models/mlp.js';
import { openGpuDevice, ppoParameterSlots, storageOf, type GpuDevice } from '../gpu/index.js';
import { GaussianActor } from './gaussian-policy.js';
import { flatParameters } from './gpu-resident-ppo.js';
import { GpuEvaluation } from './gpu-evaluation.js';
import { createPpoNetworks, disposePpoNetworks } from './ppo-update.js';

/*
 * The deterministic policy evaluated on the device against the CPU evaluator with the same
 * networks: several test ranges of unequal length at once, an actor whose actions trade (its
 * last layer scaled up), fees and a lookback window. Bars and episode ends must be the same;
 * equity within the device's f32 accounting. On lavapipe in CI.
 */

const found = await gpuTestAdapter('src/agents/gpu-evaluation.test.ts');

describe.skipIf(!found)(
  'the deterministic policy evaluated on the GPU',
  { timeout: 180_000 },
  () => {
    let gpu: GpuDevice;
    beforeAll(async () => {
      await useBackend('wasm');
      gpu = await openGpuDevice();
    });
    afterAll(() => {
      gpu.destroy();
    });

    const data = syntheticMarket({ assets: 3, bars: 700, features: 2, seed: 11 });
    const ranges: EnvRange[] = [
      [10, 250],
      [300, 420],
      [450, 700],
    ];
    const options = { lookback: 3, buyFeeBps: 10, sellFeeBps: 10 };

    for (const meanSquash of ['tanh', 'clip'] as const)
      it(`gives the CPU evaluator's bars, ends and equity (mean ${meanSquash})`, async () => {
        const shape = { assets: 3, features: data.featureNames.length };
        const normalizer = fitNormalizer(data.techArray, shape, [[0, 300]]);
        const obsDim = new VectorTradingEnv(data, normalizer, { ...options, ranges }).obsDim;
        const nets = createPpoNetworks({
          stateDim: obsDim,
          actionDim: 3,
          netDim: 16,
          meanSquash,
          seed: 4,
        });
        const program = ppoParameterSlots({
          stateDim: obsDim,
          actionDim: 3,
          hidden: [16, 16],
          activation: 'relu',
          tanhMean: meanSquash === 'tanh',
          rolloutRows: 1,
          batchSize: 1,
          passes: 1,
          normalizeAdvantages: true,
          clipValueLoss: false,
        });
        try {
          // A last layer 300× its initial scale: means far from 0, so the policy trades.
          if (!(nets.actor instanceof Mlp)) throw new Error('an MLP actor was built');
          const last = nets.actor.weights.at(-1) as tf.Variable;
          last.assign(tf.mul(last, 300));
          const cpu = await evaluate(
            data,
            normalizer,
            new GaussianActor(nets).deterministic(),
            ranges,
            options,
          );
          const parameters = storageOf(gpu, flatParameters(nets, program), 'test parameters');
          const evaluation = await GpuEvaluation.build(
            gpu,
            data,
            normalizer,
            ranges,
            options,
            { hidden: [16, 16], activation: 'relu', tanhMean: meanSquash === 'tanh' },
            parameters,
            program,
          );
          const device = await evaluation.run(data);
          evaluation.destroy();
          parameters.destroy();
          expect(device).toHaveLength(3);
          device.forEach((got, e) => {
            const want = cpu[e];
            if (want === undefined) throw new Error('missing range');
            expect(Array.from(got.bars)).toEqual(Array.from(want.bars));
            expect(got.ended).toBe(want.ended);
            // It traded: fees were paid and the equity left its start.
            expect(want.fees).toBeGreaterThan(0);
            let worst = 0;
            got.equity.forEach((v, i) => {
              const w = want.equity[i] ?? 0;
              worst = Math.max(worst, Math.abs(v - w) / Math.abs(w));
            });
            expect(worst).toBeLessThan(1e-4);
            expect(Math.abs(got.fees - want.fees) / want.fees).toBeLessThan(1e-3);
            expect(got.metrics.sharpe).toBeCloseTo(want.metrics.sharpe, 2);
            expect(got.benchmarkMetrics.sharpe).toBeCloseTo(want.benchmarkMetrics.sharpe, 3);
          });
        } finally {
          disposePpoNetworks(nets);
        }
      });
  },
);

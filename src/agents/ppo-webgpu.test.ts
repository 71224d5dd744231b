import * as tf from '../compute/tfjs.js';
import { afterAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { syntheticMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { PpoTrainer, type PpoUpdateReport } from './ppo.js';

/*
 * PPO on the webgpu backend (a GPU, or lavapipe here): every read is asynchronous there, so this
 * is what proves the agent never reads synchronously. Its updates match the same updates on
 * wasm up to float32 rounding, and it moves exactly the same bytes between host and device.
 * Machines without an adapter skip it and say why; CI has lavapipe and fails without it.
 */

const found = await gpuTestAdapter('src/agents/ppo-webgpu.test.ts');

afterAll(async () => {
  await useBackend('wasm');
});

interface Trained {
  reports: PpoUpdateReport[];
  weights: Float32Array[];
  leaked: number;
}

async function train(backend: 'wasm' | 'webgpu'): Promise<Trained> {
  await useBackend(backend);
  const env = new VectorTradingEnv(syntheticMarket({ assets: 2, bars: 200, seed: 5 }), undefined, {
    nEnvs: 4,
    episodeLength: 20,
  });
  const trainer = new PpoTrainer(env, {
    netDim: 16,
    targetStep: 64,
    batchSize: 32,
    repeatTimes: 2,
    breakStep: 128,
    seed: 3,
  });
  const reports = [await trainer.update()];
  const before = tf.memory().numTensors;
  reports.push(await trainer.update());
  const leaked = tf.memory().numTensors - before;
  const weights: Float32Array[] = [];
  for (const v of [...trainer.nets.actor.variables, trainer.nets.logStd])
    weights.push((await v.data()) as Float32Array);
  trainer.dispose();
  return { reports, weights, leaked };
}

// lavapipe compiles each new shader with LLVM (seconds apiece until Mesa's cache has them).
const FIRST_RUN_MS = 300_000;

describe.skipIf(!found)('PPO on WebGPU', () => {
  it(
    'trains as on wasm, up to rounding, with the same host↔device traffic and no leak',
    async () => {
      const wasm = await train('wasm');
      const webgpu = await train('webgpu');
      expect(webgpu.leaked).toBe(0);
      webgpu.reports.forEach((got, i) => {
        const want = wasm.reports[i] as PpoUpdateReport;
        expect(got.uploadBytes).toBe(want.uploadBytes);
        expect(got.downloadBytes).toBe(want.downloadBytes);
        expect(got.reads).toBe(want.reads);
        expect(got.samples).toBe(want.samples);
        for (const key of ['policyLoss', 'valueLoss', 'entropy', 'approxKl'] as const)
          expect(got[key], `update ${i + 1} ${key}`).toBeCloseTo(want[key], 3);
      });
      webgpu.weights.forEach((got, i) => {
        const want = wasm.weights[i] as Float32Array;
        const worst = got.reduce((w, g, j) => Math.max(w, Math.abs(g - (want[j] ?? NaN))), 0);
        expect(worst, `variable ${i}`).toBeLessThan(1e-3);
      });
    },
    FIRST_RUN_MS,
  );
});

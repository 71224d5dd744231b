import * as tf from '../compute/tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { nativeGemmStatus } from '../compute/native-gemm.js';
import { setNativeTrainingKernelsEnabled } from '../compute/native-training-kernels.js';
import { TradelabError } from '../core/index.js';
import { PPO_DEFAULTS } from './ppo-config.js';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  gaussianLogProb,
  ppoOptimizer,
  ppoVariables,
  ppoUpdateStep,
  syntheticMinibatch,
  type PpoLossConfig,
  type PpoMinibatch,
  type PpoStepStats,
} from './ppo-update.js';

beforeAll(async () => {
  await useBackend('wasm');
});

function minibatch(seed: number, returns = 0): PpoMinibatch {
  return {
    states: tf.randomNormal([64, 4], 0, 1, 'float32', seed),
    actions: tf.randomNormal([64, 2], 0, 1, 'float32', seed + 1),
    oldLogProbs: tf.fill<tf.Rank.R1>([64], -2.5),
    advantages: tf.randomNormal([64], 0, 1, 'float32', seed + 2),
    returns: tf.fill<tf.Rank.R1>([64], returns),
  };
}

function dispose(batch: PpoMinibatch): void {
  for (const t of Object.values(batch) as tf.Tensor[]) t.dispose();
}

/** `steps` updates of fresh networks (seed 1) on one minibatch; the stats of each. */
async function train(
  steps: number,
  returns = 0,
  loss: PpoLossConfig = {},
): Promise<PpoStepStats[]> {
  const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
  const optimizer = tf.train.adam(1e-2);
  const batch = minibatch(7, returns);
  const stats: PpoStepStats[] = [];
  for (let i = 0; i < steps; i++) stats.push(await ppoUpdateStep(nets, optimizer, batch, loss));
  dispose(batch);
  optimizer.dispose();
  disposePpoNetworks(nets);
  return stats;
}

describe('PPO update step', () => {
  it('computes the Gaussian log-density by hand', () => {
    const value = tf.tidy(() =>
      gaussianLogProb(tf.tensor2d([[0, 1]]), tf.tensor1d([0, Math.log(2)]), tf.tensor2d([[1, 2]]))
        .dataSync()
        .slice(),
    );
    const expected =
      -0.5 * 1 -
      0.5 * Math.log(2 * Math.PI) +
      (-0.5 * 0.25 - Math.log(2) - 0.5 * Math.log(2 * Math.PI));
    expect(value[0]).toBeCloseTo(expected, 5);
  });

  it('leaks no tensors across updates', async () => {
    const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
    const optimizer = tf.train.adam(1e-3);
    const batch = minibatch(1);
    await ppoUpdateStep(nets, optimizer, batch); // creates Adam's moment slots
    const count = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) await ppoUpdateStep(nets, optimizer, batch);
    expect(tf.memory().numTensors).toBe(count);
    dispose(batch);
    optimizer.dispose();
    disposePpoNetworks(nets);
  });

  it("takes every default from PPO_DEFAULTS, the trainer's", async () => {
    const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16 });
    expect(Array.from(nets.logStd.dataSync())).toEqual([
      PPO_DEFAULTS.initLogStd,
      PPO_DEFAULTS.initLogStd,
    ]);
    // Two hidden layers of relu and an output layer, each a kernel and a bias.
    expect(ppoVariables(nets)).toHaveLength(2 * 3 + 1 + 2 * 3);
    disposePpoNetworks(nets);
    const explicit = {
      ratioClip: PPO_DEFAULTS.ratioClip,
      lambdaEntropy: PPO_DEFAULTS.lambdaEntropy,
      valueCoef: PPO_DEFAULTS.valueCoef,
      maxGradNorm: PPO_DEFAULTS.maxGradNorm,
    };
    expect(await train(3)).toEqual(await train(3, 0, explicit));
    // The entropy bonus is on by default (0.01): without it the steps differ.
    expect(await train(3)).not.toEqual(await train(3, 0, { ...explicit, lambdaEntropy: 0 }));
  });

  it('is deterministic: same seed and data, same numbers', async () => {
    expect(await train(3)).toEqual(await train(3));
  });

  it('fits the critic: the value loss falls', async () => {
    const stats = await train(40, 3);
    expect(stats[0]?.valueLoss).toBeGreaterThan(5);
    expect(stats.at(-1)?.valueLoss).toBeLessThan((stats[0]?.valueLoss ?? 0) / 4);
    for (const s of stats) expect(Number.isFinite(s.policyLoss)).toBe(true);
  });
});

/** The values of every trainable variable. */
function weightsOf(nets: ReturnType<typeof createPpoNetworks>): number[][] {
  return ppoVariables(nets).map((v) => Array.from(v.dataSync()));
}

describe('PPO update step options', () => {
  it('clips the value loss as cleanrl: the larger of the plain and the clipped squared error', async () => {
    const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 2 });
    const states = tf.randomNormal<tf.Rank.R2>([4, 4], 0, 1, 'float32', 3);
    const values = Array.from(
      tf.tidy(() => tf.reshape(nets.critic.apply(states), [-1])).dataSync(),
    );
    // Per row: the rollout's value is the new value − d, the return the new value + r.
    const d = [1, 1, 0.1, -1];
    const r = [-2, 1, 0.5, 0.3];
    const clip = 0.2;
    const at = (values: number[], i: number): number => values[i] as number;
    const batch = (): PpoMinibatch => ({
      states: states.clone(),
      actions: tf.zeros([4, 2]),
      oldLogProbs: tf.fill<tf.Rank.R1>([4], -2),
      advantages: tf.tensor1d([1, -1, 0.5, -0.5]),
      returns: tf.tensor1d(values.map((v, i) => v + at(r, i))),
      oldValues: tf.tensor1d(values.map((v, i) => v - at(d, i))),
    });
    const plain = d.map((_, i) => at(r, i) ** 2);
    // old + clip(new − old) − return = −d + clip(d) − r.
    const clipped = d.map((di, i) => (-di + Math.max(-clip, Math.min(clip, di)) - at(r, i)) ** 2);
    const expected = plain.map((p, i) => Math.max(p, at(clipped, i))).reduce((s, v) => s + v) / 4;
    expect(expected).toBeCloseTo(1.935, 10); // (4 + 3.24 + 0.25 + 0.25) / 4, worked by hand

    const loss = async (clipValueLoss: boolean): Promise<number> => {
      const optimizer = tf.train.sgd(0); // the loss is measured before the step; no step wanted
      const b = batch();
      const stats = await ppoUpdateStep(nets, optimizer, b, { ratioClip: clip, clipValueLoss });
      for (const t of Object.values(b) as tf.Tensor[]) t.dispose();
      optimizer.dispose();
      return stats.valueLoss;
    };
    expect(await loss(true)).toBeCloseTo(expected, 4);
    expect(await loss(false)).toBeCloseTo(plain.reduce((s, v) => s + v) / 4, 4); // 1.335
    states.dispose();
    disposePpoNetworks(nets);
  });

  it('refuses a clipped value loss without the rollout values', async () => {
    const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
    const optimizer = tf.train.adam(1e-3);
    const batch = minibatch(1);
    const before = tf.memory().numTensors;
    await expect(
      ppoUpdateStep(nets, optimizer, batch, { clipValueLoss: true }),
    ).rejects.toBeInstanceOf(TradelabError);
    expect(tf.memory().numTensors).toBe(before);
    dispose(batch);
    optimizer.dispose();
    disposePpoNetworks(nets);
  });

  it('normalizes advantages per minibatch as if they came normalized', async () => {
    const raw = Array.from({ length: 64 }, (_, i) => 3 + 5 * Math.sin(i * 1.7));
    const mean = raw.reduce((s, v) => s + v) / raw.length;
    const sd = Math.sqrt(raw.reduce((s, v) => s + (v - mean) ** 2, 0) / (raw.length - 1));
    const step = async (
      advantages: number[],
      loss: PpoLossConfig,
    ): Promise<{ stats: PpoStepStats; weights: number[][] }> => {
      const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
      const optimizer = tf.train.adam(1e-2);
      const batch = minibatch(7);
      batch.advantages.dispose();
      batch.advantages = tf.tensor1d(advantages);
      const stats = await ppoUpdateStep(nets, optimizer, batch, loss);
      const weights = weightsOf(nets);
      dispose(batch);
      optimizer.dispose();
      disposePpoNetworks(nets);
      return { stats, weights };
    };
    const perMinibatch = await step(raw, { normalizeAdvantagesOver: 'minibatch' });
    const given = await step(
      raw.map((v) => (v - mean) / (sd + 1e-8)),
      { normalizeAdvantagesOver: 'rollout' },
    );
    expect(perMinibatch.stats.policyLoss).toBeCloseTo(given.stats.policyLoss, 5);
    perMinibatch.weights.forEach((w, i) => {
      w.forEach((v, j) => {
        expect(v).toBeCloseTo(given.weights[i]?.[j] ?? Number.NaN, 5);
      });
    });
    // 'rollout' leaves the step's advantages as they come: unnormalized, the loss is far off.
    const untouched = await step(raw, { normalizeAdvantagesOver: 'rollout' });
    expect(Math.abs(untouched.stats.policyLoss - given.stats.policyLoss)).toBeGreaterThan(1);
    // normalizeAdvantages: false turns the per-minibatch normalization off too.
    const off = await step(raw, {
      normalizeAdvantages: false,
      normalizeAdvantagesOver: 'minibatch',
    });
    expect(off.stats.policyLoss).toBe(untouched.stats.policyLoss);
  });

  it("sets Adam's learning rate between steps, and its epsilon", async () => {
    const run = async (optimizer: tf.Optimizer): Promise<number[][]> => {
      const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
      const batch = minibatch(7, 1);
      for (let i = 0; i < 3; i++) await ppoUpdateStep(nets, optimizer, batch);
      const weights = weightsOf(nets);
      dispose(batch);
      optimizer.dispose();
      disposePpoNetworks(nets);
      return weights;
    };
    const lowered = ppoOptimizer(1e-2);
    lowered.setLearningRate(1e-3);
    expect(lowered.rate).toBe(1e-3);
    const direct = await run(ppoOptimizer(1e-3));
    expect(await run(lowered)).toEqual(direct);
    expect(await run(ppoOptimizer(1e-2))).not.toEqual(direct);
    // The default epsilon is PPO_DEFAULTS' (cleanrl's 1e-5), not tfjs's own 1e-7.
    expect(await run(ppoOptimizer(1e-3, PPO_DEFAULTS.adamEpsilon))).toEqual(direct);
    expect(await run(tf.train.adam(1e-3, 0.9, 0.999, 1e-5))).toEqual(direct);
    expect(await run(tf.train.adam(1e-3))).not.toEqual(direct);
    const stopped = ppoOptimizer(1e-2);
    stopped.setLearningRate(0);
    const nets = createPpoNetworks({ stateDim: 4, actionDim: 2, netDim: 16, seed: 1 });
    const before = weightsOf(nets);
    disposePpoNetworks(nets);
    expect(await run(stopped)).toEqual(before);
  });
});

describe('PPO update on the fused native training kernels', () => {
  /** The weights' bits after `steps` updates with FinRL-like networks, fused kernels on or off. */
  async function weightsAfter(steps: number, fused: boolean): Promise<number[][]> {
    setNativeTrainingKernelsEnabled(fused);
    try {
      const nets = createPpoNetworks({ stateDim: 81, actionDim: 10, netDim: 96, seed: 3 });
      const optimizer = ppoOptimizer(3e-3);
      const batch = syntheticMinibatch(300, 81, 10, 11);
      await ppoUpdateStep(nets, optimizer, batch); // creates Adam's moments
      const before = tf.memory().numTensors;
      for (let i = 1; i < steps; i++) await ppoUpdateStep(nets, optimizer, batch);
      expect(tf.memory().numTensors).toBe(before);
      const bits = ppoVariables(nets).map((v) =>
        Array.from(new Uint32Array((v.dataSync() as Float32Array).slice().buffer)),
      );
      disposeMinibatch(batch);
      optimizer.dispose();
      disposePpoNetworks(nets);
      return bits;
    } finally {
      setNativeTrainingKernelsEnabled(true);
    }
  }

  it.skipIf(!nativeGemmStatus().available && process.env.CI !== 'true')(
    'ends with exactly the weights of tfjs’s own kernels',
    async () => {
      await useBackend('wasm', { matmul: 'native' });
      try {
        const fused = await weightsAfter(4, true);
        const plain = await weightsAfter(4, false);
        expect(fused.length).toBe(plain.length);
        fused.forEach((w, i) => {
          expect(w, `variable ${i}`).toEqual(plain[i]);
        });
      } finally {
        await useBackend('wasm');
      }
    },
  );
});

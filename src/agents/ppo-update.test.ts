import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { PPO_DEFAULTS } from './ppo-config.js';
import {
  createPpoNetworks,
  disposePpoNetworks,
  gaussianLogProb,
  ppoVariables,
  ppoUpdateStep,
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

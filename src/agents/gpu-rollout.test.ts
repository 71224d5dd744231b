import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import * as tf from '../compute/tfjs.js';
import { useBackend } from '../compute/backends.js';
import { syntheticMarket, VectorTradingEnv, type TradingEnvOptions } from '../env/index.js';
import {
  openGpuDevice,
  ppoParameterSlots,
  PpoUpdateProgram,
  storageOf,
  type GpuDevice,
} from '../gpu/index.js';
import { computeGae } from './gae.js';
import { flatParameters } from './gpu-resident-ppo.js';
import { ReturnNormalizer, type ReturnStatistics } from './return-normalizer.js';
import { GpuRollout, type GpuRolloutArrays } from './gpu-rollout.js';
import { GpuTradingEnv } from './gpu-trading-env.js';
import {
  actorMean,
  createPpoNetworks,
  disposePpoNetworks,
  gaussianLogProb,
  type PpoNetworks,
} from './ppo-update.js';

/*
 * A rollout on the device (agents/gpu-rollout.ts) checked piece by piece against the CPU: the
 * states it recorded are the CPU env's observations when the CPU env replays its actions, and the
 * rewards and flags the CPU env's; values and log-probabilities are the CPU networks' on those
 * states; the noise is standard normal and a seed's own; the advantages are agents/gae.ts's on the
 * recorded arrays. On lavapipe in CI.
 */

const found = await gpuTestAdapter('src/agents/gpu-rollout.test.ts');

describe.skipIf(!found)('a PPO rollout on the GPU', { timeout: 180_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  const data = syntheticMarket({ assets: 3, bars: 300, features: 2, seed: 8 });
  const options: TradingEnvOptions = {
    nEnvs: 6,
    lookback: 2,
    ranges: [[1, 290]],
    episodeLength: 9,
    randomStart: false,
    seed: 3,
  };
  const steps = 20;

  async function collect(
    seed: number,
    rewardScaling?: { gamma: number },
  ): Promise<{ got: GpuRolloutArrays; nets: PpoNetworks; statistics: ReturnStatistics }> {
    const env = await GpuTradingEnv.create(gpu, data, undefined, options);
    const nets = createPpoNetworks({
      stateDim: env.obsDim,
      actionDim: 3,
      netDim: 16,
      seed: 2,
      initLogStd: -0.3,
    });
    const shape = {
      stateDim: env.obsDim,
      actionDim: 3,
      hidden: [16, 16],
      activation: 'relu' as const,
      tanhMean: true,
    };
    const slots = ppoParameterSlots({
      ...shape,
      rolloutRows: 1,
      batchSize: 1,
      passes: 1,
      normalizeAdvantages: true,
      clipValueLoss: false,
    });
    const parameters = storageOf(gpu, flatParameters(nets, slots), 'parameters');
    const rollout = await GpuRollout.build(gpu, env, { ...shape, steps }, parameters, slots, {
      gamma: 0.99,
      lambda: 0.95,
      ...(rewardScaling === undefined ? {} : { rewardScaling }),
    });
    try {
      rollout.collect(seed);
      return {
        got: await rollout.read(),
        nets,
        statistics: await rollout.readReturnStatistics(),
      };
    } finally {
      rollout.destroy();
      parameters.destroy();
      env.destroy();
    }
  }

  it('records what the CPU env and networks give for the same actions', async () => {
    const { got, nets } = await collect(5);
    const n = options.nEnvs ?? 1;
    const cpu = new VectorTradingEnv(data, undefined, options);
    const S = cpu.obsDim;
    let obs = cpu.reset().obs.slice();
    let worstState = 0;
    let worstReward = 0;
    const terminated = new Uint8Array(steps * n);
    const truncated = new Uint8Array(steps * n);
    const valid = new Uint8Array(steps * n);
    for (let t = 0; t < steps; t++) {
      const states = got.states.subarray(t * n * S, (t + 1) * n * S);
      for (let j = 0; j < states.length; j++)
        worstState = Math.max(worstState, Math.abs((states[j] ?? 0) - (obs[j] ?? 0)));
      const result = cpu.step(got.actions.slice(t * n * 3, (t + 1) * n * 3));
      for (let e = 0; e < n; e++) {
        const i = t * n + e;
        worstReward = Math.max(
          worstReward,
          Math.abs((got.rewards[i] ?? 0) - (result.rewards[e] ?? 0)),
        );
        expect(got.terminated[i]).toBe(result.terminations[e]);
        expect(got.truncated[i]).toBe(result.truncations[e]);
        expect(got.resetMask[i]).toBe(result.resetMask[e]);
        terminated[i] = result.terminations[e] ?? 0;
        truncated[i] = result.truncations[e] ?? 0;
        valid[i] = 1 - (result.resetMask[e] ?? 0);
      }
      obs = result.obs.slice();
    }
    expect(worstState).toBeLessThan(1e-5);
    expect(worstReward).toBeLessThan(1e-6);
    expect(valid.some((v) => v === 0)).toBe(true); // episodes of 9 steps ended and restarted

    // Values and log-probabilities: the CPU networks' on the recorded states and actions.
    const [values, logProbs, lastValues] = tf.tidy(() => {
      const states = tf.tensor2d(got.states, [steps * n, S]);
      const v = tf.reshape(nets.critic.apply(states), [-1]);
      const lp = gaussianLogProb(
        actorMean(nets, states),
        nets.logStd as tf.Tensor1D,
        tf.tensor2d(got.actions, [steps * n, 3]),
      );
      const last = tf.reshape(nets.critic.apply(tf.tensor2d(obs.subarray(0, n * S), [n, S])), [-1]);
      return [v.dataSync().slice(), lp.dataSync().slice(), last.dataSync().slice()];
    }) as [Float32Array, Float32Array, Float32Array];
    for (let i = 0; i < steps * n; i++) {
      expect(Math.abs((got.values[i] ?? 0) - (values[i] ?? 0))).toBeLessThan(1e-4);
      expect(Math.abs((got.logProbs[i] ?? 0) - (logProbs[i] ?? 0))).toBeLessThan(1e-4);
    }

    // The noise is standard normal: z = (action − mean) / std.
    const z = tf.tidy((): Float32Array => {
      const states = tf.tensor2d(got.states, [steps * n, S]);
      const mean = actorMean(nets, states);
      return tf
        .div(tf.sub(tf.tensor2d(got.actions, [steps * n, 3]), mean), tf.exp(nets.logStd))
        .dataSync()
        .slice() as Float32Array;
    });
    const zMean = z.reduce((s, v) => s + v, 0) / z.length;
    const zVar = z.reduce((s, v) => s + (v - zMean) ** 2, 0) / z.length;
    expect(Math.abs(zMean)).toBeLessThan(0.15);
    expect(zVar).toBeGreaterThan(0.8);
    expect(zVar).toBeLessThan(1.2);

    // GAE on the recorded arrays, the critic's last values included.
    const want = computeGae({
      nEnvs: n,
      rewards: got.rewards,
      values: got.values,
      lastValues,
      terminations: terminated,
      truncations: truncated,
      valid,
      gamma: 0.99,
      lambda: 0.95,
    });
    for (let i = 0; i < steps * n; i++) {
      expect(Math.abs((got.advantages[i] ?? 0) - (want.advantages[i] ?? 0))).toBeLessThan(1e-4);
      expect(Math.abs((got.returns[i] ?? 0) - (want.returns[i] ?? 0))).toBeLessThan(1e-4);
    }
    disposePpoNetworks(nets);
  });

  it('trains the update program from the device rollout as from the same rollout uploaded', async () => {
    const env = await GpuTradingEnv.create(gpu, data, undefined, options);
    const n = env.nEnvs;
    const nets = createPpoNetworks({ stateDim: env.obsDim, actionDim: 3, netDim: 16, seed: 4 });
    const shape = {
      stateDim: env.obsDim,
      actionDim: 3,
      hidden: [16, 16],
      activation: 'relu' as const,
      tanhMean: true,
      rolloutRows: steps * n,
      batchSize: 32,
      passes: 2,
      normalizeAdvantages: true,
      clipValueLoss: true,
    };
    const constants = {
      ratioClip: 0.2,
      entropyCoef: 0.01,
      valueCoef: 0.5,
      maxGradNorm: 0.5,
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-5,
    };
    const [onDevice, uploaded] = await Promise.all([
      PpoUpdateProgram.build(gpu, shape, constants),
      PpoUpdateProgram.build(gpu, shape, constants),
    ]);
    const flat = flatParameters(nets, onDevice.slots);
    const fresh = {
      m: new Float32Array(flat.length),
      v: new Float32Array(flat.length),
      accBeta1: 0.9,
      accBeta2: 0.999,
    };
    for (const program of [onDevice, uploaded]) {
      program.writeParameters(flat);
      program.writeMoments(fresh);
    }
    // The rollout acts with the training program's own parameters buffer.
    const rollout = await GpuRollout.build(
      gpu,
      env,
      { ...shape, steps },
      onDevice.parameters,
      onDevice.slots,
      { gamma: 0.99, lambda: 0.95 },
    );
    try {
      rollout.collect(7);
      const rows = await rollout.trainingRows();
      const read = await rollout.read();
      expect(rows.length).toBe(read.resetMask.filter((r) => r === 0).length);
      expect(rows.length).toBeLessThan(steps * n);
      // The same shuffles for both: a fixed permutation of the training rows per pass.
      const order = (pass: number): Int32Array =>
        Int32Array.from(rows.map((_, i) => rows[(i * 7 + pass * 3) % rows.length] as number));
      const options = { learningRate: 3e-3, targetKl: null };
      const a = await onDevice.train(rollout.deviceRollout, order, options);
      const b = await uploaded.train(
        {
          rows: steps * n,
          states: read.states,
          actions: read.actions,
          logProbs: read.logProbs,
          advantages: read.advantages,
          returns: read.returns,
          values: read.values,
        },
        order,
        options,
      );
      expect(Array.from(a.statSums)).toEqual(Array.from(b.statSums));
      const after = await onDevice.readParameters();
      expect(Array.from(after)).toEqual(Array.from(await uploaded.readParameters()));
      expect(Array.from(after)).not.toEqual(Array.from(flat)); // it trained
    } finally {
      rollout.destroy();
      env.destroy();
      disposePpoNetworks(nets);
    }
  });

  it('scales rewards as the CPU trainer does: by the running sd of the discounted returns', async () => {
    const plain = await collect(5);
    const scaled = await collect(5, { gamma: 0.99 });
    disposePpoNetworks(plain.nets);
    disposePpoNetworks(scaled.nets);
    // The same actions (same seed and weights), so the env's rewards are the unscaled run's.
    expect(Array.from(scaled.got.actions)).toEqual(Array.from(plain.got.actions));
    const n = options.nEnvs ?? 1;
    const normalizer = new ReturnNormalizer(n, 0.99);
    let worst = 0;
    let largest = 0;
    for (let t = 0; t < steps; t++) {
      const rows = (i: number): number => t * n + i;
      const rewards = Float32Array.from({ length: n }, (_, e) => plain.got.rewards[rows(e)] ?? 0);
      const valid = Array.from({ length: n }, (_, e) => 1 - (plain.got.resetMask[rows(e)] ?? 0));
      const ended = Array.from({ length: n }, (_, e) =>
        (plain.got.terminated[rows(e)] ?? 0) === 1 || (plain.got.truncated[rows(e)] ?? 0) === 1
          ? 1
          : 0,
      );
      normalizer.scale(rewards, valid, ended);
      for (let e = 0; e < n; e++) {
        const got = scaled.got.rewards[rows(e)] ?? Number.NaN;
        worst = Math.max(
          worst,
          Math.abs(got - (rewards[e] ?? 0)) / (1 + Math.abs(rewards[e] ?? 0)),
        );
        largest = Math.max(largest, Math.abs(rewards[e] ?? 0));
      }
    }
    expect(worst).toBeLessThan(1e-4);
    expect(largest).toBeGreaterThan(0.1); // scaled up from returns of ~1e-3
    const want = normalizer.statistics();
    expect(scaled.statistics.count).toBeCloseTo(want.count, 2);
    expect(Math.abs(scaled.statistics.mean - want.mean)).toBeLessThan(1e-6);
    expect(Math.abs(scaled.statistics.variance / want.variance - 1)).toBeLessThan(1e-3);
  });

  it('draws the same noise for the same seed, other noise for another', async () => {
    const a = await collect(11);
    const b = await collect(11);
    const c = await collect(12);
    for (const r of [a, b, c]) disposePpoNetworks(r.nets);
    expect(Array.from(b.got.actions)).toEqual(Array.from(a.got.actions));
    expect(Array.from(c.got.actions)).not.toEqual(Array.from(a.got.actions));
  });
});

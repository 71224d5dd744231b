import * as tf from '../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { Rng } from '../core/random.js';
import { openGpuDevice, type GpuDevice, type RolloutArrays } from '../gpu/index.js';
import type { ExactAdam } from '../models/index.js';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { resolvePpoConfig, type PpoConfig } from './ppo-config.js';
import { GpuPpoUpdate } from './ppo-gpu-update.js';
import {
  createPpoNetworks,
  disposePpoNetworks,
  PPO_STEP_STATS,
  ppoGradientStep,
  ppoOptimizer,
  ppoVariables,
  type PpoNetworks,
} from './ppo-update.js';

/*
 * The GPU engine's PPO update against the CPU path (tfjs on wasm with the native kernels) from the
 * same networks, rollout and minibatch order: the statistics, every weight and Adam's moments after
 * several passes of minibatches of uneven size. Tolerances are per quantity: statistics to 1e-4
 * relative; a weight's change to 2% of the learning rate per step (Adam divides by √v, so where a
 * gradient is near zero float rounding moves its step by up to that); moments to 1e-3 relative.
 * Then what resume needs: the same update twice gives the same bits, and an update continued from
 * state taken back to the CPU and uploaded again equals one that never left the device.
 */

const found = await gpuTestAdapter('src/agents/ppo-gpu-update.test.ts');

const STATE = 11;
const ACTIONS = 3;
const ROWS = 300;

function rollout(seed: number, rows = ROWS): RolloutArrays {
  const rng = new Rng(seed);
  const normal = (n: number, scale = 1, shift = 0): Float32Array =>
    Float32Array.from({ length: n }, () => shift + scale * rng.normal());
  return {
    rows,
    states: normal(rows * STATE),
    actions: normal(rows * ACTIONS, 0.7),
    logProbs: normal(rows, 0.3, -2.5),
    advantages: normal(rows),
    returns: normal(rows, 0.5),
    values: normal(rows, 0.5),
  };
}

/** Orders for each pass: a seeded shuffle of the first `count` rows. */
function orders(passes: number, count: number, seed: number): Int32Array[] {
  const rng = new Rng(seed);
  return Array.from({ length: passes }, () => {
    const order = Int32Array.from({ length: count }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng.uniform() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    return order;
  });
}

function config(overrides: Partial<PpoConfig>): PpoConfig {
  return resolvePpoConfig({
    nEnvs: 4,
    netDim: 24,
    targetStep: ROWS,
    batchSize: 128,
    repeatTimes: 2,
    learningRate: 1e-3,
    ...overrides,
  });
}

function networks(c: PpoConfig, seed: number): PpoNetworks {
  return createPpoNetworks({
    stateDim: STATE,
    actionDim: ACTIONS,
    netDim: c.netDim,
    activation: c.activation,
    meanSquash: c.meanSquash,
    seed,
  });
}

/** The CPU path over the same minibatches: the summed statistics. */
function cpuUpdate(
  nets: PpoNetworks,
  optimizer: ExactAdam,
  c: PpoConfig,
  data: RolloutArrays,
  passOrders: Int32Array[],
): Float32Array {
  const sums = new Float32Array(PPO_STEP_STATS.length);
  const column = (values: Float32Array, width: number): tf.Tensor =>
    width === 1
      ? tf.tensor1d(values.subarray(0, data.rows))
      : tf.tensor2d(values.subarray(0, data.rows * width), [data.rows, width]);
  const all = {
    states: column(data.states, STATE) as tf.Tensor2D,
    actions: column(data.actions, ACTIONS) as tf.Tensor2D,
    oldLogProbs: column(data.logProbs, 1) as tf.Tensor1D,
    advantages: column(data.advantages, 1) as tf.Tensor1D,
    returns: column(data.returns, 1) as tf.Tensor1D,
    oldValues: column(data.values, 1) as tf.Tensor1D,
  };
  optimizer.setLearningRate(c.learningRate);
  for (const order of passOrders)
    for (let start = 0; start < order.length; start += c.batchSize) {
      const stats = tf.tidy(() => {
        const rows = tf.tensor1d(
          order.subarray(start, Math.min(start + c.batchSize, order.length)),
          'int32',
        );
        const batch = {
          states: tf.gather(all.states, rows),
          actions: tf.gather(all.actions, rows),
          oldLogProbs: tf.gather(all.oldLogProbs, rows),
          advantages: tf.gather(all.advantages, rows),
          returns: tf.gather(all.returns, rows),
          oldValues: tf.gather(all.oldValues, rows),
        };
        return ppoGradientStep(nets, optimizer, batch, c);
      });
      const values = stats.dataSync();
      stats.dispose();
      values.forEach((v, i) => (sums[i] = (sums[i] as number) + v));
    }
  for (const t of Object.values(all)) t.dispose();
  return sums;
}

async function values(nets: PpoNetworks): Promise<Float32Array[]> {
  return Promise.all(ppoVariables(nets).map(async (v) => (await v.data()) as Float32Array));
}

// Generous: lavapipe compiles each kernel variant on first use (see vitest.config.ts).
describe.skipIf(!found)('PPO update on the GPU engine', { timeout: 240_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  async function compare(overrides: Partial<PpoConfig>, rows = ROWS): Promise<void> {
    const c = config(overrides);
    const data = rollout(5, rows);
    const passOrders = orders(c.repeatTimes, rows, 9);
    const cpuNets = networks(c, 3);
    const gpuNets = networks(c, 3);
    const before = await values(cpuNets);
    const cpuOptimizer = ppoOptimizer(c.learningRate, c.adamEpsilon);
    const gpuOptimizer = ppoOptimizer(c.learningRate, c.adamEpsilon);
    try {
      const cpuSums = cpuUpdate(cpuNets, cpuOptimizer, c, data, passOrders);
      const engine = await GpuPpoUpdate.create(gpu, gpuNets, gpuOptimizer, c);
      const result = await engine.train(data, (p) => passOrders[p] as Int32Array, {
        learningRate: c.learningRate,
        targetKl: null,
      });
      const steps = c.repeatTimes * Math.ceil(rows / c.batchSize);
      expect(result.steps).toBe(steps);
      expect(result.dispatches).toBe(steps * engine.program.dispatchesPerStep);
      PPO_STEP_STATS.forEach((name, i) => {
        const want = cpuSums[i] as number;
        expect(Math.abs((result.statSums[i] as number) - want), name).toBeLessThanOrEqual(
          1e-4 * Math.abs(want) + 1e-5,
        );
      });
      const cpu = await values(cpuNets);
      const gpuValues = await values(gpuNets);
      const tolerance = 0.02 * c.learningRate * steps + 1e-6;
      ppoVariables(cpuNets).forEach((variable, v) => {
        let worst = 0;
        (cpu[v] as Float32Array).forEach((want, i) => {
          const moved = want - ((before[v] as Float32Array)[i] as number);
          const gpuMoved =
            ((gpuValues[v] as Float32Array)[i] as number) -
            ((before[v] as Float32Array)[i] as number);
          worst = Math.max(worst, Math.abs(moved - gpuMoved));
        });
        expect(
          worst,
          `${variable.name}: worst difference of a weight's change`,
        ).toBeLessThanOrEqual(tolerance);
      });
      await engine.syncOptimizer(gpuOptimizer);
      const cpuMoments = await cpuOptimizer.moments(ppoVariables(cpuNets));
      const gpuMoments = await gpuOptimizer.moments(ppoVariables(gpuNets));
      expect(gpuMoments.accBeta1).toBe(cpuMoments.accBeta1);
      expect(gpuMoments.accBeta2).toBe(cpuMoments.accBeta2);
      for (const [v, m] of cpuMoments.m.entries()) {
        const scale = Math.max(...Array.from(m, Math.abs), 1e-12);
        const got = gpuMoments.m[v] as Float32Array;
        const worst = Math.max(...Array.from(m, (x, i) => Math.abs(x - (got[i] as number))));
        expect(worst / scale, `first moment of variable ${v}`).toBeLessThanOrEqual(2e-3);
      }
      expect(gpuOptimizer.iterations).toBe(cpuOptimizer.iterations);
    } finally {
      cpuOptimizer.dispose();
      gpuOptimizer.dispose();
      disposePpoNetworks(cpuNets);
      disposePpoNetworks(gpuNets);
    }
  }

  it('matches the CPU path: ReLU, tanh mean, advantages normalized per minibatch', async () => {
    await compare({});
  });

  it('matches the CPU path: tanh layers, raw mean, clipped value loss, rollout-normalized advantages', async () => {
    await compare(
      {
        activation: 'tanh',
        meanSquash: 'clip',
        clipValueLoss: true,
        normalizeAdvantagesOver: 'rollout',
        batchSize: 100,
      },
      250,
    );
  });

  it('gives the same bits twice, and the same bits after its state went to the CPU and back', async () => {
    const c = config({});
    const data = rollout(8);
    const passOrders = orders(c.repeatTimes, ROWS, 4);
    const train = async (engine: GpuPpoUpdate): Promise<void> => {
      await engine.train(data, (p) => passOrders[p] as Int32Array, {
        learningRate: c.learningRate,
        targetKl: null,
      });
    };
    const runs: Float32Array[][] = [];
    for (const resume of [false, false, true]) {
      const nets = networks(c, 6);
      const optimizer = ppoOptimizer(c.learningRate, c.adamEpsilon);
      let engine = await GpuPpoUpdate.create(gpu, nets, optimizer, c);
      await train(engine);
      if (resume) {
        // As a checkpoint and a resume do: the state back to tfjs, then a new program from it.
        await engine.syncOptimizer(optimizer);
        engine = await GpuPpoUpdate.create(gpu, nets, optimizer, c);
      }
      await train(engine);
      runs.push(await values(nets));
      optimizer.dispose();
      disposePpoNetworks(nets);
    }
    const [first, second, resumed] = runs as [Float32Array[], Float32Array[], Float32Array[]];
    first.forEach((w, v) => {
      expect(
        Buffer.from((second[v] as Float32Array).buffer).equals(Buffer.from(w.buffer)),
        `run twice, variable ${v}`,
      ).toBe(true);
      expect(
        Buffer.from((resumed[v] as Float32Array).buffer).equals(Buffer.from(w.buffer)),
        `resumed, variable ${v}`,
      ).toBe(true);
    });
  });

  it('counts the buffers it holds, and times one minibatch step per kernel by device timestamps', async () => {
    const c = config({});
    const nets = networks(c, 4);
    const optimizer = ppoOptimizer(c.learningRate, c.adamEpsilon);
    const before = gpu.allocatedBytes;
    const engine = await GpuPpoUpdate.create(gpu, nets, optimizer, c);
    // Weights, m, v and the gradients at least, and the rollout's columns.
    const rolloutBytes = ROWS * (STATE + ACTIONS + 4) * 4;
    expect(gpu.allocatedBytes - before).toBeGreaterThan(4 * engine.program.size * 4 + rolloutBytes);
    const kernels = await engine.program.profileStep(rollout(2), c.learningRate);
    expect(kernels).toBeDefined();
    const labels = (kernels ?? []).map((k) => k.kernel);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(expect.arrayContaining(['gather minibatch', 'ppo loss A=3', 'adam']));
    expect((kernels ?? []).reduce((n, k) => n + k.dispatches, 0)).toBe(
      engine.program.dispatchesPerStep,
    );
    for (const k of kernels ?? []) expect(k.seconds).toBeGreaterThanOrEqual(0);
    optimizer.dispose();
    disposePpoNetworks(nets);
  });

  it('stops after the pass whose last minibatch passes the target KL, reading once per pass', async () => {
    const c = config({ repeatTimes: 4 });
    const nets = networks(c, 2);
    const optimizer = ppoOptimizer(c.learningRate, c.adamEpsilon);
    const engine = await GpuPpoUpdate.create(gpu, nets, optimizer, c);
    gpu.takeCounts();
    const result = await engine.train(rollout(1), (p) => orders(4, ROWS, 3)[p] as Int32Array, {
      learningRate: c.learningRate,
      targetKl: 0,
    });
    expect(result.passes).toBe(1);
    expect(result.steps).toBe(Math.ceil(ROWS / c.batchSize));
    // One read of the statistics for the pass, one of the weights after it.
    expect(gpu.takeCounts().reads).toBe(2);
    optimizer.dispose();
    disposePpoNetworks(nets);
  });
});

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { TradelabError } from '../core/index.js';
import { syntheticMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import type { Policy } from '../eval/evaluate.js';
import { loadPpoModel, savePpoModel } from './ppo-checkpoint.js';
import {
  parsePpoOverrides,
  resolvePpoConfig,
  resolveSavedPpoConfig,
  type PpoConfig,
} from './ppo-config.js';
import { isExactAdam } from '../models/index.js';
import { disposePpoNetworks } from './ppo-update.js';
import { PpoTrainer, type PpoUpdateReport } from './ppo.js';
import { tempDir } from '../../test/support/temp-dir.js';

const SMALL: Partial<PpoConfig> = {
  netDim: 16,
  targetStep: 64,
  batchSize: 32,
  repeatTimes: 2,
  breakStep: 256,
  seed: 3,
};

let dir: string;
beforeAll(async () => {
  await useBackend('wasm');
  dir = tempDir('tradelab-ppo-');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function env(nEnvs = 4): VectorTradingEnv {
  return new VectorTradingEnv(syntheticMarket({ assets: 2, bars: 200, seed: 5 }), undefined, {
    nEnvs,
    episodeLength: 20,
  });
}

/** What a report says, without the timings (which differ run to run). */
function learned(report: PpoUpdateReport): Record<string, unknown> {
  const timings = new Set([
    'rolloutSeconds',
    'envSeconds',
    'policySeconds',
    'updateSeconds',
    'envStepsPerSecond',
    'samplesPerSecond',
    'transferSeconds',
    'tensors',
    'backendHeapBytes',
  ]);
  return Object.fromEntries(Object.entries(report).filter(([key]) => !timings.has(key)));
}

function weights(trainer: PpoTrainer): number[][] {
  return [
    ...trainer.nets.actor.variables,
    trainer.nets.logStd,
    ...trainer.nets.critic.variables,
  ].map((v) => Array.from(v.dataSync()));
}

describe('PPO config', () => {
  it('fills in the defaults', () => {
    expect(resolvePpoConfig()).toMatchObject({ netDim: 256, targetStep: 2048, gamma: 0.99 });
  });

  it('names the field and the fix', () => {
    let error: unknown;
    try {
      resolvePpoConfig({ targetStep: 100, nEnvs: 16 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TradelabError);
    expect((error as TradelabError).message).toMatch(
      /targetStep: 100 is not a multiple of nEnvs 16/,
    );
    expect((error as TradelabError).hint).toBe('use 96');
    // Envs without a rollout size: 2,048 rounded to a multiple of them, for every caller.
    expect(resolvePpoConfig({ nEnvs: 3 }).targetStep).toBe(2049);
    expect(resolvePpoConfig({ nEnvs: 16 }).targetStep).toBe(2048);
    expect(resolvePpoConfig({ nEnvs: 5000 }).targetStep).toBe(5000);
    expect(() => resolvePpoConfig({ batchSize: 4096, targetStep: 2048 })).toThrow(/batchSize/);
    expect(() => resolvePpoConfig({ gamma: 1.5 })).toThrow(/gamma: must be in \[0, 1\]/);
    expect(() => resolvePpoConfig({ netdim: 3 } as Partial<PpoConfig>)).toThrow(
      /netdim.*not a PPO hyperparameter/,
    );
  });

  it('checks the options read against cleanrl', () => {
    expect(resolvePpoConfig()).toMatchObject({
      normalizeAdvantagesOver: 'minibatch',
      clipValueLoss: false,
      annealLr: false,
      targetKl: null,
      adamEpsilon: 1e-5,
    });
    expect(resolvePpoConfig({ targetKl: 0.02 }).targetKl).toBe(0.02);
    expect(() => resolvePpoConfig({ targetKl: 0 })).toThrow(
      /targetKl: must be a number > 0 or null/,
    );
    expect(() => resolvePpoConfig({ targetKl: Number.NaN })).toThrow(/targetKl/);
    // Values as untyped JSON or a flag could bring them.
    const loose = (partial: Record<string, unknown>): Partial<PpoConfig> => partial;
    expect(() => resolvePpoConfig(loose({ targetKl: '0.02' }))).toThrow(/targetKl.*"0.02"/);
    expect(() => resolvePpoConfig(loose({ clipValueLoss: 'yes' }))).toThrow(
      /clipValueLoss: must be true or false, got "yes"/,
    );
    expect(() => resolvePpoConfig(loose({ annealLr: 1 }))).toThrow(
      /annealLr: must be true or false/,
    );
    expect(() => resolvePpoConfig(loose({ normalizeAdvantagesOver: 'batch' }))).toThrow(
      /normalizeAdvantagesOver: unknown "batch".*/,
    );
    expect(() => resolvePpoConfig({ adamEpsilon: 0 })).toThrow(/adamEpsilon: must be in \(0, 1\]/);
  });

  it('resumes a config saved before a setting existed with what training did then', () => {
    // A config as written before the five settings existed.
    const {
      normalizeAdvantagesOver: _scope,
      clipValueLoss: _clip,
      annealLr: _anneal,
      targetKl: _kl,
      adamEpsilon: _epsilon,
      ...saved
    } = resolvePpoConfig({ netDim: 32 });
    expect(resolveSavedPpoConfig(saved)).toEqual({
      ...resolvePpoConfig({ netDim: 32 }),
      normalizeAdvantagesOver: 'rollout',
      clipValueLoss: false,
      annealLr: false,
      targetKl: null,
      adamEpsilon: 1e-7,
    });
    // What a file does hold is kept, and checked.
    const today = resolvePpoConfig({ targetKl: 0.02 });
    expect(resolveSavedPpoConfig(today)).toEqual(today);
    expect(() => resolveSavedPpoConfig({ ...today, targetKl: -1 })).toThrow(/targetKl/);
  });

  it('reads settings from key=value text', () => {
    expect(
      parsePpoOverrides('annealLr=true, targetKl=0.02,normalizeAdvantagesOver=minibatch,seed=1_0'),
    ).toEqual({ annealLr: true, targetKl: 0.02, normalizeAdvantagesOver: 'minibatch', seed: 10 });
    expect(parsePpoOverrides('targetKl=null')).toEqual({ targetKl: null });
    expect(() => parsePpoOverrides('annealLr')).toThrow(/"annealLr" is not key=value/);
    expect(() => parsePpoOverrides('lr=1e-3')).toThrow(/lr: is not a PPO hyperparameter/);
    expect(() => parsePpoOverrides('clipValueLoss=1')).toThrow(/clipValueLoss/);
  });
});

describe('PPO trainer', () => {
  it('reports every figure of an update, finite and consistent', async () => {
    const trainer = new PpoTrainer(env(), SMALL);
    const reports = await trainer.train();
    expect(reports).toHaveLength(4);
    const last = reports.at(-1) as PpoUpdateReport;
    expect(last.update).toBe(4);
    expect(last.envSteps).toBe(256);
    for (const [key, value] of Object.entries(last))
      if (typeof value === 'number') expect(Number.isFinite(value), key).toBe(true);
    // 64 steps of 4 envs with 20-step episodes: some autoreset steps are left out.
    expect(last.samples).toBeLessThan(64);
    expect(last.samples).toBeGreaterThan(48);
    expect(reports.some((r) => r.episodes > 0)).toBe(true);
    expect(trainer.finished).toBe(true);
    trainer.dispose();
  });

  it('counts every host↔device transfer of an update', async () => {
    const trainer = new PpoTrainer(env(), SMALL);
    const report = await trainer.update();
    const { obsDim, assets, nEnvs } = trainer.env;
    const steps = 64 / nEnvs;
    const f = 4; // bytes per float32 and per int32 index
    // Rollout: each step's observations up and means + values back; the bootstrap's values; the
    // log-std once per rollout and once for the report.
    const rolloutUp = (steps + 1) * nEnvs * obsDim * f;
    const rolloutDown = steps * nEnvs * (assets + 1) * f + nEnvs * f + 2 * assets * f;
    // Update: the whole rollout once, an index list per minibatch, the summed statistics back.
    const updateUp = 64 * (obsDim + assets + 3) * f + report.samples * 2 * f;
    expect(report.uploadBytes).toBe(rolloutUp + updateUp);
    expect(report.downloadBytes).toBe(rolloutDown + 5 * f);
    expect(report.reads).toBe(steps + 4);
    expect(report.transferSeconds).toBeGreaterThan(0);
    trainer.dispose();
  });

  it('counts one read per pass when a target KL needs the KL on the host', async () => {
    const trainer = new PpoTrainer(env(), { ...SMALL, repeatTimes: 3, targetKl: 1e9 });
    const report = await trainer.update();
    const steps = 64 / trainer.env.nEnvs;
    expect(report.passes).toBe(3);
    expect(report.reads).toBe(steps + 3 + 3);
    // Each pass reads the summed statistics and its last minibatch's KL; the log-std reads stay.
    const rolloutDown =
      steps * trainer.env.nEnvs * (trainer.env.assets + 1) * 4 +
      trainer.env.nEnvs * 4 +
      2 * trainer.env.assets * 4;
    expect(report.downloadBytes).toBe(rolloutDown + 3 * 6 * 4);
    trainer.dispose();
    // A clipped value loss uploads the rollout's values too (one float per sample slot).
    const clipping = new PpoTrainer(env(), { ...SMALL, clipValueLoss: true });
    const plain = new PpoTrainer(env(), SMALL);
    const [a, b] = [await clipping.update(), await plain.update()];
    expect(a.uploadBytes - b.uploadBytes).toBe(64 * 4);
    expect(a.reads).toBe(b.reads);
    clipping.dispose();
    plain.dispose();
  });

  it('anneals the learning rate linearly to 0 over breakStep', async () => {
    const trainer = new PpoTrainer(env(), { ...SMALL, learningRate: 1e-3, annealLr: true });
    const reports = await trainer.train();
    expect(reports.map((r) => r.learningRate)).toEqual([1e-3, 0.75e-3, 0.5e-3, 0.25e-3]);
    const optimizer = trainer.optimizer;
    expect(isExactAdam(optimizer) ? optimizer.rate : undefined).toBe(0.25e-3);
    trainer.dispose();
    const constant = new PpoTrainer(env(), { ...SMALL, learningRate: 1e-3 });
    expect((await constant.train()).map((r) => r.learningRate)).toEqual([1e-3, 1e-3, 1e-3, 1e-3]);
    constant.dispose();
    // An optimizer whose rate cannot be set is refused, not silently left at one rate.
    const nets = new PpoTrainer(env(), SMALL);
    expect(
      () =>
        new PpoTrainer(
          env(),
          { ...SMALL, annealLr: true },
          {
            resume: {
              nets: nets.nets,
              optimizer: tf.train.adam(1e-3),
              updatesDone: 0,
              envSteps: 0,
            },
          },
        ),
    ).toThrow(/annealLr needs an optimizer whose learning rate can be set/);
    nets.dispose();
  });

  it('stops an update at the target KL and reports the minibatches it ran', async () => {
    const config = { ...SMALL, repeatTimes: 3 };
    const weightsAfterOne = async (
      partial: Partial<PpoConfig>,
    ): Promise<{
      report: PpoUpdateReport;
      weights: number[][];
    }> => {
      const trainer = new PpoTrainer(env(), { ...config, ...partial });
      const report = await trainer.update();
      const result = { report, weights: weights(trainer) };
      trainer.dispose();
      return result;
    };
    const full = await weightsAfterOne({});
    expect(full.report.passes).toBe(3);
    const perPass = Math.ceil(full.report.samples / 32);
    expect(full.report.minibatches).toBe(3 * perPass);
    // Any step moves the policy, so the first pass's KL is above 1e-9: one pass, then stop...
    const stopped = await weightsAfterOne({ targetKl: 1e-9 });
    expect(stopped.report.passes).toBe(1);
    expect(stopped.report.minibatches).toBe(perPass);
    expect(stopped.report.approxKl).toBeGreaterThan(0);
    // ...leaving the weights exactly as one pass leaves them.
    expect(stopped.weights).toEqual((await weightsAfterOne({ repeatTimes: 1 })).weights);
    expect(stopped.weights).not.toEqual(full.weights);
    // A target never reached changes nothing but the reads.
    const never = await weightsAfterOne({ targetKl: 1e9 });
    expect(never.weights).toEqual(full.weights);
    expect({ ...learned(never.report), reads: 0, downloadBytes: 0 }).toEqual({
      ...learned(full.report),
      reads: 0,
      downloadBytes: 0,
    });
  });

  it.each([
    ['the defaults', {}],
    [
      "cleanrl's options",
      { clipValueLoss: true, targetKl: 1e9, normalizeAdvantagesOver: 'minibatch', annealLr: true },
    ],
  ] as [string, Partial<PpoConfig>][])(
    'leaks no tensors across updates (%s)',
    async (_, options) => {
      const trainer = new PpoTrainer(env(), { ...SMALL, ...options, breakStep: 64 * 8 });
      await trainer.update(); // creates Adam's slots
      const count = tf.memory().numTensors;
      for (let i = 0; i < 3; i++) await trainer.update();
      expect(tf.memory().numTensors).toBe(count);
      trainer.dispose();
    },
  );

  it('is deterministic: same seed, same reports and weights', async () => {
    const run = async (): Promise<{ reports: unknown[]; weights: number[][] }> => {
      const trainer = new PpoTrainer(env(), SMALL);
      const reports = (await trainer.train()).map(learned);
      const result = { reports, weights: weights(trainer) };
      trainer.dispose();
      return result;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const other = new PpoTrainer(env(), { ...SMALL, seed: 4 });
    await other.train();
    expect(weights(other)).not.toEqual(first.weights);
    other.dispose();
  });

  const RESUMABLE: [string, Partial<PpoConfig>][] = [
    ['the defaults', {}],
    [
      "cleanrl's options",
      {
        annealLr: true,
        clipValueLoss: true,
        targetKl: 0.005,
        normalizeAdvantagesOver: 'minibatch',
        adamEpsilon: 1e-5,
      },
    ],
  ];
  it.each(RESUMABLE)(
    'resumes from a checkpoint exactly where it left off (%s)',
    async (_, options) => {
      const config = { ...SMALL, ...options, breakStep: 64 * 4 };
      const straight = new PpoTrainer(env(), config, { resetEvery: 2 });
      const expected = (await straight.train()).map(learned);
      const expectedWeights = weights(straight);
      straight.dispose();

      const first = new PpoTrainer(env(), config, { resetEvery: 2 });
      await first.update();
      await first.update();
      const path = join(dir, 'checkpoint');
      await savePpoModel(path, first.nets, {
        ppo: first.config,
        checkpoint: {
          optimizer: first.optimizer,
          counters: first.trainingCounters(),
        },
      });
      const counters = first.trainingCounters();
      first.dispose();
      const loaded = await loadPpoModel(path);
      expect(loaded.training).toEqual(counters);
      expect(loaded.training).toMatchObject({ updatesDone: 2, envSteps: 128 });
      // The reward scaling's statistics come back too (normalizeRewards is on by default).
      expect(loaded.training?.returnStatistics?.count).toBeGreaterThan(100);
      const resumed = new PpoTrainer(env(), loaded.ppo, {
        resetEvery: 2,
        resume: {
          nets: loaded.nets,
          optimizer: loaded.optimizer as tf.Optimizer,
          ...(loaded.training as NonNullable<typeof loaded.training>),
        },
      });
      const rest = (await resumed.train()).map(learned);
      expect(rest).toEqual(expected.slice(2));
      expect(weights(resumed)).toEqual(expectedWeights);
      resumed.dispose();
    },
  );
});

describe('PPO model files', () => {
  it('round-trips the networks, the config and the meta', async () => {
    const trainer = new PpoTrainer(env(), SMALL);
    await trainer.update();
    const path = join(dir, 'model');
    await savePpoModel(path, trainer.nets, {
      ppo: trainer.config,
      meta: { symbols: ['A', 'B'] },
    });
    // Saving again replaces the directory whole.
    await savePpoModel(path, trainer.nets, {
      ppo: trainer.config,
      meta: { symbols: ['A', 'B'] },
    });
    const loaded = await loadPpoModel(path);
    expect(loaded.meta).toEqual({ symbols: ['A', 'B'] });
    expect(loaded.ppo).toEqual(trainer.config);
    expect(loaded.optimizer).toBeUndefined();
    const obs = Float32Array.from({ length: 2 * trainer.env.obsDim }, (_, i) => Math.sin(i));
    const act = async (policy: Policy): Promise<number[]> => {
      const out = new Float32Array(4);
      await policy(obs, out, 0);
      return Array.from(out);
    };
    const reloaded = new PpoTrainer(env(), SMALL, {
      resume: { nets: loaded.nets, optimizer: tf.train.adam(1e-3), updatesDone: 0, envSteps: 0 },
    });
    const actions = await act(trainer.policy());
    expect(actions.some((a) => a !== 0)).toBe(true);
    expect(await act(reloaded.policy())).toEqual(actions);
    reloaded.dispose();
    trainer.dispose();
  });

  it('trains an FT-Transformer actor and round-trips it through the model files', async () => {
    const trainer = new PpoTrainer(env(), { ...SMALL, policy: 'ft_transformer', breakStep: 128 });
    const reports = await trainer.train();
    expect(reports.every((r) => Number.isFinite(r.policyLoss))).toBe(true);
    const path = join(dir, 'ft-model');
    await savePpoModel(path, trainer.nets, { ppo: trainer.config });
    const loaded = await loadPpoModel(path);
    expect(loaded.ppo.policy).toBe('ft_transformer');
    expect(Object.keys(loaded.nets.actor.namedVariables())).toContain('block0/wq');
    const obs = Float32Array.from({ length: 2 * trainer.env.obsDim }, (_, i) => Math.cos(i));
    const act = async (policy: Policy): Promise<number[]> => {
      const out = new Float32Array(4);
      await policy(obs, out, 0);
      return Array.from(out);
    };
    const reloaded = new PpoTrainer(
      env(),
      { ...SMALL, policy: 'ft_transformer' },
      {
        resume: { nets: loaded.nets, optimizer: tf.train.adam(1e-3), updatesDone: 0, envSteps: 0 },
      },
    );
    expect(await act(reloaded.policy())).toEqual(await act(trainer.policy()));
    reloaded.dispose();
    trainer.dispose();
  });

  it('loads a model saved before the cleanrl options with the settings it trained with', async () => {
    const trainer = new PpoTrainer(env(), SMALL);
    const path = join(dir, 'older');
    await savePpoModel(path, trainer.nets, { ppo: trainer.config });
    trainer.dispose();
    const json = JSON.parse(readFileSync(join(path, 'model.json'), 'utf8')) as {
      ppo: Record<string, unknown>;
    };
    delete json.ppo.normalizeAdvantagesOver;
    delete json.ppo.adamEpsilon;
    writeFileSync(join(path, 'model.json'), JSON.stringify(json));
    const loaded = await loadPpoModel(path);
    expect(loaded.ppo).toMatchObject({ normalizeAdvantagesOver: 'rollout', adamEpsilon: 1e-7 });
    disposePpoNetworks(loaded.nets);
  });

  it('says what is wrong with a damaged model directory', async () => {
    const trainer = new PpoTrainer(env(), SMALL);
    const path = join(dir, 'damaged');
    await savePpoModel(path, trainer.nets, { ppo: trainer.config });
    trainer.dispose();
    writeFileSync(join(path, 'weights.bin'), new Uint8Array(10));
    await expect(loadPpoModel(path)).rejects.toThrow(/weights\.bin: holds 10 bytes/);
    writeFileSync(join(path, 'model.json'), '{ nope');
    await expect(loadPpoModel(path)).rejects.toThrow(/model\.json: is not valid JSON/);
    await expect(loadPpoModel(join(dir, 'nothing'))).rejects.toThrow(/no model at/);
  });
});

describe('PPO memory', () => {
  it('releases every tensor when a trainer is disposed', async () => {
    const before = tf.memory().numTensors;
    const trainer = new PpoTrainer(env(), SMALL);
    await trainer.update();
    trainer.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

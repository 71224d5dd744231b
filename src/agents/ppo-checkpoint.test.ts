import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '../compute/tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorOfAsync } from '../../test/support/assertions.js';
import { tempDir } from '../../test/support/run-cli.js';
import { useBackend } from '../compute/backends.js';
import { loadPpoModel, savePpoModel } from './ppo-checkpoint.js';
import { resolvePpoConfig } from './ppo-config.js';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  ppoGradientStep,
  ppoOptimizer,
  ppoVariables,
  syntheticMinibatch,
  type PpoNetworks,
} from './ppo-update.js';

/*
 * A checkpoint holds every piece of the optimizer's state: a restored Adam takes the next step to
 * exactly the weights the original takes. tfjs's own AdamOptimizer.setWeights rebuilds its
 * bias-correction products (β₁ᵗ, β₂ᵗ) as pow(β, t + 1), where training built them by t float32
 * multiplications; the two differ in the last bit at many t (β₂ at t = 2, 5, 18…, β₁ at t = 8…),
 * enough to send a resumed run down another path.
 */

let dir: string;
beforeAll(async () => {
  await useBackend('wasm');
  dir = tempDir('tradelab-ppo-checkpoint-');
});

const NET = { stateDim: 3, actionDim: 2, netDim: 4, seed: 1 };

function weightBytes(nets: PpoNetworks): number[] {
  return ppoVariables(nets).flatMap((v) => Array.from(new Uint8Array(v.dataSync().buffer)));
}

describe('PPO checkpoints', () => {
  it.each([1, 2, 5, 8, 18, 25])(
    "restore Adam's state exactly after %i steps: the next step lands on the same weights",
    async (steps) => {
      const ppo = resolvePpoConfig({ netDim: 4, learningRate: 1e-2 });
      const nets = createPpoNetworks(NET);
      const optimizer = ppoOptimizer(ppo.learningRate, ppo.adamEpsilon);
      const batch = syntheticMinibatch(16, 3, 2, 7);
      for (let i = 0; i < steps; i++) ppoGradientStep(nets, optimizer, batch).dispose();
      const path = join(dir, `adam-${steps}`);
      await savePpoModel(path, nets, {
        ppo,
        checkpoint: { optimizer, counters: { updatesDone: steps, envSteps: 0 } },
      });
      const loaded = await loadPpoModel(path);
      expect(weightBytes(loaded.nets)).toEqual(weightBytes(nets));
      ppoGradientStep(nets, optimizer, batch).dispose();
      ppoGradientStep(loaded.nets, loaded.optimizer as tf.Optimizer, batch).dispose();
      expect(weightBytes(loaded.nets)).toEqual(weightBytes(nets));
      disposeMinibatch(batch);
      optimizer.dispose();
      loaded.optimizer?.dispose();
      disposePpoNetworks(nets);
      disposePpoNetworks(loaded.nets);
    },
  );
});

/** A fresh model (and checkpoint) directory after a few steps; returns its path. */
async function savedCheckpoint(name: string): Promise<string> {
  const ppo = resolvePpoConfig({ netDim: 4 });
  const nets = createPpoNetworks(NET);
  const optimizer = ppoOptimizer(ppo.learningRate, ppo.adamEpsilon);
  const batch = syntheticMinibatch(16, 3, 2, 7);
  for (let i = 0; i < 3; i++) ppoGradientStep(nets, optimizer, batch).dispose();
  const path = join(dir, name);
  const returnStatistics = { count: 48.0001, mean: 0.002, variance: 3e-5 };
  await savePpoModel(path, nets, {
    ppo,
    checkpoint: { optimizer, counters: { updatesDone: 3, envSteps: 0, returnStatistics } },
  });
  disposeMinibatch(batch);
  optimizer.dispose();
  disposePpoNetworks(nets);
  return path;
}

function disposeLoaded(loaded: Awaited<ReturnType<typeof loadPpoModel>>): void {
  loaded.optimizer?.dispose();
  disposePpoNetworks(loaded.nets);
}

const modelJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(path, 'model.json'), 'utf8')) as Record<string, unknown>;

/** Flips one bit of `file` in the middle. */
function flipByte(file: string): void {
  const bytes = readFileSync(file);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] as number) ^ 0x01;
  writeFileSync(file, bytes);
}

/** Removes what an older tradelab did not write: the checksums (and, for a checkpoint, Adam's products). */
function makeOlder(path: string): void {
  const json = modelJson(path) as {
    weightsSha256?: string;
    ppo: { normalizeRewards?: boolean };
    training?: {
      returnStatistics?: unknown;
      optimizerSha256?: string;
      optimizerManifest: { paths: string[]; weights: { name: string }[] }[];
    };
  };
  delete json.weightsSha256;
  delete json.ppo.normalizeRewards;
  if (json.training !== undefined) {
    delete json.training.returnStatistics;
    delete json.training.optimizerSha256;
    const group = json.training.optimizerManifest[0];
    if (group !== undefined) {
      const kept = group.weights.filter((w) => !w.name.startsWith('accBeta'));
      const dropped = group.weights.length - kept.length;
      group.weights = kept;
      // The products are the last two float32 scalars of optimizer.bin.
      const file = join(path, 'optimizer.bin');
      const bytes = readFileSync(file);
      writeFileSync(file, bytes.subarray(0, bytes.length - 4 * dropped));
    }
  }
  writeFileSync(join(path, 'model.json'), JSON.stringify(json));
}

describe('PPO model integrity', () => {
  it("records a SHA-256 of weights.bin and of a checkpoint's optimizer.bin", async () => {
    const path = await savedCheckpoint('sums');
    const json = modelJson(path) as {
      weightsSha256: string;
      training: { optimizerSha256: string };
    };
    const sha = (file: string): string =>
      createHash('sha256')
        .update(readFileSync(join(path, file)))
        .digest('hex');
    expect(json.weightsSha256).toBe(sha('weights.bin'));
    expect(json.training.optimizerSha256).toBe(sha('optimizer.bin'));
    const loaded = await loadPpoModel(path);
    expect(loaded.warnings).toEqual([]);
    disposeLoaded(loaded);
  });

  it.each(['weights.bin', 'optimizer.bin'])(
    'refuses a checkpoint whose %s changed after it was written, naming the file',
    async (file) => {
      const path = await savedCheckpoint(`flipped-${file}`);
      flipByte(join(path, file));
      const error = await errorOfAsync(loadPpoModel(path));
      expect(error.code).toBe('MODEL_INVALID');
      expect(error.message).toContain(join(path, file));
      expect(error.message).toMatch(
        /is corrupted: its SHA-256 is [0-9a-f]{12}…, model\.json recorded [0-9a-f]{12}…/,
      );
      expect(error.hint).toMatch(/start a new run|train again/);
    },
  );

  it("keeps the reward scaling's statistics, and refuses damaged ones", async () => {
    const path = await savedCheckpoint('statistics');
    const loaded = await loadPpoModel(path);
    expect(loaded.training?.returnStatistics).toEqual({
      count: 48.0001,
      mean: 0.002,
      variance: 3e-5,
    });
    disposeLoaded(loaded);
    const json = modelJson(path) as { training: { returnStatistics: Record<string, unknown> } };
    json.training.returnStatistics.variance = -1;
    writeFileSync(join(path, 'model.json'), JSON.stringify(json));
    await expect(loadPpoModel(path)).rejects.toThrow(
      /model\.json: training\.returnStatistics .* is not \{count > 0, mean, variance ≥ 0\}/,
    );
  });

  it('refuses to save non-finite weights, and leaves what was there', async () => {
    const path = await savedCheckpoint('diverged');
    const before = readFileSync(join(path, 'weights.bin'));
    const ppo = resolvePpoConfig({ netDim: 4 });
    const nets = createPpoNetworks(NET);
    const critic = nets.critic.variables[0] as tf.Variable;
    critic.assign(tf.fill(critic.shape, Number.NaN));
    const error = await errorOfAsync(savePpoModel(path, nets, { ppo }));
    expect(error.code).toBe('TRAINING_DIVERGED');
    expect(error.message).toMatch(/critic\/.* holds NaN/);
    expect(readFileSync(join(path, 'weights.bin'))).toEqual(before);
    await expect(savePpoModel(join(dir, 'never'), nets, { ppo })).rejects.toThrow(/NaN/);
    expect(existsSync(join(dir, 'never'))).toBe(false);
    disposePpoNetworks(nets);
  });

  it('refuses to load non-finite weights, with or without a checksum', async () => {
    for (const older of [false, true]) {
      const path = await savedCheckpoint(`nan-${older}`);
      const file = join(path, 'weights.bin');
      const nan = new Float32Array(readFileSync(file).length / 4).fill(Number.NaN);
      writeFileSync(file, new Uint8Array(nan.buffer));
      const json = modelJson(path);
      if (older) delete json.weightsSha256;
      else json.weightsSha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      writeFileSync(join(path, 'model.json'), JSON.stringify(json));
      const error = await errorOfAsync(loadPpoModel(path));
      expect(error.code).toBe('MODEL_INVALID');
      expect(error.message).toMatch(/weights\.bin: actor\/.* holds NaN/);
    }
  });

  it('loads a model or checkpoint of an older tradelab, without checksums, with a warning', async () => {
    const path = await savedCheckpoint('older');
    makeOlder(path);
    const loaded = await loadPpoModel(path);
    expect(loaded.training).toEqual({ updatesDone: 3, envSteps: 0 });
    // It trained without reward scaling, and goes on without it.
    expect(loaded.ppo.normalizeRewards).toBe(false);
    expect(loaded.warnings.join('\n')).toMatch(/no checksum.*cannot be checked for damage/);
    expect(loaded.warnings.join('\n')).toMatch(/close to, not exactly like/);
    disposeLoaded(loaded);
  });
});

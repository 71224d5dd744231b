import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
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

import * as tf from '../compute/tfjs.js';
import { applyClippedGradients } from '../models/index.js';
import {
  ppoLossGradients,
  type PpoLossConfig,
  type PpoMinibatch,
  type PpoNetworks,
} from './ppo-update.js';
import { PPO_DEFAULTS } from './ppo-config.js';

/*
 * Where a PPO update's time goes, for `tradelab bench ppo-update`: the update is run as its two
 * halves (loss and gradients; clip and optimizer step), each timed, and one run of each is
 * profiled kernel by kernel. The split: matrix products (the FT-Transformer's fused attention
 * and a whole ReLU MLP's forward or backward kernel among them: their work is products, their
 * epilogues ride on them), other kernels (element-wise work:
 * activations, the loss, their gradients), copies (transposes and other data moves), the optimizer
 * (clip and Adam, everything in the second half), and what is left of the first half's wall time
 * once its kernels are counted: JavaScript dispatch (ops, the gradient tape, tidy).
 */

/** Seconds per update in each part (see the file header). */
export interface PpoUpdateSplit {
  products: number;
  elementWise: number;
  copies: number;
  optimizer: number;
  dispatch: number;
  /** Kernel calls per update (both halves). */
  kernels: number;
}

/** Matrix products, the fused attention's included (its work is the Q·Kᵀ and P·V products). */
const PRODUCTS = new Set([
  'BatchMatMul',
  '_FusedMatMul',
  'MatMul',
  'TradelabAttention',
  'TradelabAttentionGrad',
  'TradelabReluMlp',
  'TradelabReluMlpGrad',
]);
const COPIES = new Set([
  'Identity',
  'Reshape',
  'Cast',
  'Transpose',
  'Pack',
  'Concat',
  'Slice',
  'ExpandDims',
  'Squeeze',
  'Tile',
]);

/** The kernels of one profiled call (scopes of custom gradients left out: their kernels count). */
async function profiledKernels(
  run: () => tf.TensorContainer,
): Promise<{ name: string; seconds: number }[]> {
  const info = await tf.profile(run);
  const backend = tf.getBackend();
  return info.kernels
    .filter((k) => (tf.getKernel(k.name, backend) as tf.KernelConfig | undefined) !== undefined)
    .map((k) => ({ name: k.name, seconds: (k.kernelTimeMs as number) / 1000 }));
}

/**
 * Times `updates` updates split in halves and profiles one: seconds per update in each part.
 * Steps the optimizer (the networks change, as in training).
 */
export async function profilePpoUpdate(
  nets: PpoNetworks,
  optimizer: tf.Optimizer,
  batch: PpoMinibatch,
  updates: number,
  config: PpoLossConfig = {},
): Promise<PpoUpdateSplit> {
  const maxNorm = config.maxGradNorm ?? PPO_DEFAULTS.maxGradNorm;
  let gradientSeconds = 0;
  let optimizerSeconds = 0;
  for (let u = 0; u < updates; u++) {
    const started = performance.now();
    const { grads, stats } = ppoLossGradients(nets, batch, config);
    await stats.data(); // on a GPU, waits for the first half
    const halfway = performance.now();
    applyClippedGradients(optimizer, grads, maxNorm);
    const probe = tf.sum(nets.logStd); // on a GPU, waits for the optimizer's step
    await probe.data();
    probe.dispose();
    optimizerSeconds += (performance.now() - halfway) / 1000;
    gradientSeconds += (halfway - started) / 1000;
    tf.dispose([stats, ...Object.values(grads)]);
  }
  gradientSeconds /= updates;
  optimizerSeconds /= updates;

  let grads: tf.NamedTensorMap = {};
  const first = await profiledKernels(() => {
    const result = ppoLossGradients(nets, batch, config);
    grads = result.grads;
    return [result.stats, ...Object.values(result.grads)];
  });
  const second = await profiledKernels(() => {
    applyClippedGradients(optimizer, grads, maxNorm);
    return [];
  });
  tf.dispose(Object.values(grads));
  const sum = (kernels: { seconds: number }[]): number =>
    kernels.reduce((s, k) => s + k.seconds, 0);
  const products = sum(first.filter((k) => PRODUCTS.has(k.name)));
  const copies = sum(first.filter((k) => COPIES.has(k.name)));
  const elementWise = sum(first) - products - copies;
  return {
    products,
    elementWise,
    copies,
    optimizer: optimizerSeconds,
    dispatch: Math.max(0, gradientSeconds - sum(first)),
    kernels: first.length + second.length,
  };
}

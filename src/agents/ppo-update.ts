import * as tf from '../compute/tfjs.js';
import { Mlp, ownVariable, type HiddenActivation } from '../models/mlp.js';
import { FtTransformer } from '../models/ft-transformer.js';
import type { NetworkBody } from '../models/network-body.js';
import { TradelabError } from '../core/index.js';
import { applyClippedGradients, ExactAdam } from '../models/index.js';
import {
  PPO_DEFAULTS,
  type AdvantageScope,
  type MeanSquash,
  type PolicyNetwork,
} from './ppo-config.js';

/*
 * PPO's networks and one minibatch update (cleanrl's ppo_continuous_action.py is the model): a
 * Gaussian actor with a state-independent learned log-std, a critic, the clipped surrogate, the
 * value loss, the entropy bonus, gradients clipped by global norm, and Adam. Every default is
 * PPO_DEFAULTS' (ppo-config.ts), the one source of them: the networks and the loss built here for a
 * bench or a test are the ones the trainer builds.
 */

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Shapes and initialization of {@link PpoNetworks}. */
export interface PpoNetworkConfig {
  stateDim: number;
  actionDim: number;
  /** The actor's network. Default 'mlp'. */
  policy?: PolicyNetwork;
  /** Units of each hidden layer (ElegantRL's netDim). */
  netDim: number;
  /** Hidden layers per network. Default 2. */
  layers?: number;
  /** Hidden activation. Default 'relu'. */
  activation?: HiddenActivation;
  /** How the actor's output becomes the mean: tanh, or as is ('clip'). Default 'tanh'. */
  meanSquash?: MeanSquash;
  /** Initial log standard deviation. Default −0.5. */
  initLogStd?: number;
  /** Seed of the initial weights. Default 0. */
  seed?: number;
}

/** The actor (mean), its log-std, and the critic. */
export interface PpoNetworks {
  actor: NetworkBody;
  logStd: tf.Variable;
  critic: Mlp;
  config: Readonly<PpoNetworkConfig>;
}

/** TensorFlow.js variable names are global: each set of networks gets its own prefix. */
let networksMade = 0;

/** Builds the networks (orthogonal init; actor output gain 0.01, critic 1, as cleanrl). */
export function createPpoNetworks(config: PpoNetworkConfig): PpoNetworks {
  const hidden = Array.from({ length: config.layers ?? PPO_DEFAULTS.layers }, () => config.netDim);
  const seed = config.seed ?? PPO_DEFAULTS.seed;
  const prefix = `ppo${++networksMade}`;
  const common = {
    inputs: config.stateDim,
    hidden,
    activation: config.activation ?? PPO_DEFAULTS.activation,
  };
  return {
    actor:
      config.policy === 'ft_transformer'
        ? new FtTransformer(
            {
              inputs: config.stateDim,
              outputs: config.actionDim,
              outputGain: 0.01,
              seed: 2 * seed,
            },
            `${prefix}/actor`,
          )
        : new Mlp(
            { ...common, outputs: config.actionDim, outputGain: 0.01, seed: 2 * seed },
            `${prefix}/actor`,
          ),
    logStd: ownVariable(
      tf.fill([config.actionDim], config.initLogStd ?? PPO_DEFAULTS.initLogStd),
      `${prefix}/actor/logStd`,
    ),
    critic: new Mlp(
      { ...common, outputs: 1, outputGain: 1, seed: 2 * seed + 1 },
      `${prefix}/critic`,
    ),
    config: { ...config },
  };
}

/** The policy's mean for a batch of states: the actor's output, through tanh unless 'clip'. */
export function actorMean(nets: PpoNetworks, states: tf.Tensor2D): tf.Tensor2D {
  const raw = nets.actor.apply(states);
  const squash = nets.config.meanSquash ?? PPO_DEFAULTS.meanSquash;
  return squash === 'clip' ? raw : tf.tanh(raw);
}

/** Every trainable variable of the networks. */
export function ppoVariables(nets: PpoNetworks): tf.Variable[] {
  return [...nets.actor.variables, nets.logStd, ...nets.critic.variables];
}

/** One minibatch of a rollout. */
export interface PpoMinibatch {
  states: tf.Tensor2D;
  actions: tf.Tensor2D;
  oldLogProbs: tf.Tensor1D;
  advantages: tf.Tensor1D;
  returns: tf.Tensor1D;
  /** The critic's values when the rollout was collected: needed when the value loss is clipped. */
  oldValues?: tf.Tensor1D;
}

/** PPO's loss settings (ElegantRL names where it has them); defaults are PPO_DEFAULTS'. */
export interface PpoLossConfig {
  /** Clip range of the probability ratio. Default 0.2. */
  ratioClip?: number;
  /** Entropy bonus coefficient. Default 0.01. */
  lambdaEntropy?: number;
  /** Value-loss coefficient. Default 0.5. */
  valueCoef?: number;
  /** Gradients are scaled down to this global norm. Default 0.5. */
  maxGradNorm?: number;
  /** Normalize advantages (the step does it only when normalizeAdvantagesOver is 'minibatch'). Default true. */
  normalizeAdvantages?: boolean;
  /** 'minibatch': each minibatch's advantages are normalized here; 'rollout': by the caller. Default 'minibatch'. */
  normalizeAdvantagesOver?: AdvantageScope;
  /** Clip the value loss to the old values ± ratioClip (cleanrl's clip_vloss). Default false. */
  clipValueLoss?: boolean;
}

/** What one update step measured. */
export interface PpoStepStats {
  policyLoss: number;
  valueLoss: number;
  entropy: number;
  approxKl: number;
  clipFraction: number;
}

/** Log-density of `actions` under N(mean, exp(logStd)²), summed over action dimensions. */
export function gaussianLogProb(
  mean: tf.Tensor2D,
  logStd: tf.Tensor1D,
  actions: tf.Tensor2D,
): tf.Tensor1D {
  return tf.tidy(() => {
    const z = tf.div(tf.sub(actions, mean), tf.exp(logStd));
    const perDim = tf.sub(tf.mul(-0.5, tf.square(z)), tf.add(logStd, LOG_SQRT_2PI));
    return tf.sum(perDim, 1);
  });
}

/** The order of the statistics in {@link ppoGradientStep}'s vector. */
export const PPO_STEP_STATS = [
  'policyLoss',
  'valueLoss',
  'entropy',
  'approxKl',
  'clipFraction',
] as const satisfies readonly (keyof PpoStepStats)[];

/**
 * One gradient step on a minibatch. Returns its losses and diagnostics as a tensor on the device
 * (ordered as {@link PPO_STEP_STATS}; the caller disposes it), so a loop of steps can sum them
 * there and read once.
 */
export function ppoGradientStep(
  nets: PpoNetworks,
  optimizer: tf.Optimizer,
  batch: PpoMinibatch,
  config: PpoLossConfig = {},
): tf.Tensor1D {
  return tf.tidy(() => {
    const { grads, stats } = ppoLossGradients(nets, batch, config);
    applyClippedGradients(optimizer, grads, config.maxGradNorm ?? PPO_DEFAULTS.maxGradNorm);
    return stats;
  });
}

/**
 * The first half of {@link ppoGradientStep}: the PPO loss of a minibatch and its gradients with
 * respect to every variable, with the statistics (the caller disposes both).
 */
export function ppoLossGradients(
  nets: PpoNetworks,
  batch: PpoMinibatch,
  config: PpoLossConfig = {},
): { grads: tf.NamedTensorMap; stats: tf.Tensor1D } {
  const clip = config.ratioClip ?? PPO_DEFAULTS.ratioClip;
  const entropyCoef = config.lambdaEntropy ?? PPO_DEFAULTS.lambdaEntropy;
  const valueCoef = config.valueCoef ?? PPO_DEFAULTS.valueCoef;
  const perMinibatch =
    (config.normalizeAdvantages ?? PPO_DEFAULTS.normalizeAdvantages) &&
    (config.normalizeAdvantagesOver ?? PPO_DEFAULTS.normalizeAdvantagesOver) === 'minibatch';
  const clipValues = config.clipValueLoss ?? PPO_DEFAULTS.clipValueLoss;
  const oldValues = batch.oldValues;
  if (clipValues && oldValues === undefined)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      "ppo clipValueLoss needs the minibatch's oldValues",
      {
        hint: "pass the rollout's critic values as oldValues, or set clipValueLoss: false",
      },
    );
  const variables = ppoVariables(nets);
  return tf.tidy(() => {
    const advantages = perMinibatch ? normalizedAdvantages(batch.advantages) : batch.advantages;
    let parts: tf.Scalar[] = [];
    const { value, grads } = tf.variableGrads(() => {
      const mean = actorMean(nets, batch.states);
      const logStd = nets.logStd as tf.Tensor1D;
      const logProb = gaussianLogProb(mean, logStd, batch.actions);
      const logRatio = tf.sub(logProb, batch.oldLogProbs);
      const ratio = tf.exp(logRatio);
      const surrogate = tf.minimum(
        tf.mul(ratio, advantages),
        tf.mul(tf.clipByValue(ratio, 1 - clip, 1 + clip), advantages),
      );
      const policyLoss = tf.neg(tf.mean<tf.Scalar>(surrogate));
      const values = tf.reshape(nets.critic.apply(batch.states), [-1]);
      const squaredError = tf.square(tf.sub(values, batch.returns));
      // Clipped (cleanrl's clip_vloss): past ratioClip from the rollout's value, moving further
      // earns nothing; the larger of the two errors counts, so clipping never lowers the loss.
      const valueLoss =
        clipValues && oldValues !== undefined
          ? tf.mean<tf.Scalar>(
              tf.maximum(
                squaredError,
                tf.square(
                  tf.sub(
                    tf.add(oldValues, tf.clipByValue(tf.sub(values, oldValues), -clip, clip)),
                    batch.returns,
                  ),
                ),
              ),
            )
          : tf.mean<tf.Scalar>(squaredError);
      const entropy = tf.sum<tf.Scalar>(tf.add(logStd, 0.5 + LOG_SQRT_2PI));
      // Diagnostics, kept out of the gradient.
      const approxKl = tf.mean<tf.Scalar>(tf.sub(tf.sub(ratio, 1), logRatio));
      const clipped = tf.mean<tf.Scalar>(
        tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), clip), 'float32'),
      );
      // Kept past variableGrads' scope; only the returned loss is differentiated.
      parts = [policyLoss, valueLoss, entropy, approxKl, clipped].map((t) => tf.keep(t));
      return tf.sub<tf.Scalar>(
        tf.add(policyLoss, tf.mul(valueCoef, valueLoss)),
        tf.mul(entropyCoef, entropy),
      );
    }, variables);
    value.dispose();
    const stats = tf.stack(parts) as tf.Tensor1D;
    for (const t of parts) t.dispose();
    return { grads, stats };
  });
}

/**
 * Advantages normalized to mean 0 and sd 1 over a minibatch (the sample sd, as torch's std, plus
 * 1e-8). A one-row minibatch has no sd: it is left as is rather than turned into NaN.
 */
function normalizedAdvantages(advantages: tf.Tensor1D): tf.Tensor1D {
  const n = advantages.shape[0];
  if (n < 2) return advantages;
  const { mean, variance } = tf.moments(advantages);
  const sd = tf.sqrt(tf.mul(variance, n / (n - 1)));
  return tf.div(tf.sub(advantages, mean), tf.add(sd, 1e-8));
}

/** {@link ppoGradientStep}, then its statistics read back. */
export async function ppoUpdateStep(
  nets: PpoNetworks,
  optimizer: tf.Optimizer,
  batch: PpoMinibatch,
  config: PpoLossConfig = {},
): Promise<PpoStepStats> {
  const stats = ppoGradientStep(nets, optimizer, batch, config);
  try {
    return ppoStepStats((await stats.data()) as Float32Array);
  } finally {
    stats.dispose();
  }
}

/** The named statistics of a vector ordered as {@link PPO_STEP_STATS}, each divided by `divisor`. */
export function ppoStepStats(values: Float32Array, divisor = 1): PpoStepStats {
  const stats = {} as PpoStepStats;
  PPO_STEP_STATS.forEach((name, i) => {
    stats[name] = (values[i] ?? 0) / divisor;
  });
  return stats;
}

/** Releases the networks' variables. */
export function disposePpoNetworks(nets: PpoNetworks): void {
  nets.actor.dispose();
  nets.critic.dispose();
  nets.logStd.dispose();
}

/** A random minibatch of the given shape (seeded), for benchmarks and tests. */
export function syntheticMinibatch(
  batch: number,
  stateDim: number,
  actionDim: number,
  seed = 1,
): PpoMinibatch {
  return {
    states: tf.randomNormal([batch, stateDim], 0, 1, 'float32', seed),
    actions: tf.randomNormal([batch, actionDim], 0, 1, 'float32', seed + 1),
    oldLogProbs: tf.randomNormal([batch], -4, 0.1, 'float32', seed + 2),
    advantages: tf.randomNormal([batch], 0, 1, 'float32', seed + 3),
    returns: tf.randomNormal([batch], 0, 1, 'float32', seed + 4),
  };
}

/** Releases a minibatch's tensors. */
export function disposeMinibatch(batch: PpoMinibatch): void {
  for (const t of [batch.states, batch.actions, batch.oldLogProbs, batch.advantages, batch.returns])
    t.dispose();
  batch.oldValues?.dispose();
}

/**
 * PPO's optimizer: Adam (as cleanrl and ElegantRL) with β 0.9 and 0.999, and `epsilon` (default
 * PPO_DEFAULTS.adamEpsilon, 1e-5 as cleanrl; tfjs's own would be 1e-7).
 */
export function ppoOptimizer(
  learningRate: number,
  epsilon: number = PPO_DEFAULTS.adamEpsilon,
): ExactAdam {
  return new ExactAdam(learningRate, 0.9, 0.999, epsilon);
}

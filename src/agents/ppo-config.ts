import { TradelabError } from '../core/index.js';
import type { HiddenActivation } from '../models/mlp.js';

/*
 * PPO's hyperparameters, named as ElegantRL and FinRL name them so the seeds' configs map one to
 * one. Defaults follow ElegantRL's AgentPPO where it has one and cleanrl's ppo_continuous_action
 * where it does not.
 */

/** The actor's network: an MLP, or an FT-Transformer (feature tokens + attention). */
export const POLICY_NETWORKS = ['mlp', 'ft_transformer'] as const;
export type PolicyNetwork = (typeof POLICY_NETWORKS)[number];

/** How the actor's mean is kept inside the env's action range [−1, 1]. */
export type MeanSquash = 'tanh' | 'clip';

/** PPO's hyperparameters; every field is optional in {@link resolvePpoConfig}. */
export interface PpoConfig {
  /**
   * The actor's network. Default 'mlp'. 'ft_transformer' embeds every observation value as a token
   * and attends across them; the critic stays an MLP of netDim.
   */
  policy: PolicyNetwork;
  /** Units of each hidden layer. Default 256. */
  netDim: number;
  /** Hidden layers per network. Default 2. */
  layers: number;
  /** Hidden activation. Default 'relu'. */
  activation: HiddenActivation;
  /**
   * 'tanh': the mean is tanh of the actor's output; 'clip': the raw output. Either way a sampled
   * action is clipped to [−1, 1] before the env sees it (the log-probability is of the unclipped
   * sample). Default 'tanh'.
   */
  meanSquash: MeanSquash;
  /** Initial log standard deviation of the Gaussian policy (ElegantRL's action_std_log). Default −0.5. */
  initLogStd: number;
  /** Envs stepped together. Default 16. */
  nEnvs: number;
  /** Env steps collected per update, across all envs (a multiple of nEnvs). Default 2048. */
  targetStep: number;
  /** Minibatch size. Default 512. */
  batchSize: number;
  /** Passes over each rollout. Default 8. */
  repeatTimes: number;
  /** Total env steps to train for. Default 200,000. */
  breakStep: number;
  /** Adam's learning rate. Default 3e-4. */
  learningRate: number;
  /** Discount. Default 0.99. */
  gamma: number;
  /** GAE's λ. Default 0.95. */
  lambdaGae: number;
  /** PPO's clip range of the probability ratio. Default 0.2. */
  ratioClip: number;
  /** Entropy bonus coefficient. Default 0.01. */
  lambdaEntropy: number;
  /** Value-loss coefficient. Default 0.5. */
  valueCoef: number;
  /** Gradients are scaled down to this global norm. Default 0.5. */
  maxGradNorm: number;
  /** Normalize advantages over each rollout to mean 0, sd 1. Default true. */
  normalizeAdvantages: boolean;
  /** Seed of the networks, the action noise, the minibatch order and the envs. Default 0. */
  seed: number;
}

/** Every default of {@link PpoConfig}. */
export const PPO_DEFAULTS: Readonly<PpoConfig> = {
  policy: 'mlp',
  netDim: 256,
  layers: 2,
  activation: 'relu',
  meanSquash: 'tanh',
  initLogStd: -0.5,
  nEnvs: 16,
  targetStep: 2048,
  batchSize: 512,
  repeatTimes: 8,
  breakStep: 200_000,
  learningRate: 3e-4,
  gamma: 0.99,
  lambdaGae: 0.95,
  ratioClip: 0.2,
  lambdaEntropy: 0.01,
  valueCoef: 0.5,
  maxGradNorm: 0.5,
  normalizeAdvantages: true,
  seed: 0,
};

function invalid(field: string, message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `ppo ${field}: ${message}`, { hint });
}

function integer(config: PpoConfig, field: keyof PpoConfig, min: number): void {
  const value = config[field] as number;
  if (!Number.isSafeInteger(value) || value < min)
    throw invalid(
      field,
      `must be an integer ≥ ${min}, got ${value}`,
      `e.g. ${field}: ${PPO_DEFAULTS[field] as number}`,
    );
}

function inRange(
  config: PpoConfig,
  field: keyof PpoConfig,
  low: number,
  high: number,
  lowOpen: boolean,
): void {
  const value = config[field] as number;
  const ok = Number.isFinite(value) && (lowOpen ? value > low : value >= low) && value <= high;
  if (!ok)
    throw invalid(
      field,
      `must be in ${lowOpen ? '(' : '['}${low}, ${high}], got ${value}`,
      `e.g. ${field}: ${PPO_DEFAULTS[field] as number}`,
    );
}

/** Fills in the defaults and checks every field (a clear error naming the field otherwise). */
export function resolvePpoConfig(partial: Partial<PpoConfig> = {}): PpoConfig {
  const known = new Set(Object.keys(PPO_DEFAULTS));
  for (const key of Object.keys(partial))
    if (!known.has(key))
      throw invalid(key, 'is not a PPO hyperparameter', `use one of ${[...known].join(', ')}`);
  const config: PpoConfig = { ...PPO_DEFAULTS };
  // Values may come from untyped JSON or CLI flags: undefined means "the default".
  for (const [key, value] of Object.entries(partial as Record<string, unknown>))
    if (value !== undefined) (config as unknown as Record<string, unknown>)[key] = value;
  integer(config, 'netDim', 1);
  integer(config, 'layers', 1);
  integer(config, 'nEnvs', 1);
  integer(config, 'targetStep', 1);
  integer(config, 'batchSize', 1);
  integer(config, 'repeatTimes', 1);
  integer(config, 'breakStep', 1);
  integer(config, 'seed', 0);
  if (config.targetStep % config.nEnvs !== 0)
    throw invalid(
      'targetStep',
      `${config.targetStep} is not a multiple of nEnvs ${config.nEnvs}`,
      `use ${Math.max(1, Math.round(config.targetStep / config.nEnvs)) * config.nEnvs}`,
    );
  if (config.batchSize > config.targetStep)
    throw invalid(
      'batchSize',
      `${config.batchSize} is larger than targetStep ${config.targetStep}, the samples per update`,
      `use at most ${config.targetStep}`,
    );
  inRange(config, 'learningRate', 0, 1, true);
  inRange(config, 'gamma', 0, 1, false);
  inRange(config, 'lambdaGae', 0, 1, false);
  inRange(config, 'ratioClip', 0, 1, true);
  inRange(config, 'lambdaEntropy', 0, 1, false);
  inRange(config, 'valueCoef', 0, 100, false);
  inRange(config, 'maxGradNorm', 0, 1e6, true);
  inRange(config, 'initLogStd', -10, 2, false);
  const policy: string = config.policy;
  if (!(POLICY_NETWORKS as readonly string[]).includes(policy))
    throw invalid('policy', `unknown "${policy}"`, `use ${POLICY_NETWORKS.join(' or ')}`);
  const activation: string = config.activation;
  if (activation !== 'relu' && activation !== 'tanh')
    throw invalid('activation', `unknown "${activation}"`, 'use relu or tanh');
  const meanSquash: string = config.meanSquash;
  if (meanSquash !== 'tanh' && meanSquash !== 'clip')
    throw invalid('meanSquash', `unknown "${meanSquash}"`, 'use tanh or clip');
  if (typeof config.normalizeAdvantages !== 'boolean')
    throw invalid('normalizeAdvantages', 'must be true or false', 'e.g. normalizeAdvantages: true');
  return config;
}

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

/** What advantages are normalized over: the whole rollout, or each minibatch (as cleanrl). */
export const ADVANTAGE_SCOPES = ['rollout', 'minibatch'] as const;
export type AdvantageScope = (typeof ADVANTAGE_SCOPES)[number];

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
  /** Normalize advantages to mean 0, sd 1 (over normalizeAdvantagesOver). Default true. */
  normalizeAdvantages: boolean;
  /**
   * What advantages are normalized over: 'rollout' (all of an update's samples, once) or
   * 'minibatch' (each minibatch on its own, as cleanrl's norm_adv). Default 'minibatch'.
   */
  normalizeAdvantagesOver: AdvantageScope;
  /**
   * Clip the value loss as cleanrl's clip_vloss: the new value is clipped to the rollout's value
   * ± ratioClip and the larger of the two squared errors is taken. Default false.
   */
  clipValueLoss: boolean;
  /**
   * Anneal the learning rate linearly to 0 over breakStep, as cleanrl's anneal_lr: update i
   * (0-based) of n trains at learningRate × (1 − i / n). Default false.
   */
  annealLr: boolean;
  /**
   * Stop an update's remaining passes once the approximate KL ((ratio − 1) − log ratio, the mean
   * over a pass's last minibatch) exceeds this, as cleanrl's target_kl; null: never. Default null.
   */
  targetKl: number | null;
  /** Adam's epsilon (cleanrl's PPO uses 1e-5; tfjs's own default is 1e-7). Default 1e-5. */
  adamEpsilon: number;
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
  normalizeAdvantagesOver: 'minibatch',
  clipValueLoss: false,
  annealLr: false,
  targetKl: null,
  adamEpsilon: 1e-5,
  seed: 0,
};

/**
 * What a config saved before a setting existed ran with: a run or model written then is resumed
 * with these, not with today's defaults, so it continues exactly as it would have.
 */
const BEFORE_THE_SETTING: Partial<PpoConfig> = {
  normalizeAdvantagesOver: 'rollout',
  clipValueLoss: false,
  annealLr: false,
  targetKl: null,
  adamEpsilon: 1e-7,
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
  for (const field of ['normalizeAdvantages', 'clipValueLoss', 'annealLr'] as const)
    if (typeof config[field] !== 'boolean')
      throw invalid(
        field,
        `must be true or false, got ${JSON.stringify(config[field])}`,
        `e.g. ${field}: ${PPO_DEFAULTS[field]}`,
      );
  const scope: string = config.normalizeAdvantagesOver;
  if (!(ADVANTAGE_SCOPES as readonly string[]).includes(scope))
    throw invalid(
      'normalizeAdvantagesOver',
      `unknown "${scope}"`,
      `use ${ADVANTAGE_SCOPES.join(' or ')}`,
    );
  if (config.targetKl !== null) {
    const kl: unknown = config.targetKl;
    if (typeof kl !== 'number' || !Number.isFinite(kl) || kl <= 0)
      throw invalid(
        'targetKl',
        `must be a number > 0 or null (no early stop), got ${JSON.stringify(kl)}`,
        'e.g. targetKl: 0.02, or null to never stop early',
      );
  }
  // tfjs adds epsilon to sqrt(v) in float32: 1e-7 is its own default, far below it is lost.
  inRange(config, 'adamEpsilon', 0, 1, true);
  return config;
}

/**
 * A config read back from a file (a run's manifest, a model's model.json): resolved as
 * {@link resolvePpoConfig}, except that a setting the file lacks, because it was written before
 * the setting existed, takes the value training had then rather than today's default.
 */
export function resolveSavedPpoConfig(saved: Partial<PpoConfig>): PpoConfig {
  const filled: Record<string, unknown> = { ...saved };
  for (const [key, value] of Object.entries(BEFORE_THE_SETTING))
    if (filled[key] === undefined) filled[key] = value;
  return resolvePpoConfig(filled);
}

/**
 * PPO settings from `key=value,key=value` text (a command-line flag): `true`, `false` and `null`
 * are themselves, numbers are numbers, anything else a string. Checked as {@link resolvePpoConfig}
 * checks a config, so a typo fails before a long run starts.
 */
export function parsePpoOverrides(text: string): Partial<PpoConfig> {
  const overrides: Record<string, unknown> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 1)
      throw new TradelabError('INVALID_ARGUMENT', `ppo setting "${part}" is not key=value`, {
        hint: 'e.g. annealLr=true,targetKl=0.02',
      });
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    const number = Number(raw.replace(/_/g, ''));
    overrides[key] =
      raw === 'true'
        ? true
        : raw === 'false'
          ? false
          : raw === 'null'
            ? null
            : raw !== '' && Number.isFinite(number)
              ? number
              : raw;
  }
  const partial = overrides as Partial<PpoConfig>;
  resolvePpoConfig(partial);
  return partial;
}

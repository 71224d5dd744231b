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
  /**
   * Env steps collected per update, across all envs (a multiple of nEnvs). Default 2,048, rounded
   * to a multiple of nEnvs.
   */
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
   * Divide each reward by the running standard deviation of the discounted return (cleanrl's
   * NormalizeReward), so the critic's targets are of order 1 whatever the reward's unit; the
   * statistics are saved in checkpoints. Default true.
   */
  normalizeRewards: boolean;
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
  normalizeRewards: true,
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
  normalizeRewards: false,
  clipValueLoss: false,
  annealLr: false,
  targetKl: null,
  adamEpsilon: 1e-7,
};

function invalid(field: string, message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `ppo ${field}: ${message}`, { hint });
}

/** What is wrong with one value, and an example of a good one. */
export interface ValueProblem {
  message: string;
  hint: string;
}

/** A value as a message shows it: strings quoted, so `"big"` is not read as a number. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

type FieldCheck = (value: unknown, field: keyof PpoConfig) => ValueProblem | undefined;

function integer(min: number): FieldCheck {
  return (value, field) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= min
      ? undefined
      : {
          message: `must be an integer ≥ ${min}, got ${shown(value)}`,
          hint: `e.g. ${field}: ${PPO_DEFAULTS[field] as number}`,
        };
}

function inRange(low: number, high: number, lowOpen: boolean): FieldCheck {
  return (value, field) =>
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (lowOpen ? value > low : value >= low) &&
    value <= high
      ? undefined
      : {
          message: `must be in ${lowOpen ? '(' : '['}${low}, ${high}], got ${shown(value)}`,
          hint: `e.g. ${field}: ${PPO_DEFAULTS[field] as number}`,
        };
}

function oneOf(choices: readonly string[]): FieldCheck {
  return (value) =>
    typeof value === 'string' && choices.includes(value)
      ? undefined
      : { message: `unknown ${shown(value)}`, hint: `use ${choices.join(' or ')}` };
}

const boolean: FieldCheck = (value, field) =>
  typeof value === 'boolean'
    ? undefined
    : {
        message: `must be true or false, got ${JSON.stringify(value)}`,
        hint: `e.g. ${field}: ${String(PPO_DEFAULTS[field])}`,
      };

/**
 * The values each hyperparameter may take on its own: the one place PPO's domains are written.
 * {@link resolvePpoConfig} checks a config with it, and a study checks its fixed values, choices
 * and range bounds with {@link ppoValueProblem} before any trial runs.
 */
const FIELD_CHECKS: Record<keyof PpoConfig, FieldCheck> = {
  policy: oneOf(POLICY_NETWORKS),
  netDim: integer(1),
  layers: integer(1),
  activation: oneOf(['relu', 'tanh']),
  meanSquash: oneOf(['tanh', 'clip']),
  initLogStd: inRange(-10, 2, false),
  nEnvs: integer(1),
  targetStep: integer(1),
  batchSize: integer(1),
  repeatTimes: integer(1),
  breakStep: integer(1),
  learningRate: inRange(0, 1, true),
  gamma: inRange(0, 1, false),
  lambdaGae: inRange(0, 1, false),
  ratioClip: inRange(0, 1, true),
  lambdaEntropy: inRange(0, 1, false),
  valueCoef: inRange(0, 100, false),
  maxGradNorm: inRange(0, 1e6, true),
  normalizeAdvantages: boolean,
  normalizeAdvantagesOver: oneOf(ADVANTAGE_SCOPES),
  normalizeRewards: boolean,
  clipValueLoss: boolean,
  annealLr: boolean,
  targetKl: (value) =>
    value === null || (typeof value === 'number' && Number.isFinite(value) && value > 0)
      ? undefined
      : {
          message: `must be a number > 0 or null (no early stop), got ${JSON.stringify(value)}`,
          hint: 'e.g. targetKl: 0.02, or null to never stop early',
        },
  // tfjs adds epsilon to sqrt(v) in float32: 1e-7 is its own default, far below it is lost.
  adamEpsilon: inRange(0, 1, true),
  seed: integer(0),
};

/**
 * What is wrong with `value` for hyperparameter `field` on its own, or undefined when it is
 * allowed (rules between fields, such as targetStep a multiple of nEnvs, are not checked here).
 */
export function ppoValueProblem(field: keyof PpoConfig, value: unknown): ValueProblem | undefined {
  return FIELD_CHECKS[field](value, field);
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
  // Envs without a rollout size: the default rollout of about 2,048 env steps, rounded to a
  // multiple of the envs (every env steps the same number of times).
  if (partial.targetStep === undefined && Number.isSafeInteger(config.nEnvs) && config.nEnvs > 0)
    config.targetStep =
      Math.max(1, Math.round(PPO_DEFAULTS.targetStep / config.nEnvs)) * config.nEnvs;
  for (const field of Object.keys(FIELD_CHECKS) as (keyof PpoConfig)[]) {
    const problem = ppoValueProblem(field, config[field]);
    if (problem !== undefined) throw invalid(field, problem.message, problem.hint);
  }
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

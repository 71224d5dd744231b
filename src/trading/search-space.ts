import { PPO_DEFAULTS, type PpoConfig } from '../agents/ppo-config.js';
import type { TradingEnvOptions } from '../env/env-config.js';
import { TradelabError } from '../core/index.js';
import type { ParamValue } from '../storage/records.js';
import type { Trial } from '../tune/trial.js';

/*
 * A trading study's parameters: PPO's hyperparameters and the env's trading settings, each fixed
 * (a value), one of a list (categorical), or a range ({low, high}, optionally log or stepped). A
 * trial suggests the ranges and lists; fixed values are not parameters of the search.
 */

/** A range: a float, or an integer for the integer parameters. */
export interface RangeParam {
  low: number;
  high: number;
  log?: boolean | undefined;
  step?: number | undefined;
}

/** One parameter: fixed, one of several, or a range. */
export type ParamSpec = ParamValue | ParamValue[] | RangeParam;

/** The env settings a study may fix or search (the rest follow from the data and the split). */
export const ENV_PARAMS = [
  'maxTradeFraction',
  'buyFeeBps',
  'sellFeeBps',
  'slippageBps',
  'minOrderValue',
  'turnoverPenalty',
  'drawdownPenalty',
  'reward',
  'actionScaling',
  'noTradeBand',
  'executionPrice',
  'episodeLength',
  'terminationThreshold',
  'includePositionWeights',
  'includeTimeFeature',
] as const satisfies readonly (keyof TradingEnvOptions)[];

/** The PPO hyperparameters a study may fix or search (seed excluded: the study sets it). */
export const PPO_PARAMS = (Object.keys(PPO_DEFAULTS) as (keyof PpoConfig)[]).filter(
  (k) => k !== 'seed',
);

/** Parameters whose values are whole numbers. */
const INTEGER_PARAMS = new Set<string>([
  'netDim',
  'layers',
  'nEnvs',
  'targetStep',
  'batchSize',
  'repeatTimes',
  'breakStep',
  'episodeLength',
]);

/** Every parameter name a study file may use. */
export const STUDY_PARAMS: readonly string[] = [...PPO_PARAMS, ...ENV_PARAMS];

/** Whether `spec` is a range. */
export function isRange(spec: ParamSpec): spec is RangeParam {
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec);
}

/** Whether `name` takes whole numbers. */
export function isIntegerParam(name: string): boolean {
  return INTEGER_PARAMS.has(name);
}

/** The value of every parameter for one trial: ranges and lists suggested, fixed ones as given. */
export function suggestParams(
  trial: Trial,
  params: Readonly<Record<string, ParamSpec>>,
): Record<string, ParamValue> {
  const values: Record<string, ParamValue> = {};
  for (const [name, spec] of Object.entries(params)) {
    if (Array.isArray(spec)) values[name] = trial.suggestCategorical(name, spec);
    else if (isRange(spec)) {
      const options = {
        ...(spec.log === true ? { log: true } : {}),
        ...(spec.step === undefined ? {} : { step: spec.step }),
      };
      values[name] = isIntegerParam(name)
        ? trial.suggestInt(name, spec.low, spec.high, options)
        : trial.suggestFloat(name, spec.low, spec.high, options);
    } else values[name] = spec;
  }
  return values;
}

/**
 * Splits a trial's values into PPO's config and the env's options, made consistent: targetStep
 * rounded to a multiple of nEnvs, batchSize at most targetStep, breakStep at least one update.
 * `budgetScale` multiplies breakStep (step budgets are written for 1h bars).
 */
export function trialConfigs(
  values: Readonly<Record<string, ParamValue>>,
  budgetScale: number,
): { ppo: Partial<PpoConfig>; env: Partial<TradingEnvOptions> } {
  const ppo: Record<string, unknown> = {};
  const env: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if ((PPO_PARAMS as readonly string[]).includes(name)) ppo[name] = value;
    else if ((ENV_PARAMS as readonly string[]).includes(name)) env[name] = value;
    else
      throw new TradelabError('INVALID_ARGUMENT', `"${name}" is not a study parameter`, {
        hint: `parameters: ${STUDY_PARAMS.join(', ')}`,
      });
  }
  const c = ppo as Partial<PpoConfig>;
  const nEnvs = c.nEnvs ?? PPO_DEFAULTS.nEnvs;
  const targetStep = Math.max(
    nEnvs,
    Math.round((c.targetStep ?? PPO_DEFAULTS.targetStep) / nEnvs) * nEnvs,
  );
  c.targetStep = targetStep;
  c.batchSize = Math.min(c.batchSize ?? PPO_DEFAULTS.batchSize, targetStep);
  c.breakStep = Math.max(
    targetStep,
    Math.round((c.breakStep ?? PPO_DEFAULTS.breakStep) * budgetScale),
  );
  return { ppo: c, env: env };
}

/** What a trial's step budget comes to: breakStep as given, scaled, and what each split runs. */
export interface TrialBudget {
  /** breakStep as the trial's parameters give it (written for 1h bars). */
  breakStep: number;
  /** The study's factor on it. */
  budgetScale: number;
  /** breakStep × budgetScale (at least one update). */
  scaledBreakStep: number;
  /** Env steps per update (a multiple of nEnvs). */
  targetStep: number;
  /** Updates per split: the scaled breakStep rounded up to whole updates. */
  updates: number;
  /** Env steps each split runs: updates × targetStep. */
  stepsPerSplit: number;
}

/**
 * The budget of a trial with `values` (its parameters) in a study of `params` (whose fixed values
 * the trial does not store): what `breakStep=110000` means for the env steps each split runs.
 */
export function trialBudget(
  params: Readonly<Record<string, ParamSpec>>,
  values: Readonly<Record<string, ParamValue>>,
  budgetScale: number,
): TrialBudget {
  const all: Record<string, ParamValue> = {};
  for (const [name, spec] of Object.entries(params))
    if (!Array.isArray(spec) && !isRange(spec)) all[name] = spec;
  Object.assign(all, values);
  const { ppo } = trialConfigs(all, budgetScale);
  const targetStep = ppo.targetStep ?? PPO_DEFAULTS.targetStep;
  const scaledBreakStep = ppo.breakStep ?? PPO_DEFAULTS.breakStep;
  const updates = Math.ceil(scaledBreakStep / targetStep);
  const given = all.breakStep;
  return {
    breakStep: typeof given === 'number' ? given : PPO_DEFAULTS.breakStep,
    budgetScale,
    scaledBreakStep,
    targetStep,
    updates,
    stepsPerSplit: updates * targetStep,
  };
}

/** The largest value `spec` can take (a fixed number, a list's largest, a range's high). */
export function largestValue(spec: ParamSpec | undefined, fallback: number): number {
  if (typeof spec === 'number') return spec;
  if (Array.isArray(spec)) {
    const numbers = spec.filter((v): v is number => typeof v === 'number');
    return numbers.length === 0 ? fallback : Math.max(...numbers);
  }
  if (spec !== undefined && isRange(spec)) return spec.high;
  return fallback;
}

import { resolve } from 'node:path';
import { z } from 'zod';
import {
  POLICY_NETWORKS,
  ppoValueProblem,
  type PolicyNetwork,
  type PpoConfig,
} from '../agents/ppo-config.js';
import { envValueProblem, type ExecutionPrice } from '../env/env-config.js';
import { readLocatedFile, type LocatedFile } from '../config/config-file.js';
import { describeIssue } from '../config/format-issues.js';
import type { Timeframe } from '../data/timeframe.js';
import { timeframeMs } from '../data/timeframe.js';
import { closestMatch, TradelabError } from '../core/index.js';
import {
  formatCvMethod,
  parseCvMethod,
  parseHoldout,
  type CvMethod,
  type HoldoutSpec,
} from './cv-spec.js';
import {
  isIntegerParam,
  isRange,
  PPO_PARAMS,
  STUDY_PARAMS,
  type ParamSpec,
} from './search-space.js';
import { checkFeatureGroups } from './feature-groups.js';
import { PRUNER_TYPES, SAMPLER_TYPES } from '../tune/index.js';

/*
 * A trading study: the data, the cross-validation, the preset's parameters with the study's
 * overrides, the policy network and how split metrics become the trial's value. Written by flags
 * or a study file (YAML or JSON), resolved once at `study create`, and stored with the study so
 * every worker, on every machine, runs the same thing.
 */

export { POLICY_NETWORKS, type PolicyNetwork } from '../agents/ppo-config.js';

/** How the per-split metrics become a trial's value. */
export const AGGREGATES = ['mean', 'median', 'mean-std', 'excess'] as const;
export interface AggregateSpec {
  /** mean, median, mean − λ·std (penalizes uneven splits), or mean excess over buy-and-hold. */
  method: (typeof AGGREGATES)[number];
  /** λ of mean-std. Default 1. */
  lambda: number;
}

/** Fine-tuning from another study (presets ft_small, ft_large). */
export interface FromSpec {
  study: string;
  /** How many of its best complete trials are enqueued first. */
  top: number;
  /** Factor f in (0, 1): numeric ranges become [min × f, max / f] around those trials. */
  neighbourhood: number;
}

/** A resolved trading study, as stored in the study's system attributes under `drl`. */
export interface DrlStudySpec {
  version: 1;
  preset: string | null;
  data: {
    /** As typed: `SYM[,SYM]:TF`. */
    spec: string;
    symbols: string[];
    timeframe: Timeframe;
    bars: number;
    /** SHA-256 of the market data the study was created on (workers check theirs against it). */
    digest: string;
    /** Indicators per asset (for the planner). */
    featureCount?: number;
  };
  /** Indicator groups the agents see; null for the default set. */
  features: string[] | null;
  cv: CvMethod;
  /** Bars removed from training after each test range's purge. */
  embargo: number;
  holdout: HoldoutSpec;
  /** Bars in each observation. */
  lookback: number;
  params: Record<string, ParamSpec>;
  /** Factor on breakStep (presets are written for 1h bars). */
  budgetScale: number;
  policy: PolicyNetwork;
  /**
   * A pretraining run whose frozen TCN encodings join the features (`policy: tcn:DIR`): its
   * absolute path and the SHA-256 of its weights (a worker refuses another); absent without one.
   * The data digest is the market's before the encodings.
   */
  encoder?: { run: string; weightsSha256: string };
  aggregate: AggregateSpec;
  /** Seeds of trial t: seed + t for the networks and the env. */
  seed: number;
  from: FromSpec | null;
  /**
   * The defaults, as of the study's creation, of settings whose default has changed since
   * tradelab's first trading studies; a study stored without it ran with STUDY_DEFAULTS_BEFORE.
   * Every trial of a study runs with its own, whatever today's defaults are.
   */
  defaults?: StudyDefaults;
}

/** Settings whose default changed: every trial gets them unless the study's params set them. */
export interface StudyDefaults {
  executionPrice: ExecutionPrice;
  normalizeRewards: boolean;
  /** Absent: training episodes run to the end of a split's range (the env's own default). */
  episodeLength?: number;
}

/** What a study created today runs with where its params are silent (docs/ppo.md says why). */
export const STUDY_DEFAULTS: Readonly<StudyDefaults> = {
  executionPrice: 'open',
  normalizeRewards: true,
  episodeLength: 256,
};

/** What studies stored before `defaults` existed ran with: fills at the close, raw rewards. */
export const STUDY_DEFAULTS_BEFORE: Readonly<StudyDefaults> = {
  executionPrice: 'close',
  normalizeRewards: false,
};

/** The defaults every trial of `spec` runs with (see {@link DrlStudySpec.defaults}). */
export function studyDefaults(spec: DrlStudySpec): StudyDefaults {
  return { ...(spec.defaults ?? STUDY_DEFAULTS_BEFORE) };
}

const scalar = z.union([z.number(), z.string(), z.boolean(), z.null()]);
const range = z.strictObject({
  low: z.number(),
  high: z.number(),
  log: z.boolean().optional(),
  step: z.number().positive().optional(),
});
/** A parameter: a fixed value, a list of choices, or a range. */
export const paramSchema = z.union([scalar, z.array(scalar).min(1), range]);

/** A preset file (presets/NAME.yaml). */
export const PresetFileSchema = z.strictObject({
  description: z.string(),
  from: z
    .strictObject({
      top: z.number().int().min(1),
      neighbourhood: z.number().gt(0).lt(1),
    })
    .optional(),
  params: z.record(z.string(), paramSchema),
});
export type PresetFile = z.infer<typeof PresetFileSchema>;

/** A study file: everything `study create` flags can say, and parameter overrides. */
/** A study's policy: a network, or `tcn:DIR` (an MLP over the features and a pretraining run's encoder). */
export const PolicySettingSchema = z.union([
  z.enum(POLICY_NETWORKS),
  z.string().regex(/^tcn:.+/, 'tcn:DIR (a `pretrain tcn` run)'),
]);

/**
 * A sampler's or pruner's options in a file, whose `type` (when it names one) must be one of
 * `types`: checked with the file, so a misspelt type is refused at its file:line:col. The options
 * are checked when the study is made, once the command line's --sampler / --pruner are known.
 */
function componentSettingSchema(types: readonly string[]) {
  return z.record(z.string(), z.unknown()).superRefine((spec, context) => {
    const type = spec.type;
    if (type === undefined || (typeof type === 'string' && types.includes(type))) return;
    const guess = typeof type === 'string' ? closestMatch(type, types) : undefined;
    context.addIssue({
      code: 'custom',
      path: ['type'],
      message: `expected one of ${types.join(', ')}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`,
    });
  });
}

/** A study's or campaign's `sampler:` (tpe, random, grid and their options). */
export const SamplerSettingSchema = componentSettingSchema(SAMPLER_TYPES);
/** A study's or campaign's `pruner:` (median, hyperband, … and their options). */
export const PrunerSettingSchema = componentSettingSchema(PRUNER_TYPES);

/** `tcn:DIR` with DIR made absolute against `base` (the directory of the file that says it). */
export function resolvePolicySetting<T extends string | undefined>(policy: T, base: string): T {
  if (policy?.startsWith('tcn:') !== true) return policy;
  return `tcn:${resolve(base, policy.slice(4))}` as T;
}

export const StudyFileSchema = z.strictObject({
  name: z.string().optional(),
  direction: z.enum(['maximize', 'minimize', 'max', 'min']).optional(),
  preset: z.string().optional(),
  data: z.string().optional(),
  features: z.array(z.string()).optional(),
  cv: z.string().optional(),
  embargo: z.number().int().min(0).optional(),
  holdout: z.union([z.string(), z.number()]).optional(),
  lookback: z.number().int().min(1).optional(),
  policy: PolicySettingSchema.optional(),
  aggregate: z
    .union([
      z.enum(AGGREGATES),
      z.strictObject({ method: z.enum(AGGREGATES), lambda: z.number().min(0).optional() }),
    ])
    .optional(),
  budgetScale: z.number().positive().optional(),
  seed: z.number().int().min(0).optional(),
  from: z.string().optional(),
  sampler: SamplerSettingSchema.optional(),
  pruner: PrunerSettingSchema.optional(),
  params: z.record(z.string(), paramSchema).optional(),
});
export type StudyFile = z.infer<typeof StudyFileSchema>;

/** Reads and checks a YAML/JSON file against `schema`; problems name file:line and the fix. */
export function readCheckedFile<T>(
  path: string,
  schema: z.ZodType<T>,
  what: string,
): { file: LocatedFile; content: T } {
  const file = readLocatedFile(path, what);
  const parsed = schema.safeParse(file.data ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const { path: at, text, at: where } = describeIssue(issue, file.data, schema);
      return `${file.locate(at, where)}: ${text}`;
    });
    throw new TradelabError('CONFIG_INVALID', lines.join('\n'), {
      hint: `fix the ${what}; parameters are a value, a list of choices, or {low, high[, log][, step]}`,
      details: { file: file.path, problems: lines },
    });
  }
  checkParams(parsed.data as { params?: Record<string, ParamSpec> }, file);
  return { file, content: parsed.data };
}

/**
 * Checks parameter names, ranges, and every value a trial could be given against the parameter's
 * domain (a fixed value, each choice of a list, both bounds of a range), so a study whose trials
 * would all fail is refused at creation. `file` locates each problem; all of them are reported.
 */
export function checkParams(
  content: { params?: Record<string, ParamSpec> },
  file?: LocatedFile,
  /** Where `content` sits in the file (a campaign's study: `['studies', 2]`). */
  prefix: readonly (string | number)[] = [],
): void {
  const problems: { line: string; hint: string }[] = [];
  for (const [name, spec] of Object.entries(content.params ?? {})) {
    const where = (path: (string | number)[], at: 'key' | 'value' = 'value'): string =>
      file === undefined
        ? [...prefix, 'params', name, ...path].join('.')
        : file.locate([...prefix, 'params', name, ...path], at);
    const fail = (line: string, hint: string): void => {
      problems.push({ line, hint });
    };
    if (!STUDY_PARAMS.includes(name)) {
      const near = closestMatch(name, STUDY_PARAMS);
      fail(
        `${where([], 'key')}: "${name}" is not a study parameter${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
        `parameters: ${STUDY_PARAMS.join(', ')}`,
      );
      continue;
    }
    const inDomain = (value: unknown, path: (string | number)[]): void => {
      const problem = paramValueProblem(name, value);
      if (problem !== undefined)
        fail(`${where(path)}: ${name}: ${problem.message} (${problem.hint})`, problem.hint);
    };
    if (Array.isArray(spec)) {
      spec.forEach((choice, i) => {
        inDomain(choice, [i]);
      });
      continue;
    }
    if (!isRange(spec)) {
      inDomain(spec, []);
      continue;
    }
    const at = where([], 'key');
    if (!(spec.low < spec.high))
      fail(`${at}: low ${spec.low} is not below high ${spec.high}`, 'swap them');
    else if (spec.log === true && spec.low <= 0)
      fail(`${at}: a log range needs low > 0, got ${spec.low}`, 'raise low, or drop log');
    else if (spec.log === true && spec.step !== undefined)
      fail(`${at}: log and step exclude each other`, 'keep one of them');
    else if (isIntegerParam(name) && (!Number.isInteger(spec.low) || !Number.isInteger(spec.high)))
      fail(`${at}: ${name} takes whole numbers; got ${spec.low}..${spec.high}`, 'use whole bounds');
    else {
      // Every domain is an interval, so a range is inside it when both bounds are.
      inDomain(spec.low, ['low']);
      inDomain(spec.high, ['high']);
    }
  }
  const first = problems[0];
  if (first === undefined) return;
  const lines = problems.map((p) => p.line);
  throw new TradelabError('CONFIG_INVALID', lines.join('\n'), {
    hint: problems.length === 1 ? first.hint : 'fix each parameter named above',
    details: { ...(file === undefined ? {} : { file: file.path }), problems: lines },
  });
}

/** What is wrong with one value of study parameter `name` (PPO's or the env's domain), if anything. */
function paramValueProblem(
  name: string,
  value: unknown,
): { message: string; hint: string } | undefined {
  return (PPO_PARAMS as readonly string[]).includes(name)
    ? ppoValueProblem(name as keyof PpoConfig, value)
    : envValueProblem(name, value);
}

/** What `study create` resolves into a {@link DrlStudySpec}; flags and a study file both give it. */
export interface DrlStudyInput {
  preset?: string;
  dataSpec: string;
  market: {
    symbols: string[];
    timeframe: Timeframe;
    bars: number;
    digest: string;
    featureCount?: number;
  };
  features?: string[];
  cv?: string;
  embargo?: number;
  holdout?: string | number;
  lookback?: number;
  policy?: PolicyNetwork;
  /** See {@link DrlStudySpec.encoder}. */
  encoder?: { run: string; weightsSha256: string };
  aggregate?: StudyFile['aggregate'];
  budgetScale?: number;
  seed?: number;
  from?: string;
  /** Overrides of the preset's parameters, by name. */
  params?: Record<string, ParamSpec>;
}

/** The default preset, and seed 000's cross-validation. */
export const DEFAULT_PRESET = 'ensemble_balanced';
export const DEFAULT_CV = 'cpcv:4:2';

/**
 * Step budgets are written for 1h bars; a finer timeframe has more bars per unit of time and gets
 * proportionally more steps (5m: 12×, as seed 001), a coarser one fewer, within [0.25, 12].
 */
export function defaultBudgetScale(timeframe: Timeframe): number {
  return Math.min(12, Math.max(0.25, 3_600_000 / timeframeMs(timeframe)));
}

/** Resolves a study: the preset's parameters under the overrides, and every default filled in. */
export function resolveDrlStudy(
  input: DrlStudyInput,
  preset: PresetFile | undefined,
): DrlStudySpec {
  const params = { ...(preset?.params ?? {}), ...(input.params ?? {}) };
  checkParams({ params });
  const holdout =
    input.holdout === undefined
      ? { fraction: 0.2 }
      : typeof input.holdout === 'number'
        ? parseHoldout(String(input.holdout), 'holdout')
        : parseHoldout(input.holdout, 'holdout');
  const available =
    holdout === null
      ? input.market.bars
      : 'fraction' in holdout
        ? Math.round(input.market.bars * (1 - holdout.fraction))
        : holdout.at;
  const aggregate: AggregateSpec =
    input.aggregate === undefined
      ? { method: 'mean', lambda: 1 }
      : typeof input.aggregate === 'string'
        ? { method: input.aggregate, lambda: 1 }
        : { method: input.aggregate.method, lambda: input.aggregate.lambda ?? 1 };
  if (preset?.from !== undefined && input.from === undefined)
    throw new TradelabError('USAGE', `preset ${input.preset} fine-tunes another study`, {
      hint: 'name it with --from STUDY (a finished study on the same data)',
    });
  return {
    version: 1,
    preset: input.preset ?? null,
    data: { spec: input.dataSpec, ...input.market },
    features: input.features === undefined ? null : checkFeatureGroups(input.features),
    cv: parseCvMethod(input.cv ?? DEFAULT_CV, 'cv'),
    // López de Prado's rule of thumb: about 1% of the bars.
    embargo: input.embargo ?? Math.ceil(available * 0.01),
    holdout,
    lookback: input.lookback ?? 1,
    params,
    budgetScale: input.budgetScale ?? defaultBudgetScale(input.market.timeframe),
    policy: input.policy ?? 'mlp',
    ...(input.encoder === undefined ? {} : { encoder: input.encoder }),
    aggregate,
    seed: input.seed ?? 1,
    from:
      input.from === undefined
        ? null
        : {
            study: input.from,
            top: preset?.from?.top ?? 3,
            neighbourhood: preset?.from?.neighbourhood ?? 0.5,
          },
    defaults: { ...STUDY_DEFAULTS },
  };
}

/** Where trials' actions fill and whether rewards are scaled, unless the params search them. */
function tradingDescription(spec: DrlStudySpec): string {
  const defaults = studyDefaults(spec);
  const fills = spec.params.executionPrice ?? defaults.executionPrice;
  const scaled = spec.params.normalizeRewards ?? defaults.normalizeRewards;
  const fillText =
    fills === 'open' || fills === 'close' ? `fills at the next bar's ${fills}` : 'fills searched';
  const rewardText =
    scaled === true
      ? 'rewards scaled by their running sd'
      : scaled === false
        ? 'raw rewards'
        : 'reward scaling searched';
  return `${fillText}, ${rewardText}`;
}

/** One line per setting, for `study create` and `study show`. */
export function describeDrlStudy(spec: DrlStudySpec): [string, string][] {
  const searched = Object.entries(spec.params).filter(([, p]) => Array.isArray(p) || isRange(p));
  return [
    ['preset', spec.preset ?? 'none'],
    ['data', `${spec.data.spec} (${spec.data.bars.toLocaleString('en-US')} bars)`],
    ['features', spec.features === null ? 'the default indicators' : spec.features.join(', ')],
    ['cv', `${formatCvMethod(spec.cv)}, embargo ${spec.embargo} bars, lookback ${spec.lookback}`],
    [
      'holdout',
      spec.holdout === null
        ? 'none'
        : 'fraction' in spec.holdout
          ? `last ${(spec.holdout.fraction * 100).toFixed(0)}% of bars`
          : `from bar ${spec.holdout.at}`,
    ],
    [
      'policy',
      spec.encoder === undefined
        ? spec.policy
        : `${spec.policy} over the features and the frozen TCN encoder of ${spec.encoder.run}`,
    ],
    [
      'value',
      spec.aggregate.method === 'mean-std'
        ? `mean − ${spec.aggregate.lambda}·std of split Sharpe ratios`
        : spec.aggregate.method === 'excess'
          ? 'mean excess Sharpe over buy-and-hold'
          : `${spec.aggregate.method} of split Sharpe ratios`,
    ],
    ['searched', searched.map(([name]) => name).join(', ') || 'nothing'],
    ['budget', `breakStep × ${spec.budgetScale}`],
    ['trading', tradingDescription(spec)],
    ...(spec.from === null
      ? []
      : ([
          [
            'from',
            `${spec.from.study}: top ${spec.from.top}, neighbourhood ×${spec.from.neighbourhood}`,
          ],
        ] as [string, string][])),
  ];
}

import { loadMarketData, parseDatasetKeys } from '../data/index.js';
import { TradelabError } from '../core/index.js';
import {
  studySplits,
  loadPreset,
  checkFeatureGroups,
  featureOptionsOf,
  studyMarket,
  AGGREGATES,
  DEFAULT_PRESET,
  POLICY_NETWORKS,
  readCheckedFile,
  resolveDrlStudy,
  StudyFileSchema,
  drlLimitsOf,
  fitParamsToProfile,
  type DrlStudySpec,
  type StudyFile,
} from '../trading/index.js';
import { describeTcnEncoder, type PolicyNetwork } from '../agents/index.js';
import type { CommandContext } from './command-spec.js';
import { openStore } from './open-store.js';
import { choiceOption, intOption } from './option-values.js';
import { projectPath } from './project-path.js';

/*
 * `study create` for a trading study: flags and a study file (--file) say the same things, flags
 * winning. The market data is loaded once here, so its digest and bar count are stored with the
 * study and a split that cannot be made is an error now, not in every worker later.
 */

/** The flags that make `study create` create a trading study. */
export const TRADING_STUDY_FLAGS = [
  'preset',
  'data',
  'features',
  'cv',
  'embargo',
  'holdout',
  'lookback',
  'from',
  'policy',
  'aggregate',
  'budget-scale',
  'file',
] as const;

/** Whether the command line asks for a trading study. */
export function wantsTradingStudy(options: CommandContext['options']): boolean {
  return TRADING_STUDY_FLAGS.some((flag) => options[flag] !== undefined);
}

/** The study file given with --file, checked (problems name file:line). */
export function readStudyFile(context: CommandContext): StudyFile | undefined {
  const raw = context.options.file;
  if (typeof raw !== 'string') return undefined;
  return readCheckedFile(projectPath(context, raw), StudyFileSchema, 'study file').content;
}

/** Resolves the trading study of the flags and the file, checking its splits on the data. */
export async function tradingStudySpec(
  context: CommandContext,
  file: StudyFile | undefined,
): Promise<DrlStudySpec> {
  const { options } = context;
  const text = (name: string): string | undefined =>
    typeof options[name] === 'string' ? options[name] : undefined;
  const dataSpec = text('data') ?? file?.data;
  if (dataSpec === undefined)
    throw new TradelabError('USAGE', 'a trading study needs --data SYM[,SYM]:TF', {
      hint: 'e.g. --data BTCUSDT,ETHUSDT:1h (see `tradelab data list`), or data: in the study file',
    });
  const presetName = text('preset') ?? file?.preset ?? DEFAULT_PRESET;
  const preset = loadPreset(presetName);
  const features =
    typeof options.features === 'string'
      ? checkFeatureGroups(options.features.split(','), '--features')
      : file?.features;
  // policy: tcn:DIR puts a pretraining run's frozen encodings beside the features (an MLP reads both).
  const policyText = text('policy') ?? file?.policy;
  const encoder =
    policyText?.startsWith('tcn:') === true
      ? describeTcnEncoder(projectPath(context, policyText.slice(4)))
      : undefined;
  const data = await loadMarketData(openStore(context), parseDatasetKeys(dataSpec), {
    features: featureOptionsOf(features ?? null),
  });
  const policy =
    encoder === undefined
      ? (choiceOption(options, 'policy', POLICY_NETWORKS) ??
        (file?.policy as PolicyNetwork | undefined))
      : 'mlp';
  const aggregate = choiceOption(options, 'aggregate', AGGREGATES) ?? file?.aggregate;
  const budgetScale =
    options['budget-scale'] === undefined ? file?.budgetScale : Number(options['budget-scale']);
  if (budgetScale !== undefined && !(budgetScale > 0))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--budget-scale: ${String(budgetScale)} is not > 0`,
      {
        hint: 'a factor on breakStep, e.g. 0.5',
      },
    );
  const holdout = text('holdout') ?? file?.holdout;
  const embargo = intOption(options, 'embargo', 0) ?? file?.embargo;
  const lookback = intOption(options, 'lookback', 1) ?? file?.lookback;
  const seed = intOption(options, 'seed', 0) ?? file?.seed;
  const from = text('from') ?? file?.from;
  const cv = text('cv') ?? file?.cv;
  const spec = resolveDrlStudy(
    {
      preset: presetName,
      dataSpec,
      // The digest is the market's; the model reads the encoder's outputs besides its features.
      market: {
        ...studyMarket(data),
        ...(encoder === undefined
          ? {}
          : { featureCount: data.featureNames.length + encoder.hidden }),
      },
      ...(features === undefined ? {} : { features }),
      ...(cv === undefined ? {} : { cv }),
      ...(embargo === undefined ? {} : { embargo }),
      ...(holdout === undefined ? {} : { holdout }),
      ...(lookback === undefined ? {} : { lookback }),
      ...(policy === undefined ? {} : { policy }),
      ...(encoder === undefined
        ? {}
        : { encoder: { run: encoder.run, weightsSha256: encoder.weightsSha256 } }),
      ...(aggregate === undefined ? {} : { aggregate }),
      ...(budgetScale === undefined ? {} : { budgetScale }),
      ...(seed === undefined ? {} : { seed }),
      ...(from === undefined ? {} : { from }),
      ...(file?.params === undefined ? {} : { params: file.params }),
    },
    preset,
  );
  // Made now so that a cut or split that cannot be made fails before anything is stored.
  studySplits(spec.data.bars, spec.cv, spec);
  // The profile's DRL settings bound what the study samples.
  const { profile } = await context.project().chooseProfile();
  const fitted = fitParamsToProfile(spec.params, drlLimitsOf(profile));
  for (const note of fitted.notes) context.out.note(`note: within the profile's limits: ${note}`);
  return { ...spec, params: fitted.params };
}

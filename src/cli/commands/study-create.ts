import { isTradelabError, TradelabError } from '../../core/index.js';
import type { StudyDirection, StudyRecord, StudyStorage } from '../../storage/index.js';
import {
  createPruner,
  createSampler,
  parsePrunerSpec,
  parseSamplerSpec,
  specsOf,
  Study,
  type ComponentSpecs,
  describeComponents,
} from '../../tune/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { withStudyStorage } from '../open-study-storage.js';
import { suggestCommand } from '../suggest-command.js';
import { fineTuning } from '../fine-tuning.js';
import { readStudyFile, tradingStudySpec, wantsTradingStudy } from '../trading-study-options.js';
import { describeDrlStudy, type DrlStudySpec, type StudyFile } from '../../trading/index.js';

/**
 * `tradelab study create NAME --direction max|min [--sampler …] [--pruner …]`, and a trading
 * study with `--preset P --data SYM:TF [--cv …]` or `--file study.yaml`.
 */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = studyName(context.positionals[0] ?? '');
  const trading = wantsTradingStudy(options);
  const file = readStudyFile(context);
  if (file?.name !== undefined && file.name !== name)
    throw new TradelabError(
      'USAGE',
      `the study file names the study "${file.name}", the command line "${name}"`,
      { hint: 'use the same name, or leave name: out of the file' },
    );
  // A trading study maximizes its Sharpe ratio unless told otherwise.
  const direction = parseDirection(
    options.direction ?? file?.direction ?? (trading ? 'max' : undefined),
  );
  // Checked before the storage is touched: a bad option creates nothing.
  const specs = componentSpecs(options, file);
  const drl = trading ? await tradingStudySpec(context, file) : undefined;
  const loadIfExists = options['load-if-exists'] === true;
  await withStudyStorage(context, async (storage) => {
    const extra = drl === undefined ? {} : await fineTuning(storage, drl);
    const { record, created } = await createOrLoad(
      storage,
      name,
      direction,
      specs,
      loadIfExists,
      extra.spec ?? drl,
    );
    if (created && extra.enqueue !== undefined)
      for (const params of extra.enqueue) await storage.enqueueTrial(record.id, { params });
    const stored = specsOf(record.systemAttrs);
    if (!created && givesComponents(options) && JSON.stringify(stored) !== JSON.stringify(specs))
      out.note(
        `note: study "${name}" keeps the sampler and pruner it was created with; the ones given now are ignored`,
      );
    const described = describeComponents(record.systemAttrs);
    if (out.json) {
      out.record({
        type: 'study',
        action: created ? 'created' : 'loaded',
        name: record.name,
        storage: storage.url,
        direction: record.direction,
        sampler: stored.sampler,
        pruner: stored.pruner,
        samplerDescription: described.sampler,
        prunerDescription: described.pruner,
        drl: record.systemAttrs.drl ?? null,
        createdAt: record.createdAt,
      });
      return;
    }
    out.line(
      created
        ? `Created study "${record.name}" in ${storage.url}`
        : `Loaded existing study "${record.name}" from ${storage.url}`,
    );
    out.line(`  direction  ${record.direction}`);
    out.line(`  sampler    ${described.sampler}`);
    out.line(`  pruner     ${described.pruner}`);
    const trading = record.systemAttrs.drl as DrlStudySpec | undefined;
    if (trading !== undefined)
      for (const [label, value] of describeDrlStudy(trading))
        out.line(`  ${label.padEnd(10)} ${value}`);
    if (extra.enqueue !== undefined && created)
      out.line(
        `  enqueued   ${extra.enqueue.length} best trials of ${trading?.from?.study ?? '?'}`,
      );
    out.line();
    out.line(
      `Run trials: ${suggestCommand(context, [
        ...['study', 'run', record.name],
        ...(trading === undefined
          ? ['--objective', 'objective.mjs', '--trials', '100']
          : ['--trials', '50', '--workers', 'auto']),
      ])}`,
    );
  });
}

/** Creates the study, or with `loadIfExists` loads the one of that name (same direction only). */
async function createOrLoad(
  storage: StudyStorage,
  name: string,
  direction: StudyDirection,
  specs: ComponentSpecs,
  loadIfExists: boolean,
  drl: DrlStudySpec | undefined,
): Promise<{ record: StudyRecord; created: boolean }> {
  try {
    const study = await Study.create(storage, {
      name,
      direction,
      sampler: specs.sampler,
      pruner: specs.pruner,
      ...(drl === undefined ? {} : { systemAttrs: { drl, objective: 'drl' } }),
      loadIfExists,
    });
    return { record: study.record, created: study.created };
  } catch (error) {
    if (!isTradelabError(error, 'STUDY_EXISTS')) throw error;
    throw new TradelabError(
      'STUDY_EXISTS',
      `a study named "${name}" already exists in ${storage.url}`,
      {
        hint: `pass --load-if-exists to continue it, pick another name, or remove it (\`tradelab study rm ${name}\`)`,
        details: { study: name, storage: storage.url },
        cause: error,
      },
    );
  }
}

/** The longest study name: it is typed on command lines and printed in tables. */
const MAX_STUDY_NAME = 100;

/** A study name: non-empty, printable, no surrounding spaces (it is typed on command lines). */
function studyName(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this rejects
  if (raw.trim() !== raw || raw === '' || /[\u0000-\u001f\u007f]/.test(raw))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `study name ${JSON.stringify(raw)} is not allowed`,
      {
        hint: 'use letters, digits and punctuation without leading or trailing spaces, e.g. ppo-btc-1h',
      },
    );
  if (raw.length > MAX_STUDY_NAME)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `study name is ${raw.length} characters long; at most ${MAX_STUDY_NAME} are allowed`,
      { hint: 'use a shorter name, e.g. ppo-btc-1h; keep details in the study file' },
    );
  return raw;
}

/** `max`/`maximize` or `min`/`minimize`. */
export function parseDirection(raw: string | boolean | undefined): StudyDirection {
  if (raw === undefined)
    throw new TradelabError('USAGE', '--direction is required', {
      hint: 'pass --direction max (e.g. Sharpe ratio) or --direction min (e.g. a loss)',
    });
  const value = String(raw).toLowerCase();
  if (value === 'max' || value === 'maximize') return 'maximize';
  if (value === 'min' || value === 'minimize') return 'minimize';
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `--direction: ${JSON.stringify(raw)} is not allowed: expected max, min, maximize or minimize`,
    { hint: 'e.g. --direction max' },
  );
}

/** Whether the command line names a sampler or pruner (a loaded study keeps its own). */
function givesComponents(options: CommandContext['options']): boolean {
  return ['sampler', 'sampler-options', 'seed', 'pruner', 'pruner-options'].some(
    (name) => options[name] !== undefined,
  );
}

/**
 * The sampler and pruner specs the options describe, checked by the spec parsers (shape) and by
 * building the sampler and pruner (ranges), so a study is never stored with specs that fail later in
 * every worker.
 */
function componentSpecs(
  options: CommandContext['options'],
  file: StudyFile | undefined,
): ComponentSpecs {
  const samplerOptions = {
    ...withoutType(file?.sampler),
    ...jsonObject(options, 'sampler-options', '--sampler'),
  };
  const seed = intOption(options, 'seed', 0);
  if (seed !== undefined && samplerOptions.seed !== undefined && samplerOptions.seed !== seed)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--seed ${seed} and --sampler-options seed ${JSON.stringify(samplerOptions.seed)} disagree`,
      { hint: 'give the seed once' },
    );
  const sampler = parseSamplerSpec({
    type: typeof options.sampler === 'string' ? options.sampler : (file?.sampler?.type ?? 'tpe'),
    ...samplerOptions,
    ...(seed === undefined ? {} : { seed }),
  });
  const pruner = parsePrunerSpec({
    type: typeof options.pruner === 'string' ? options.pruner : (file?.pruner?.type ?? 'median'),
    ...withoutType(file?.pruner),
    ...jsonObject(options, 'pruner-options', '--pruner'),
  });
  createSampler(sampler);
  createPruner(pruner);
  return { sampler, pruner };
}

/** The JSON object of option `name` (`{}` when absent); its type comes from `typeFlag`. */
function jsonObject(
  options: CommandContext['options'],
  name: string,
  typeFlag: string,
): Record<string, unknown> {
  const raw = options[name];
  if (raw === undefined) return {};
  const example = name === 'sampler-options' ? `'{"seed": 7}'` : `'{"nStartupTrials": 5}'`;
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch (cause) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not JSON: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        hint: `quote it for the shell, e.g. --${name} ${example}`,
        cause,
      },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not a JSON object`,
      { hint: `give the options as an object, e.g. --${name} ${example}` },
    );
  if ('type' in value)
    throw new TradelabError('INVALID_ARGUMENT', `--${name} must not contain "type"`, {
      hint: `name the type with ${typeFlag}`,
    });
  return value as Record<string, unknown>;
}

/** A study file's sampler or pruner options without their `type` (the flag or file names it). */
function withoutType(spec: Record<string, unknown> | undefined): Record<string, unknown> {
  if (spec === undefined) return {};
  const rest = { ...spec };
  delete rest.type;
  return rest;
}

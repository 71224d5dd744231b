import { TradelabError } from '../../errors/index.js';
import type { StudyDirection, StudyRecord, StudyStorage } from '../../storage/index.js';
import {
  createPruner,
  createSampler,
  parsePrunerSpec,
  parseSamplerSpec,
  specsOf,
  type ComponentSpecs,
} from '../../tune/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { withStudyStorage } from '../open-study-storage.js';
import { describeComponents } from '../study-summary.js';

/** `tradelab study create NAME --direction max|min [--sampler …] [--pruner …]`. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = studyName(context.positionals[0] ?? '');
  const direction = parseDirection(options.direction);
  // Checked before the storage is touched: a bad option creates nothing.
  const specs = componentSpecs(options);
  const loadIfExists = options['load-if-exists'] === true;
  await withStudyStorage(context, async (storage) => {
    const { record, created } = await createOrLoad(storage, name, direction, specs, loadIfExists);
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
    out.line();
    out.line(
      `Run trials: tradelab study run ${record.name} --objective objective.mjs --trials 100`,
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
): Promise<{ record: StudyRecord; created: boolean }> {
  try {
    const record = await storage.createStudy({
      name,
      direction,
      userAttrs: {},
      systemAttrs: { sampler: specs.sampler, pruner: specs.pruner },
    });
    return { record, created: true };
  } catch (error) {
    if (!(error instanceof TradelabError) || error.code !== 'STUDY_EXISTS') throw error;
    if (!loadIfExists)
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
  const record = await storage.getStudy(name);
  if (record.direction !== direction)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `study "${name}" in ${storage.url} exists with direction ${record.direction}, not ${direction}`,
      {
        hint: `a study's direction never changes: pass --direction ${record.direction} to continue it, or pick another name`,
        details: { study: name, direction: record.direction },
      },
    );
  return { record, created: false };
}

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
function componentSpecs(options: CommandContext['options']): ComponentSpecs {
  const samplerOptions = jsonObject(options, 'sampler-options', '--sampler');
  const seed = intOption(options, 'seed', 0);
  if (seed !== undefined && samplerOptions.seed !== undefined && samplerOptions.seed !== seed)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--seed ${seed} and --sampler-options seed ${JSON.stringify(samplerOptions.seed)} disagree`,
      { hint: 'give the seed once' },
    );
  const sampler = parseSamplerSpec({
    type: typeof options.sampler === 'string' ? options.sampler : 'tpe',
    ...samplerOptions,
    ...(seed === undefined ? {} : { seed }),
  });
  const pruner = parsePrunerSpec({
    type: typeof options.pruner === 'string' ? options.pruner : 'median',
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

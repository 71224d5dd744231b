import { dirname, resolve } from 'node:path';
import { plural } from '../core/plural.js';
import { z } from 'zod';
import { closestMatch, outsideProject, TradelabError } from '../core/index.js';
import type { LocatedFile } from '../config/config-file.js';
import { listPresets, loadPreset } from '../trading/presets.js';
import {
  createPruner,
  createSampler,
  parsePrunerSpec,
  parseSamplerSpec,
  type ComponentSpecs,
} from '../tune/index.js';
import {
  AGGREGATES,
  checkParams,
  paramSchema,
  PolicySettingSchema,
  PrunerSettingSchema,
  readCheckedFile,
  resolvePolicySetting,
  SamplerSettingSchema,
  StudyFileSchema,
  type PresetFile,
  type StudyFile,
} from '../trading/study-spec.js';

/*
 * A campaign file (YAML or JSON): several trading studies on one dataset, run at once by one pool
 * of workers. Checked as a study file is: every problem names file:line and the fix, and nothing
 * is created until the whole file is right. A file of someone else's (a job of `tradelab serve`)
 * is read `within` the project: every path it names must stay inside, checked before it is read
 * or opened, since the file may have changed since the job was submitted.
 */

/** A campaign's or a study's name: typed on command lines, and part of the studies' names. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const nameSchema = z
  .string()
  .regex(NAME, 'use letters, digits, _ and - (starting with a letter or digit)')
  .max(60);
const aggregateSchema = z.union([
  z.enum(AGGREGATES),
  z.strictObject({ method: z.enum(AGGREGATES), lambda: z.number().min(0).optional() }),
]);

/** What a study sets, or the campaign sets for all of its studies. */
const STUDY_SETTINGS = {
  sampler: SamplerSettingSchema.optional(),
  pruner: PrunerSettingSchema.optional(),
  budgetScale: z.number().positive().optional(),
  policy: PolicySettingSchema.optional(),
  aggregate: aggregateSchema.optional(),
  seed: z.number().int().min(0).optional(),
};

/** One study of a campaign. */
const CampaignStudySchema = z.strictObject({
  /** Its name in the campaign (default: the preset's); the stored study is CAMPAIGN.NAME. */
  name: nameSchema.optional(),
  preset: z.string().optional(),
  /**
   * A study file (relative to the campaign file) to take the preset, parameters, sampler, pruner,
   * policy, aggregate, budget and seed from; the campaign's fields win over the file's.
   */
  file: z.string().optional(),
  /** Trials to finish (complete, pruned or failed), over every run of the campaign. */
  trials: z.number().int().min(1),
  /** Its share of the workers, relative to the others' (default 1). */
  weight: z.number().positive().optional(),
  /** A fine-tuning study's source: another study of this campaign. */
  from: z.string().optional(),
  /** Complete trials the source needs before this study starts (default: the preset's top). */
  after: z.number().int().min(1).optional(),
  params: z.record(z.string(), paramSchema).optional(),
  ...STUDY_SETTINGS,
});

/** A campaign file. */
export const CampaignFileSchema = z.strictObject({
  name: nameSchema,
  description: z.string().optional(),
  /** Where its studies live (default: the project's storage). */
  storage: z.string().optional(),
  data: z.string(),
  features: z.array(z.string()).optional(),
  cv: z.string().optional(),
  embargo: z.number().int().min(0).optional(),
  holdout: z.union([z.string(), z.number()]).optional(),
  lookback: z.number().int().min(1).optional(),
  /** The GPU profile to plan with (a flag or GPU_PROFILE wins; default: the project's, or detected). */
  profile: z.string().optional(),
  /** Worker processes: `auto` (the planner, for the largest trial of any study) or a number. */
  workers: z.union([z.literal('auto'), z.number().int().min(1)]).optional(),
  /** Defaults for every study. */
  ...STUDY_SETTINGS,
  studies: z.array(CampaignStudySchema).min(1),
});
export type CampaignFile = z.infer<typeof CampaignFileSchema>;
export type CampaignFileStudy = z.infer<typeof CampaignStudySchema>;

/** A campaign's study as the campaign runs it (targets and weights may change between runs). */
export interface CampaignStudyPlan {
  /** Its name in the campaign. */
  key: string;
  /** The stored study's name: CAMPAIGN.KEY. */
  study: string;
  preset: string;
  trials: number;
  weight: number;
  /** The key of the study it fine-tunes, if it does. */
  from: string | null;
  /** Complete trials the source needs before this one starts. */
  after: number;
}

/** How the last run of a campaign was sized (the report's diagnosis reads it). */
export interface CampaignRunRecord {
  /** Worker processes. */
  workers: number;
  /** Trials each worker ran at once (resident on the engine's card); absent: 1. */
  trialsPerWorker?: number;
  /** Why that many: the planner's words, or the flag. */
  why: string;
  /** What limited the planner's count (memory, cores, the profile's cap), if it planned. */
  limitedBy?: string;
  cores: number;
  /** The profile planned against. */
  profile: string;
}

/** How a run was sized, for reports: "2 workers on 2 cores, …", or its resident trials. */
export function describeRun(run: CampaignRunRecord): string {
  const resident =
    run.trialsPerWorker === undefined
      ? ''
      : ` of ${plural(run.trialsPerWorker, 'trial')} at once, resident on the card`;
  return `${plural(run.workers, 'worker')}${resident} on ${plural(run.cores, 'core')}, profile ${run.profile} (${run.why})`;
}

/** What a campaign run resolves from the file: kept with its studies, read by `campaign status`. */
export interface CampaignPlan {
  version: 1;
  name: string;
  /** The file it was read from (absolute). */
  file: string;
  data: string;
  workers: 'auto' | number;
  studies: CampaignStudyPlan[];
  /** The last run's sizing, once a run has started. */
  run?: CampaignRunRecord;
}

/** What a study file may not set in a campaign: every study shares the campaign's data and splits. */
const SHARED = ['data', 'features', 'cv', 'embargo', 'holdout', 'lookback', 'from'] as const;

/**
 * The campaign's studies with their study files (`file:`) read in: the file's preset, parameters,
 * sampler, pruner, policy, aggregate, budget and seed under the campaign's own fields. A study file
 * that sets what the campaign shares (data, splits) is a problem, with its file:line.
 */
function withStudyFiles(
  campaign: LocatedFile,
  content: CampaignFile,
  problems: string[],
  confine: Confinement,
): CampaignFile {
  const studies = content.studies.map((study, i) => {
    if (study.file === undefined) return study;
    const path = resolve(dirname(campaign.path), study.file);
    if (!confine(path, campaign.locate(['studies', i, 'file']), 'file')) return study;
    let read: { file: LocatedFile; content: StudyFile };
    try {
      read = readCheckedFile(path, StudyFileSchema, 'study file');
    } catch (error) {
      problems.push(
        `${campaign.locate(['studies', i, 'file'])}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return study;
    }
    const own = read.content;
    for (const key of SHARED)
      if (own[key] !== undefined)
        problems.push(
          `${read.file.locate([key], 'key')}: ${key} is the campaign's in a campaign (${campaign.path}): remove it from the study file${key === 'from' ? ', and name the source with from: in the campaign' : ''}`,
        );
    const merged: CampaignFileStudy = { ...study };
    if (merged.preset === undefined && own.preset !== undefined) merged.preset = own.preset;
    if (own.params !== undefined) merged.params = { ...own.params, ...study.params };
    if (own.sampler !== undefined) merged.sampler = { ...own.sampler, ...study.sampler };
    if (own.pruner !== undefined) merged.pruner = { ...own.pruner, ...study.pruner };
    // A study file's tcn:DIR is relative to the study file.
    if (merged.policy === undefined && own.policy !== undefined) {
      merged.policy = resolvePolicySetting(own.policy, dirname(read.file.path));
      confinePolicy(confine, merged.policy, read.file.locate(['policy']));
    }
    if (merged.aggregate === undefined && own.aggregate !== undefined)
      merged.aggregate = own.aggregate;
    if (merged.budgetScale === undefined && own.budgetScale !== undefined)
      merged.budgetScale = own.budgetScale;
    if (merged.seed === undefined && own.seed !== undefined) merged.seed = own.seed;
    return merged;
  });
  return { ...content, studies };
}

/** What campaign study `index` gives its sampler or pruner: the campaign's, under the study's own. */
function componentInput(
  kind: 'sampler' | 'pruner',
  content: CampaignFile,
  index: number,
): Record<string, unknown> {
  return {
    type: kind === 'sampler' ? 'tpe' : 'median',
    ...(content[kind] ?? {}),
    ...(content.studies[index]?.[kind] ?? {}),
  };
}

/**
 * The sampler and pruner of campaign study `index`: the campaign's, under the study's own (tpe
 * and median by default), checked by building them.
 */
export function campaignStudyComponents(content: CampaignFile, index: number): ComponentSpecs {
  const sampler = parseSamplerSpec(componentInput('sampler', content, index));
  const pruner = parsePrunerSpec(componentInput('pruner', content, index));
  createSampler(sampler);
  createPruner(pruner);
  return { sampler, pruner };
}

/**
 * Checks every study's sampler and pruner as the run will build them; a bad one is a problem at
 * the file:line:col where it is written (the study's own, else the campaign's), once.
 */
function checkComponents(file: LocatedFile, content: CampaignFile, problems: string[]): void {
  const found = new Set<string>();
  for (const kind of ['sampler', 'pruner'] as const) {
    content.studies.forEach((study, i) => {
      try {
        const input = componentInput(kind, content, i);
        if (kind === 'sampler') createSampler(parseSamplerSpec(input));
        else createPruner(parsePrunerSpec(input));
      } catch (error) {
        const at =
          study[kind] === undefined && content[kind] !== undefined ? [kind] : ['studies', i, kind];
        const line = `${file.locate(at)}: ${kind}: ${error instanceof Error ? error.message : String(error)}`;
        if (!found.has(line)) problems.push(line);
        found.add(line);
      }
    });
  }
}

/** The stored study name of campaign study `key`. */
export function campaignStudyName(campaign: string, key: string): string {
  return `${campaign}.${key}`;
}

/** Options of {@link readCampaignFile}. */
export interface CampaignFileOptions {
  /**
   * A project root that the file and every path it names (storage: sqlite:PATH, policy: tcn:DIR,
   * a study's file: and that file's policy) must stay inside once symlinks are followed: a job of
   * `tradelab serve` (`campaign run --inside-project`). Default: no limit.
   */
  within?: string;
}

/**
 * Checks that absolute `path`, written at `where` under `key`, stays within the project; records a
 * problem and answers false when it does not. Always true without a project to stay in.
 */
type Confinement = (path: string, where: string, key: string) => boolean;

/** The confinement of `within`, recording its refusals in `refused`. */
function confinementOf(within: string | undefined, refused: string[]): Confinement {
  return (path, where, key) => {
    if (within === undefined) return true;
    const why = outsideProject(within, path);
    if (why !== undefined) refused.push(`${where}: ${key}: ${path} ${why}`);
    return why === undefined;
  };
}

/** Confines a policy's tcn:DIR (already absolute). */
function confinePolicy(confine: Confinement, policy: string | undefined, where: string): void {
  if (policy?.startsWith('tcn:') === true) confine(policy.slice('tcn:'.length), where, 'policy');
}

/**
 * Confines `storage:`: only a SQLite file inside the project (relative to its root, as the
 * storage setting is) or memory:. Any other URL is refused without being quoted (a PostgreSQL URL
 * carries its password): the service's jobs use the service's storage.
 */
function confineStorage(
  within: string | undefined,
  storage: string | undefined,
  where: string,
  refused: string[],
): void {
  if (within === undefined || storage === undefined || storage === 'memory:') return;
  if (!storage.startsWith('sqlite:')) {
    refused.push(
      `${where}: storage: only a sqlite:PATH inside the project may be named here (remove storage: to use the service's own)`,
    );
    return;
  }
  // As the storage opens it: sqlite:///abs is /abs; a relative path is relative to the project.
  const path = storage.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === '' || path === ':memory:') return;
  confinementOf(within, refused)(resolve(within, path), where, 'storage');
}

/** Throws PATH_OUTSIDE_PROJECT listing `refused`, when there is any. */
function throwRefused(refused: string[], within: string | undefined): void {
  if (refused.length === 0) return;
  throw new TradelabError('PATH_OUTSIDE_PROJECT', refused.join('\n'), {
    hint: `name paths inside the project (${within ?? ''}): relative ones, e.g. runs/tcn-5m or sqlite:studies.db`,
    details: { problems: refused },
  });
}

/** Reads and checks a campaign file; returns its content and its plan. */
export function readCampaignFile(
  path: string,
  options: CampaignFileOptions = {},
): {
  file: LocatedFile;
  content: CampaignFile;
  plan: CampaignPlan;
} {
  const { within } = options;
  const refused: string[] = [];
  const confine = confinementOf(within, refused);
  confine(resolve(path), 'the campaign file', 'FILE');
  throwRefused(refused, within);
  const { file, content: written } = readCheckedFile(path, CampaignFileSchema, 'campaign file');
  const problems: string[] = [];
  // The campaign's own tcn:DIR policies are relative to the campaign file.
  const base = dirname(file.path);
  const located: CampaignFile = {
    ...written,
    ...(written.policy === undefined ? {} : { policy: resolvePolicySetting(written.policy, base) }),
    studies: written.studies.map((study) =>
      study.policy === undefined
        ? study
        : { ...study, policy: resolvePolicySetting(study.policy, base) },
    ),
  };
  confineStorage(within, located.storage, file.locate(['storage']), refused);
  confinePolicy(confine, located.policy, file.locate(['policy']));
  located.studies.forEach((study, i) => {
    confinePolicy(confine, study.policy, file.locate(['studies', i, 'policy']));
  });
  const content = withStudyFiles(file, located, problems, confine);
  throwRefused(refused, within);
  checkComponents(file, content, problems);
  const presets = listPresets();
  const keys: string[] = [];
  const loaded = new Map<string, PresetFile>();
  content.studies.forEach((study, i) => {
    const at = (key: string): string => file.locate(['studies', i, key]);
    const preset = study.preset;
    if (preset === undefined) {
      problems.push(
        `${file.locate(['studies', i])}: a study needs a preset (${presets.join(', ')}), or a study file (file:) that names one`,
      );
      return;
    }
    if (!presets.includes(preset)) {
      const near = closestMatch(preset, presets);
      problems.push(
        `${at('preset')}: no preset named "${preset}"${near === undefined ? '' : ` (did you mean ${near}?)`}; presets: ${presets.join(', ')}`,
      );
      return;
    }
    loaded.set(preset, loaded.get(preset) ?? loadPreset(preset));
    const key = study.name ?? preset;
    if (!NAME.test(key))
      problems.push(
        `${at('preset')}: "${key}" cannot name a study: give it a name: of letters, digits, _ and -`,
      );
    if (keys.includes(key))
      problems.push(
        `${study.name === undefined ? at('preset') : at('name')}: a second study named "${key}": give each a name: of its own`,
      );
    keys.push(key);
    try {
      checkParams({ params: study.params ?? {} }, file, ['studies', i]);
    } catch (error) {
      problems.push(error instanceof TradelabError ? error.message : String(error));
    }
  });
  // Sources: another study of this campaign, listed before (so there is no cycle).
  content.studies.forEach((study, i) => {
    const preset = study.preset === undefined ? undefined : loaded.get(study.preset);
    if (preset === undefined) return;
    const key = keys[i] ?? '';
    if (preset.from !== undefined && study.from === undefined)
      problems.push(
        `${file.locate(['studies', i, 'preset'])}: preset ${study.preset} fine-tunes another study: name it with from: (a study listed above)`,
      );
    if (study.from === undefined) {
      if (study.after !== undefined)
        problems.push(`${file.locate(['studies', i, 'after'])}: after: needs from:`);
      return;
    }
    const source = keys.indexOf(study.from);
    if (source < 0 || source >= i) {
      const near = closestMatch(study.from, keys.slice(0, i));
      problems.push(
        `${file.locate(['studies', i, 'from'])}: "${study.from}" is not a study listed above ${key}${near === undefined ? '' : ` (did you mean ${near}?)`}`,
      );
    }
  });
  if (problems.length > 0)
    throw new TradelabError('CONFIG_INVALID', problems.join('\n'), {
      hint: 'fix the campaign file',
      details: { file: file.path, problems },
    });
  const plan: CampaignPlan = {
    version: 1,
    name: content.name,
    file: file.path,
    data: content.data,
    workers: content.workers ?? 'auto',
    studies: content.studies.map((study, i) => {
      const preset = loaded.get(study.preset ?? '');
      const key = keys[i] ?? '';
      return {
        key,
        study: campaignStudyName(content.name, key),
        preset: study.preset ?? '',
        trials: study.trials,
        weight: study.weight ?? 1,
        from: study.from ?? null,
        after: study.after ?? preset?.from?.top ?? 3,
      };
    }),
  };
  return { file, content, plan };
}

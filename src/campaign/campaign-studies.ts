import { describeTcnEncoder, type PolicyNetwork } from '../agents/index.js';
import { TradelabError } from '../core/index.js';
import {
  loadMarketData,
  parseDatasetKeys,
  type DatasetStore,
  type MarketData,
} from '../data/index.js';
import type { StudyRecord, StudyStorage } from '../storage/index.js';
import { featureOptionsOf } from '../trading/feature-groups.js';
import { bestTrials, fineTuneSpec } from '../trading/fine-tune.js';
import { studySplits } from '../trading/cv-spec.js';
import { loadPreset } from '../trading/presets.js';
import { checkStudyData, studyMarket } from '../trading/study-data.js';
import { resolveDrlStudy, type DrlStudySpec } from '../trading/study-spec.js';
import { fitParamsToProfile, type DrlLimits } from '../trading/profile-limits.js';
import { Study, type ComponentSpecs } from '../tune/index.js';
import {
  campaignStudyComponents,
  type CampaignFile,
  type CampaignPlan,
  type CampaignStudyPlan,
} from './campaign-file.js';
import { summarizeStudy } from '../tune/index.js';
import type { ScheduledStudy, SchedulerStudies, StoredCounts } from './campaign-scheduler.js';

/*
 * A campaign's studies in the storage. Each is an ordinary trading study (`study show` works on
 * it) named CAMPAIGN.KEY, marked in its system attributes as the campaign's; the campaign's plan
 * (targets, weights, sources) is written to each one's user attributes at every run, so `campaign
 * status` on any machine reads the same plan the run works to.
 */

/** The system attribute that makes a study a campaign's (written once, at creation). */
export const CAMPAIGN_ATTR = 'campaign';
/** The user attribute holding the campaign's plan as of its last run. */
export const CAMPAIGN_PLAN_ATTR = 'tradelab.campaign';

/** What a campaign study's system attribute holds. */
export interface CampaignMembership {
  name: string;
  key: string;
}

/** The campaign a stored study belongs to, if any. */
export function membershipOf(study: StudyRecord): CampaignMembership | undefined {
  const value = study.systemAttrs[CAMPAIGN_ATTR] as CampaignMembership | undefined;
  return typeof value?.name === 'string' && typeof value.key === 'string' ? value : undefined;
}

/** A campaign as stored: its plan and its studies that exist so far. */
export interface StoredCampaign {
  plan: CampaignPlan;
  studies: StudyRecord[];
}

/** Reads campaign `name` from the storage; an error naming the campaigns there if it is not. */
export async function readCampaign(storage: StudyStorage, name: string): Promise<StoredCampaign> {
  const all = await storage.listStudies();
  const studies = all.filter((s) => membershipOf(s)?.name === name);
  // The latest plan: every run writes it to each study that exists then.
  const plan = studies
    .map((s) => s.userAttrs[CAMPAIGN_PLAN_ATTR] as (CampaignPlan & { at?: number }) | undefined)
    .filter((p): p is CampaignPlan & { at?: number } => p?.version === 1)
    .sort((a, b) => (b.at ?? 0) - (a.at ?? 0))[0];
  if (plan === undefined) {
    const names = [
      ...new Set(all.map((s) => membershipOf(s)?.name).filter((n) => n !== undefined)),
    ];
    throw new TradelabError('CAMPAIGN_NOT_FOUND', `no campaign named "${name}" in ${storage.url}`, {
      hint:
        names.length === 0
          ? 'run one first: tradelab campaign run FILE'
          : `campaigns there: ${names.sort().join(', ')}`,
    });
  }
  return { plan, studies };
}

/** The campaign's study settings for `entry`: the campaign's, under the study's own. */
function studyInput(content: CampaignFile, index: number): CampaignFile['studies'][number] {
  return content.studies[index] as CampaignFile['studies'][number];
}

/** The trading study spec of campaign study `index` on `market` (a fine-tuning one: before narrowing). */
function drlSpec(
  content: CampaignFile,
  plan: CampaignPlan,
  index: number,
  market: MarketData,
  limits: DrlLimits,
  notes: string[],
): DrlStudySpec {
  const study = studyInput(content, index);
  const entry = plan.studies[index] as CampaignStudyPlan;
  const source = entry.from === null ? undefined : plan.studies.find((s) => s.key === entry.from);
  const aggregate = study.aggregate ?? content.aggregate;
  const policySetting = study.policy ?? content.policy;
  // tcn:DIR (made absolute when the file was read): an MLP over the features and the run's encoder.
  const encoder =
    policySetting?.startsWith('tcn:') === true
      ? describeTcnEncoder(policySetting.slice(4))
      : undefined;
  const policy = encoder === undefined ? (policySetting as PolicyNetwork | undefined) : 'mlp';
  const budgetScale = study.budgetScale ?? content.budgetScale;
  const measured = studyMarket(market);
  const spec = resolveDrlStudy(
    {
      preset: entry.preset,
      dataSpec: content.data,
      market:
        encoder === undefined
          ? measured
          : { ...measured, featureCount: market.featureNames.length + encoder.hidden },
      ...(encoder === undefined
        ? {}
        : { encoder: { run: encoder.run, weightsSha256: encoder.weightsSha256 } }),
      ...(content.features === undefined ? {} : { features: content.features }),
      ...(content.cv === undefined ? {} : { cv: content.cv }),
      ...(content.embargo === undefined ? {} : { embargo: content.embargo }),
      ...(content.holdout === undefined ? {} : { holdout: content.holdout }),
      ...(content.lookback === undefined ? {} : { lookback: content.lookback }),
      ...(policy === undefined ? {} : { policy }),
      ...(aggregate === undefined ? {} : { aggregate }),
      ...(budgetScale === undefined ? {} : { budgetScale }),
      seed: study.seed ?? (content.seed ?? 1) + index * 1000,
      ...(source === undefined ? {} : { from: source.study }),
      ...(study.params === undefined ? {} : { params: study.params }),
    },
    loadPreset(entry.preset),
  );
  // Made now so that a cut or split that cannot be made fails before anything is stored.
  studySplits(spec.data.bars, spec.cv, spec);
  const fitted = fitParamsToProfile(spec.params, limits);
  for (const note of fitted.notes) notes.push(`${entry.key}: ${note}`);
  return { ...spec, params: fitted.params };
}

/**
 * The trading study spec of each of the campaign's studies, as the file describes them on its data
 * (a fine-tuning one's before it is narrowed to its source's best), with what the profile's
 * `limits` narrowed: what creating the studies stores, and what sizing a run of them plans for.
 */
export async function campaignStudySpecs(
  store: DatasetStore,
  content: CampaignFile,
  plan: CampaignPlan,
  limits: DrlLimits,
): Promise<{ market: MarketData; specs: DrlStudySpec[]; notes: string[] }> {
  const market = await loadMarketData(store, parseDatasetKeys(content.data), {
    features: featureOptionsOf(content.features ?? null),
  });
  const notes: string[] = [];
  const specs = plan.studies.map((_, i) => drlSpec(content, plan, i, market, limits, notes));
  return { market, specs, notes };
}

/** The campaign's trials still to run: each study's target less its trials done (none made: all). */
export async function campaignTrialsLeft(
  storage: StudyStorage,
  plan: CampaignPlan,
): Promise<number> {
  const stored = new Map((await storage.listStudies()).map((s) => [s.name, s]));
  let left = 0;
  for (const entry of plan.studies) {
    const record = stored.get(entry.study);
    const done =
      record === undefined
        ? 0
        : summarizeStudy('maximize', await storage.getTrials(record.id)).done;
    left += Math.max(0, entry.trials - done);
  }
  return left;
}

/**
 * Creates the campaign's studies that are not fine-tuning ones (or loads them when a run made them
 * before), writes the plan to every study that exists, and returns the scheduler's view of each
 * study with its counts so far. A stored study whose settings differ from the file's is an error:
 * its trials would not be of the study the file describes.
 */
export async function openCampaignStudies(
  storage: StudyStorage,
  store: DatasetStore,
  content: CampaignFile,
  plan: CampaignPlan,
  /** The profile's bounds on what the studies sample (its DRL netDimMax and batchSize). */
  limits: DrlLimits,
): Promise<{
  entries: ScheduledStudy[];
  /** The studies as the scheduler reaches them: fine-tuning ones made when ready, counts read again. */
  studies: SchedulerStudies;
  /** What the profile's limits narrowed, one line per study and parameter. */
  notes: string[];
  /** Each study's spec as the file describes it (campaignStudySpecs). */
  specs: DrlStudySpec[];
}> {
  const { market, specs, notes } = await campaignStudySpecs(store, content, plan, limits);
  const existing = new Map((await storage.listStudies()).map((s) => [s.name, s]));
  const components = plan.studies.map((_, i) => campaignStudyComponents(content, i));
  const entries: ScheduledStudy[] = [];
  for (const [i, entry] of plan.studies.entries()) {
    let record = existing.get(entry.study);
    let made = false;
    if (record === undefined && entry.from === null) {
      const study = await Study.create(storage, {
        name: entry.study,
        direction: 'maximize',
        ...(components[i] as ComponentSpecs),
        systemAttrs: {
          drl: specs[i],
          objective: 'drl',
          [CAMPAIGN_ATTR]: { name: plan.name, key: entry.key } satisfies CampaignMembership,
        },
        // Another run of the campaign (another terminal, another machine) may make it first.
        loadIfExists: true,
      });
      record = study.record;
      made = study.created;
    }
    if (record !== undefined && !made)
      checkMember(record, plan, entry, specs[i] as DrlStudySpec, market);
    const counts =
      record === undefined
        ? undefined
        : summarizeStudy('maximize', await storage.getTrials(record.id));
    entries.push({
      plan: entry,
      done: counts?.done ?? 0,
      complete: counts?.complete ?? 0,
      inFlight: 0,
      created: record !== undefined,
      atTarget: false,
    });
  }
  await writeCampaignPlan(storage, plan);

  const createFineTuning = async (scheduled: ScheduledStudy): Promise<void> => {
    const i = plan.studies.indexOf(scheduled.plan);
    const spec = specs[i] as DrlStudySpec;
    const from = spec.from;
    if (from === null)
      throw new TradelabError('INTERNAL', `${scheduled.plan.study} fine-tunes nothing`);
    const source = await storage.getStudy(from.study);
    const top = bestTrials(
      await storage.getTrials(source.id, ['complete']),
      source.direction,
      from.top,
    );
    // The source is this campaign's own trading study (its spec checked when it was created).
    const tuned = fineTuneSpec(spec, from, source.systemAttrs.drl as DrlStudySpec, top);
    const study = await Study.create(storage, {
      name: scheduled.plan.study,
      direction: 'maximize',
      ...(components[i] as ComponentSpecs),
      systemAttrs: {
        drl: tuned.spec,
        objective: 'drl',
        [CAMPAIGN_ATTR]: { name: plan.name, key: scheduled.plan.key } satisfies CampaignMembership,
      },
      // Another run of the campaign may have made it first (with its seeds): this one joins it.
      loadIfExists: true,
    });
    if (!study.created) {
      checkMember(study.record, plan, scheduled.plan, spec, market);
      return;
    }
    for (const params of tuned.enqueue) await storage.enqueueTrial(study.record.id, { params });
    await storage.setStudyUserAttrs(study.record.id, {
      [CAMPAIGN_PLAN_ATTR]: { ...plan, at: Date.now() },
    });
  };
  const recount = async (scheduled: ScheduledStudy): Promise<StoredCounts> => {
    const { id } = await storage.getStudy(scheduled.plan.study);
    const { done, complete } = summarizeStudy('maximize', await storage.getTrials(id));
    return { done, complete };
  };
  return { entries, studies: { create: createFineTuning, recount }, notes, specs };
}

/** Writes the plan to each of the campaign's stored studies. */
export async function writeCampaignPlan(storage: StudyStorage, plan: CampaignPlan): Promise<void> {
  const at = Date.now();
  for (const s of await storage.listStudies()) {
    if (membershipOf(s)?.name !== plan.name) continue;
    // A plan without a run's sizing keeps the last run's (the report's diagnosis reads it).
    const previous = (s.userAttrs[CAMPAIGN_PLAN_ATTR] as CampaignPlan | undefined)?.run;
    const run = plan.run ?? previous;
    await storage.setStudyUserAttrs(s.id, {
      [CAMPAIGN_PLAN_ATTR]: { ...plan, ...(run === undefined ? {} : { run }), at },
    });
  }
}

/**
 * Refuses a stored study that is not this campaign's study `entry`, that was created on other bars
 * of the file's dataset than `market`'s, or (a study that fine-tunes nothing) that was made with
 * other settings than `spec`.
 */
function checkMember(
  record: StudyRecord,
  plan: CampaignPlan,
  entry: CampaignStudyPlan,
  spec: DrlStudySpec,
  market: MarketData,
): void {
  const member = membershipOf(record);
  if (member?.name !== plan.name || member.key !== entry.key)
    throw new TradelabError(
      'STUDY_EXISTS',
      `a study named "${entry.study}" already exists and is not study ${entry.key} of campaign ${plan.name}`,
      {
        hint: `rename the campaign or the study in ${plan.file}, or remove it (tradelab study rm ${entry.study})`,
      },
    );
  const was = record.systemAttrs.drl as DrlStudySpec;
  // The file's dataset and indicators, other bars: the data changed, which no edit of the file undoes.
  if (
    was.data.spec === spec.data.spec &&
    JSON.stringify(was.features) === JSON.stringify(spec.features)
  )
    checkStudyData(market, was, record.name);
  // A fine-tuning study's spec is its source's, narrowed: what it was made with is checked there.
  if (entry.from !== null) return;
  const stored = JSON.stringify(record.systemAttrs.drl);
  // A study stored before `defaults` existed goes on with the defaults it ran with (the objective
  // applies STUDY_DEFAULTS_BEFORE), not with today's: that is no change of the file.
  const now: DrlStudySpec = { ...spec };
  if (was.defaults === undefined) delete now.defaults;
  if (stored !== JSON.stringify(now)) {
    const changed = (Object.keys(now) as (keyof DrlStudySpec)[]).filter(
      (k) => JSON.stringify(now[k]) !== JSON.stringify(was[k]),
    );
    throw new TradelabError(
      'CONFIG_INVALID',
      `study ${entry.key} of campaign ${plan.name} was created with other settings than ${plan.file} gives now (${changed.join(', ')})`,
      {
        hint: `its trials would not be of the study the file describes: restore the file, give the campaign a new name, or remove the study (tradelab study rm ${entry.study})`,
      },
    );
  }
}

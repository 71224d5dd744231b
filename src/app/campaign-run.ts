import { availableParallelism } from 'node:os';
import type { CampaignFileOptions, CampaignPlan, CampaignRow } from '../campaign/index.js';
import { isTradelabError, TradelabError } from '../core/index.js';
import { openDatasetStore } from '../data/index.js';
import type { GpuProfile } from '../profiles/index.js';
import type { TrialRecord } from '../storage/index.js';
import type { WorkerPoolSummary } from '../tune/index.js';
import type { Project } from './open-project.js';
import { openProjectStorage } from './project-storage.js';
import { workerSettings } from './study-workers.js';
import { campaignWorkers, parseWorkersRequest, type TrialWorkers } from './trial-workers.js';

/*
 * Running a campaign file: the use case of `tradelab campaign run`, a service job and the public
 * API. The file's `profile:` applies unless a flag or the environment named one; its studies are
 * made (or continued), sized by `--workers` (or its `workers:`, or auto: trial-workers.ts), run to
 * their targets in worker processes, and the run's sizing is kept with the plan for the report.
 */

/** What a campaign run is asked. */
export interface RunCampaignOptions {
  /** The campaign file (absolute, or relative to the project root). */
  file: string;
  /** `--workers` (`auto` or a count, as written): overrides the file's `workers:`. */
  workers?: number | string | undefined;
  /** Keep what the file names (its storage, data, policy run) inside the project. */
  insideProject?: boolean | undefined;
  /** Aborted: start no more trials (running ones finish). */
  signal?: AbortSignal | undefined;
  /** Aborted: stop the running trials too (they end interrupted and are re-enqueued). */
  killSignal?: AbortSignal | undefined;
}

/** What the run starts with. */
export interface CampaignStart extends TrialWorkers {
  plan: CampaignPlan;
  /** The storage URL (a password masked). */
  storage: string;
  /** Trials to go. */
  left: number;
  /** The project as the run sees it: the campaign file's profile applied. */
  project: Project;
  /** The campaign's rows now, read from the storage (valid while the run goes). */
  rows: () => Promise<CampaignRow[]>;
}

/** What a campaign run tells as it goes. */
export interface RunCampaignEvents {
  /** What the profile's limits narrowed, one line per study and parameter. */
  onNote?: (text: string) => void;
  onStart?: (start: CampaignStart) => void | Promise<void>;
  /** A trial ended; `study` is the campaign's key for its study. */
  onTrialEnd?: (trial: TrialRecord, study: string) => void;
}

/** How a campaign run ended. */
export interface CampaignOutcome {
  plan: CampaignPlan;
  storage: string;
  workers: number;
  trialsPerWorker: number;
  /** Undefined when nothing was left to run. */
  summary: WorkerPoolSummary | undefined;
  /** The rows at the end. */
  rows: CampaignRow[];
  /** Studies that could not start, and why (a fine-tuning study whose source failed). */
  blocked: { study: string; why: string }[];
  /** Every study reached its target. */
  finished: boolean;
}

/** Runs campaign file `options.file` to its targets (or until `signal`). */
export async function runCampaign(
  project: Project,
  options: RunCampaignOptions,
  events: RunCampaignEvents = {},
): Promise<CampaignOutcome> {
  // Loaded here: campaign/ and trading/ bring TensorFlow.js, which opening a project does not need.
  const campaign = await import('../campaign/index.js');
  const { drlLimitsOf } = await import('../trading/index.js');
  const { resolveObjective, runStudyPool } = await import('../tune/index.js');
  const root = project.config.projectRoot;
  const fileOptions: CampaignFileOptions = options.insideProject === true ? { within: root } : {};
  const { file, content, plan } = campaign.readCampaignFile(options.file, fileOptions);
  const here = withCampaignProfile(project, content.profile, () => file.locate(['profile']));
  const storage = await openProjectStorage(here, content.storage ?? here.config.settings.storage);
  try {
    const choice = await here.chooseProfile();
    const { entries, studies, notes, specs } = await campaign.openCampaignStudies(
      storage,
      openDatasetStore(here.config.settings.dataDir),
      content,
      plan,
      drlLimitsOf(choice.profile),
    );
    for (const note of notes) events.onNote?.(note);
    const scheduler = new campaign.CampaignScheduler(entries, studies);
    const left = entries.reduce((s, e) => s + Math.max(0, e.plan.trials - e.done), 0);
    const fromFile = options.workers === undefined;
    const sized = await campaignWorkers(
      here,
      plan,
      specs,
      left,
      parseWorkersRequest(
        options.workers ?? plan.workers,
        fromFile ? "the campaign file's workers" : '--workers',
      ),
      fromFile ? 'the campaign file' : '--workers',
    );
    const { workers, trialsPerWorker, why, limitedBy } = sized;
    plan.run = {
      workers,
      ...(trialsPerWorker > 1 ? { trialsPerWorker } : {}),
      why,
      ...(limitedBy === undefined ? {} : { limitedBy }),
      cores: availableParallelism(),
      profile: choice.profile.name,
    };
    const rows = (): Promise<CampaignRow[]> => campaign.campaignRows(storage, plan);
    await events.onStart?.({ ...sized, plan, storage: storage.url, left, project: here, rows });
    const outcome = (summary: WorkerPoolSummary | undefined): Promise<CampaignOutcome> =>
      rows().then((end) => ({
        plan,
        storage: storage.url,
        workers,
        trialsPerWorker,
        summary,
        rows: end,
        blocked: scheduler
          .state()
          .flatMap((e) => (e.blocked === undefined ? [] : [{ study: e.plan.key, why: e.blocked }])),
        finished: scheduler.finished(),
      }));
    if (left === 0) return await outcome(undefined);
    // Kept with the plan for the report's diagnosis and for projections: how this run was sized.
    await campaign.writeCampaignPlan(storage, plan);
    const summary = await runStudyPool(storage, scheduler, {
      workers,
      trialsPerWorker,
      objective: resolveObjective('drl', root),
      objectiveOptions: { ...(await workerSettings(here)) },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.killSignal === undefined ? {} : { killSignal: options.killSignal }),
      storageOptions: { baseDir: root, artifactDir: here.config.settings.artifactDir },
      onTrialEnd: (trial, study) => {
        events.onTrialEnd?.(trial, plan.studies.find((s) => s.study === study)?.key ?? study);
      },
    });
    return await outcome(summary);
  } finally {
    await storage.close();
  }
}

/**
 * The project with the campaign file's `profile:`, unless a flag or the environment named one
 * (they win over files, as over the config file); `where` locates it in the file for messages.
 */
export function withCampaignProfile(
  project: Project,
  name: string | undefined,
  where: () => string,
): Project {
  if (name === undefined) return project;
  const source = project.config.sources.profile.kind;
  if (source === 'flag' || source === 'env') return project;
  let profile: GpuProfile;
  try {
    profile = project.profiles.resolve(name);
  } catch (error) {
    if (!isTradelabError(error)) throw error;
    throw new TradelabError(error.code, `${where()}: ${error.message}`, {
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      cause: error,
    });
  }
  return {
    ...project,
    async chooseProfile() {
      const base = await project.chooseProfile();
      const same = base.profile.name === profile.name;
      return {
        ...base,
        profile,
        source: 'file',
        origin: where(),
        reason: `the campaign file names ${profile.name} at ${where()}`,
        // The detected card's figures hold only when the file names its profile.
        gpu: same ? base.gpu : undefined,
        freeBytes: same ? base.freeBytes : undefined,
        mismatch:
          same || base.source !== 'detected'
            ? base.mismatch
            : `the campaign file names ${profile.name}, and this machine's GPU maps to ${base.profile.name}`,
      };
    },
  };
}

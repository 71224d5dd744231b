import type { CampaignFile, CampaignPlan } from '../campaign/index.js';
import { TradelabError } from '../core/index.js';
import { openDatasetStore } from '../data/index.js';
import type { StudyStorage } from '../storage/index.js';
import type { DrlStudySpec } from '../trading/index.js';
import type { Project } from './open-project.js';
import { drlSpecOf, planStudyWorkers } from './study-workers.js';

/*
 * How many trial workers a run starts, and how many trials each runs at once: the one meaning of
 * `--workers` for `study run`, `campaign run` (its file's `workers:` too) and the service's jobs,
 * which run those commands.
 *
 * - A number N: N worker processes of one trial each, at most one per trial left.
 * - `auto`: every study's largest trial planned here (planStudyWorkers), the smallest fit taken.
 *   On the CPU that fit is already capped by the cores and the memory; trials resident on the
 *   engine's card run K at once in one worker process (K the fit). Either way at most the trials
 *   left.
 */

/** What `--workers` asks for: a count, or the planner's fit. */
export type WorkersRequest = 'auto' | number;

/** The run's workers and why. */
export interface TrialWorkers {
  /** Worker processes. */
  workers: number;
  /** Trials each runs at once: more than 1 only for trials resident on the card. */
  trialsPerWorker: number;
  /** Why, in words for the run's first line and the campaign's kept plan. */
  why: string;
  /** What limited the planner's fit (memory, cores, …), when it planned. */
  limitedBy?: string;
}

/** One study to size the run for, named as the user knows it (a campaign's study key). */
export interface SizedStudy {
  label: string;
  /** Its trading spec; undefined for another study (planned for the profile's default). */
  drl: DrlStudySpec | undefined;
}

/**
 * What `--workers` (or a campaign file's `workers:`, or a job's `workers` option) says: `auto`,
 * absent (auto) or a whole number ≥ 1; `source` names it in the error.
 */
export function parseWorkersRequest(raw: unknown, source = '--workers'): WorkersRequest {
  if (raw === undefined || raw === 'auto') return 'auto';
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (typeof raw === 'boolean' || raw === '' || !Number.isInteger(n) || n < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${source}: ${JSON.stringify(raw)} is not allowed: expected auto or a whole number ≥ 1`,
      { hint: `e.g. ${source} 2, or ${source} auto (the planner)` },
    );
  return n;
}

/**
 * The workers of a run of `studies` with `trialsLeft` trials to go (undefined: no limit), as
 * `request` asks; `requestedBy` names where a count came from (`--workers`, the campaign file).
 */
export async function chooseTrialWorkers(
  project: Project,
  studies: readonly SizedStudy[],
  request: WorkersRequest,
  trialsLeft: number | undefined,
  requestedBy = '--workers',
): Promise<TrialWorkers> {
  const cap = (n: number): number => Math.max(1, Math.min(n, trialsLeft ?? Infinity));
  const capNote = 'capped at the trials left';
  if (request !== 'auto')
    return {
      workers: cap(request),
      trialsPerWorker: 1,
      why: `${requestedBy} ${request}${request > cap(request) ? `, ${capNote}` : ''}`,
    };
  let tightest: { fit: number; what: string; limitedBy: string } | undefined;
  let allResident = true;
  for (const study of studies) {
    const { plan, model } = await planStudyWorkers(project, study.drl);
    if (plan.trialsPerProcess <= 1) allResident = false;
    if (tightest === undefined || plan.workers < tightest.fit)
      tightest = {
        fit: plan.workers,
        what: `on profile ${plan.profile}${model === undefined ? '' : ` for ${model}`}${studies.length > 1 ? ` of ${study.label}` : ''}`,
        limitedBy: plan.limitedBy,
      };
  }
  if (tightest === undefined) return { workers: 1, trialsPerWorker: 1, why: 'no study to plan' };
  const { fit, what, limitedBy } = tightest;
  const resident = allResident && fit > 1;
  const why = `auto: ${fit}${resident ? ' resident trials' : ''} fit ${what}, limited by ${limitedBy}${cap(fit) < fit ? `; ${capNote}` : ''}`;
  return resident
    ? { workers: 1, trialsPerWorker: cap(fit), why, limitedBy }
    : { workers: cap(fit), trialsPerWorker: 1, why, limitedBy };
}

/** `study run`'s workers for stored study `name`, `trials` more trials at most (undefined: no cap). */
export async function studyRunWorkers(
  project: Project,
  storage: StudyStorage,
  name: string,
  request: WorkersRequest,
  trials: number | undefined,
): Promise<TrialWorkers> {
  const study = await storage.getStudy(name);
  return chooseTrialWorkers(project, [{ label: name, drl: drlSpecOf(study) }], request, trials);
}

/**
 * `campaign run`'s workers for a campaign file's studies (`specs`, as campaignStudySpecs makes
 * them) with `left` trials to go. Fine-tuning studies search inside their sources' ranges: their
 * sources size the run.
 */
export function campaignWorkers(
  project: Project,
  plan: CampaignPlan,
  specs: readonly DrlStudySpec[],
  left: number,
  request: WorkersRequest,
  requestedBy: string,
): Promise<TrialWorkers> {
  const studies = plan.studies.flatMap((entry, i) =>
    entry.from === null ? [{ label: entry.key, drl: specs[i] }] : [],
  );
  return chooseTrialWorkers(project, studies, request, left, requestedBy);
}

/**
 * {@link campaignWorkers} for a campaign file before it runs (a service job's slots): its specs
 * made from the file and the data, its trials left read from `storage`.
 */
export async function campaignRunWorkers(
  project: Project,
  storage: StudyStorage,
  content: CampaignFile,
  plan: CampaignPlan,
  request: WorkersRequest,
  requestedBy: string,
): Promise<TrialWorkers & { left: number }> {
  // Loaded here: campaign/ and trading/ bring TensorFlow.js, which most commands do not need.
  const { campaignStudySpecs, campaignTrialsLeft } = await import('../campaign/index.js');
  const { drlLimitsOf } = await import('../trading/index.js');
  const { specs } = await campaignStudySpecs(
    openDatasetStore(project.config.settings.dataDir),
    content,
    plan,
    drlLimitsOf((await project.chooseProfile()).profile),
  );
  const left = await campaignTrialsLeft(storage, plan);
  return { ...(await campaignWorkers(project, plan, specs, left, request, requestedBy)), left };
}

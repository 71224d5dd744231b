import { statSync } from 'node:fs';
import { TradelabError } from '../core/index.js';
import type { StudyRecord, TrialRecord } from '../storage/index.js';
import {
  bestOf,
  describeComponents,
  resolveObjective,
  runWorkers,
  summarizeStudy,
  type ComponentDescriptions,
  type StudySummary,
  type TrialProgressListener,
  type WorkerPoolSummary,
} from '../tune/index.js';
import type { Project } from './open-project.js';
import { openProjectStorage } from './project-storage.js';
import { workerSettings } from './study-workers.js';
import { parseWorkersRequest, studyRunWorkers, type TrialWorkers } from './trial-workers.js';

/*
 * Running trials of a stored study in worker processes: the use case of `tradelab study run`, a
 * service job and the public API. Its rules: a run is bounded by trials or time; the objective is
 * the one asked or the one the study was created with; `--workers` means what trial-workers.ts
 * says; a run in which no trial completed and some failed is a failure.
 */

/** What a study run is asked. */
export interface RunStudyOptions {
  study: string;
  /** The objective: a built-in's name or a module path; default the study's own (`drl`). */
  objective?: string | undefined;
  /** Where a relative objective path is found (default the project root). */
  cwd?: string | undefined;
  /** Trials to finish; at least one of `trials` and `timeoutS`. */
  trials?: number | undefined;
  /** Seconds after which no trial starts. */
  timeoutS?: number | undefined;
  /** `auto` or a count, as written. */
  workers?: number | string | undefined;
  signal?: AbortSignal | undefined;
  killSignal?: AbortSignal | undefined;
}

/** What the run starts with. */
export interface StudyRunStart extends TrialWorkers {
  study: StudyRecord;
  /** The storage URL (a password masked). */
  storage: string;
  objective: string;
  components: ComponentDescriptions;
  /** The study's trials before this run. */
  before: readonly TrialRecord[];
}

/** What a study run tells as it goes. */
export interface RunStudyEvents {
  onStart?: (start: StudyRunStart) => void | Promise<void>;
  onTrialStart?: (trial: { number: number }) => void;
  onTrialProgress?: TrialProgressListener;
  onTrialEnd?: (trial: TrialRecord) => void;
}

/** How a study run ended. */
export interface StudyRunOutcome {
  study: StudyRecord;
  storage: string;
  workers: number;
  trialsPerWorker: number;
  summary: WorkerPoolSummary;
  /** The study after the run. */
  after: StudySummary;
  /** Set when no trial of the run completed and some failed: the run failed. */
  failure: TradelabError | undefined;
}

/** Runs trials of study `options.study` in worker processes. */
export async function runStudy(
  project: Project,
  options: RunStudyOptions,
  events: RunStudyEvents = {},
): Promise<StudyRunOutcome> {
  const { trials, timeoutS } = options;
  if (trials === undefined && timeoutS === undefined)
    throw new TradelabError('USAGE', '--trials is required (or --timeout)', {
      hint: `e.g. tradelab study run ${options.study} --objective ${options.objective ?? 'MODULE'} --trials 100`,
    });
  const root = project.config.projectRoot;
  const storage = await openProjectStorage(project);
  try {
    const study = await storage.getStudy(options.study);
    const sized = await studyRunWorkers(
      project,
      storage,
      study.name,
      parseWorkersRequest(options.workers),
      trials,
    );
    const objective = objectivePath(
      options.objective,
      study.systemAttrs.objective,
      options.cwd ?? root,
    );
    const objectiveOptions = { ...(await workerSettings(project)) };
    const before = await storage.getTrials(study.id);
    await events.onStart?.({
      ...sized,
      study,
      storage: storage.url,
      objective,
      components: describeComponents(study.systemAttrs),
      before,
    });
    const summary = await runWorkers(storage, study.name, {
      workers: sized.workers,
      trialsPerWorker: sized.trialsPerWorker,
      objective,
      objectiveOptions,
      ...(trials === undefined ? {} : { nTrials: trials }),
      ...(timeoutS === undefined ? {} : { timeoutMs: timeoutS * 1000 }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.killSignal === undefined ? {} : { killSignal: options.killSignal }),
      storageOptions: { baseDir: root, artifactDir: project.config.settings.artifactDir },
      ...(events.onTrialStart === undefined ? {} : { onTrialStart: events.onTrialStart }),
      ...(events.onTrialProgress === undefined ? {} : { onTrialProgress: events.onTrialProgress }),
      ...(events.onTrialEnd === undefined ? {} : { onTrialEnd: events.onTrialEnd }),
    });
    const after = summarizeStudy(study.direction, await storage.getTrials(study.id));
    const failed = summary.failed + summary.lost;
    const interrupted = options.signal?.aborted === true || options.killSignal?.aborted === true;
    return {
      study,
      storage: storage.url,
      workers: sized.workers,
      trialsPerWorker: sized.trialsPerWorker,
      summary,
      after,
      failure:
        !interrupted && summary.complete === 0 && failed > 0
          ? new TradelabError(
              'TRIALS_FAILED',
              `no trial of this run completed: ${failed} failed${summary.pruned > 0 ? `, ${summary.pruned} pruned` : ''}`,
              {
                hint: `each failure's reason is printed above (all of them: tradelab study trials ${study.name} --json)`,
                details: { study: study.name, failed: summary.failed, lost: summary.lost },
              },
            )
          : undefined,
    };
  } finally {
    await storage.close();
  }
}

/** The best complete trial of a study's trials before a run, for its progress. */
export function bestBefore(start: StudyRunStart): TrialRecord | undefined {
  return bestOf(start.before, start.study.direction);
}

/**
 * The objective module's absolute path: the one asked (a built-in's name, or a file relative to
 * `cwd`), else the one the study was created with (a trading study's `drl`).
 */
function objectivePath(given: string | undefined, stored: unknown, cwd: string): string {
  const raw = given ?? (typeof stored === 'string' ? stored : undefined);
  if (raw === undefined || raw === '')
    throw new TradelabError('USAGE', '--objective is required', {
      hint: 'pass a .js/.mjs module exporting `objective(trial)` (e.g. --objective ./objective.mjs), or a built-in name (quadratic)',
    });
  const path = resolveObjective(raw, cwd);
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true)
    throw new TradelabError('FILE_NOT_FOUND', `--objective: ${path} is not a file`, {
      hint: 'pass a .js/.mjs module exporting `objective(trial)`',
      details: { path },
    });
  return path;
}

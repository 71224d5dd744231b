import { statSync } from 'node:fs';
import {
  oversubscription,
  parseWorkersRequest,
  studyRunWorkers,
  workerSettings,
} from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import { progressRecord, type ProgressRecord } from '../../jobs/index.js';
import type { StudyDirection, TrialRecord } from '../../storage/index.js';
import type { DrlStudySpec } from '../../trading/index.js';
import {
  bestOf,
  resolveObjective,
  runWorkers,
  type WorkerPoolSummary,
  describeComponents,
  summarizeStudy,
  trialDurationMs,
} from '../../tune/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural, shellQuote } from '../format.js';
import { intOption } from '../option-values.js';
import { withStudyStorage } from '../open-study-storage.js';
import type { Output } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';
import { handleInterrupts, setExitCode } from '../run-interrupts.js';
import { budgetOf, describeBudget } from '../print-trading-study.js';
import { createProgress, formatRate, progressIntervalOption } from '../progress.js';
import {
  describeRunProgress,
  runProgressLabel,
  runWorkDone,
  type RunningTrial,
  type RunProgressState,
} from '../study-run-progress.js';
import { formatNumber, formatParams } from '../study-format.js';

/** When stderr is not a terminal, the least time between two lines at trials' ends. */
const QUICK_TRIAL_LINES_S = 5;

/** `tradelab study run NAME --objective MODULE --trials N [--workers auto|N] [--timeout S]`. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = context.positionals[0] ?? '';
  const nTrials = intOption(options, 'trials', 1);
  const timeoutS = secondsOption(options, 'timeout');
  const progressInterval = progressIntervalOption(options);
  if (nTrials === undefined && timeoutS === undefined)
    throw new TradelabError('USAGE', '--trials is required (or --timeout)', {
      hint: `e.g. tradelab study run ${name} --objective ${String(options.objective)} --trials 100`,
    });
  await withStudyStorage(context, async (storage) => {
    const study = await storage.getStudy(name);
    const { workers, trialsPerWorker, why } = await studyRunWorkers(
      context.project(),
      storage,
      study.name,
      parseWorkersRequest(context.options.workers),
      nTrials,
    );
    const objective = objectivePath(context, study.systemAttrs.objective);
    const objectiveOptions = { ...(await workerSettings(context.project())) };
    const before = await storage.getTrials(study.id);
    const components = describeComponents(study.systemAttrs);
    out.record({
      type: 'start',
      study: study.name,
      storage: storage.url,
      trials: nTrials ?? null,
      workers,
      trialsPerWorker,
      why,
    });
    out.line(
      `Study "${study.name}" (${study.direction}) in ${storage.url}: ${nTrials === undefined ? 'trials' : plural(nTrials, 'trial')}${timeoutS === undefined ? '' : `, starting none after ${formatNumber(timeoutS)} s`}, ${plural(workers, 'worker process', 'worker processes')}${trialsPerWorker > 1 ? ` of ${trialsPerWorker} trials at once` : ''} (${why})`,
    );
    out.line(`  objective  ${objective}`);
    out.line(`  sampler    ${components.sampler}`);
    out.line(`  pruner     ${components.pruner}`);
    if (before.length > 0) out.line(`  continuing after ${plural(before.length, 'earlier trial')}`);
    await logProfileBanner(context, workers);
    // Resident trials step no env on the CPU: a process of several holds one core's work.
    const crowded = oversubscription(workers);
    if (crowded !== undefined) out.note(`warning: ${crowded}`);

    const tracker = new RunTracker(
      out,
      study.direction,
      nTrials,
      bestOf(before, study.direction),
      progressInterval,
    );
    const interrupt = handleInterrupts(out, () => {
      tracker.clear();
    });
    let summary: WorkerPoolSummary;
    try {
      summary = await runWorkers(storage, study.name, {
        workers,
        trialsPerWorker,
        objective,
        objectiveOptions,
        ...(nTrials === undefined ? {} : { nTrials }),
        ...(timeoutS === undefined ? {} : { timeoutMs: timeoutS * 1000 }),
        signal: interrupt.stop,
        killSignal: interrupt.kill,
        storageOptions: {
          baseDir: context.project().config.projectRoot,
          artifactDir: context.project().config.settings.artifactDir,
        },
        onTrialStart: ({ number }) => {
          tracker.trialStarted(number);
        },
        onTrialProgress: (progress) => {
          tracker.trialProgress(progress);
        },
        onTrialEnd: (trial) => {
          tracker.trialEnded(trial);
        },
      });
    } finally {
      interrupt.dispose();
      tracker.clear();
    }

    const after = summarizeStudy(study.direction, await storage.getTrials(study.id));
    const best = after.best;
    const rate = summary.trials.length / Math.max(summary.seconds, 1e-9);
    if (out.json)
      out.record({
        type: 'summary',
        study: study.name,
        storage: storage.url,
        workers,
        trialsPerWorker,
        complete: summary.complete,
        pruned: summary.pruned,
        failed: summary.failed,
        lost: summary.lost,
        seconds: summary.seconds,
        trialsPerSecond: rate,
        interrupted: interrupt.signalName() ?? null,
        best:
          best === undefined
            ? null
            : { number: best.number, value: best.value, params: best.params },
        waiting: after.states.waiting,
      });
    else {
      out.line();
      out.line(
        `${interrupt.signalName() === undefined ? 'Finished' : 'Interrupted after'} ${plural(summary.trials.length, 'trial')} in ${summary.seconds.toFixed(1)} s (${formatRate(rate, 'trials', 'trial')}): ${summary.complete} complete, ${summary.pruned} pruned, ${summary.failed} failed, ${summary.lost} lost.`,
      );
      out.line(
        best === undefined
          ? 'Best: none yet (no complete trial).'
          : `Best: trial ${best.number}, value ${formatNumber(best.value)} (${formatParams(best.params)})`,
      );
      const drl = study.systemAttrs.drl as DrlStudySpec | undefined;
      if (best !== undefined && drl?.version === 1)
        out.line(`  its budget: ${describeBudget(budgetOf(drl, best))}`);
      if (after.states.waiting > 0)
        out.line(
          `${plural(after.states.waiting, 'trial')} waiting (enqueued or retries of interrupted ones): the next \`tradelab study run ${study.name}\` runs them first.`,
        );
      out.line(`Details: tradelab study show ${study.name}`);
    }
    const code = interrupt.exitCode();
    if (code !== undefined) setExitCode(code);
    else if (summary.complete === 0 && summary.failed + summary.lost > 0)
      throw new TradelabError(
        'TRIALS_FAILED',
        `no trial of this run completed: ${summary.failed + summary.lost} failed${summary.pruned > 0 ? `, ${summary.pruned} pruned` : ''}`,
        {
          hint: `each failure's reason is printed above (all of them: tradelab study trials ${shellQuote(study.name)} --json)`,
          details: { study: study.name, failed: summary.failed, lost: summary.lost },
        },
      );
  });
}

/**
 * The objective module's absolute path: --objective (a built-in's name, or a file relative to the
 * working directory), else the one the study was created with (a trading study's `drl`).
 */
function objectivePath(context: CommandContext, stored: unknown): string {
  const given = context.options.objective;
  const raw = given ?? (typeof stored === 'string' ? stored : undefined);
  if (typeof raw !== 'string' || raw === '')
    throw new TradelabError('USAGE', '--objective is required', {
      hint: 'pass a .js/.mjs module exporting `objective(trial)` (e.g. --objective ./objective.mjs), or a built-in name (quadratic)',
    });
  const path = resolveObjective(raw, context.cwd);
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true)
    throw new TradelabError('FILE_NOT_FOUND', `--objective: ${path} is not a file`, {
      hint: 'pass a .js/.mjs module exporting `objective(trial)`',
      details: { path },
    });
  return path;
}

/** A positive number of seconds; undefined when not given. */
function secondsOption(options: CommandContext['options'], name: string): number | undefined {
  const raw = options[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value) || value <= 0)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not allowed: expected seconds > 0`,
      { hint: `e.g. --${name} 3600 (one hour)` },
    );
  return value;
}

/**
 * Progress of a run: a bar on a terminal; otherwise (CI logs, `2> file`) a plain line every
 * `intervalS` seconds and at a trial's end (at most one every 5 s for quick trials); JSON records.
 */
class RunTracker {
  private readonly started = performance.now();
  private readonly progress;
  private readonly tty = process.stderr.isTTY;
  private lastLine = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private readonly state: {
    finished: number;
    complete: number;
    pruned: number;
    failed: number;
    running: Map<number, RunningTrial>;
  } = { finished: 0, complete: 0, pruned: 0, failed: 0, running: new Map() };

  constructor(
    private readonly out: Output,
    private readonly direction: StudyDirection,
    private readonly nTrials: number | undefined,
    private best: TrialRecord | undefined,
    private readonly intervalS: number,
  ) {
    this.progress = createProgress({ total: nTrials ?? Infinity, unit: 'trials', one: 'trial' });
    this.schedule();
  }

  /** A trial started: shown as running from now on. */
  trialStarted(number: number): void {
    this.state.running.set(number, { number, fraction: 0, detail: '' });
    this.show(false);
  }

  /** What a running trial's objective said of its progress. */
  trialProgress(progress: RunningTrial): void {
    if (!this.state.running.has(progress.number)) return;
    this.state.running.set(progress.number, progress);
    this.show(false);
  }

  /** Counts a finished trial, prints its JSON record and updates the progress display. */
  trialEnded(trial: TrialRecord): void {
    const s = this.state;
    s.running.delete(trial.number);
    s.finished++;
    if (trial.state === 'complete') {
      s.complete++;
      this.best = bestOf(this.best === undefined ? [trial] : [this.best, trial], this.direction);
    } else if (trial.state === 'pruned') s.pruned++;
    else s.failed++;
    this.out.record({
      type: 'trial',
      number: trial.number,
      state: trial.state,
      value: trial.value,
      params: trial.params,
      durationMs: trialDurationMs(trial),
      retryOf: trial.retryOf,
      failReason: trial.failReason,
    });
    if (trial.state === 'fail' && !this.out.json) {
      // Said as it happens (as Optuna logs each failing trial), not only in `study trials`.
      this.progress.done();
      this.out.note(
        `trial ${trial.number} failed: ${trial.failReason ?? 'no reason recorded'} (${formatParams(trial.params)})`,
      );
    }
    this.show(true);
  }

  /**
   * Stops the periodic lines and clears the progress bar, before a note or the summary; the last
   * progress record says where the run ended.
   */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.progress.done();
    this.out.progress(this.record());
  }

  /** The run's progress as a record. */
  private record(): ProgressRecord {
    const state = this.snapshot();
    const elapsedS = (performance.now() - this.started) / 1000;
    return progressRecord(
      runWorkDone(state),
      this.nTrials ?? null,
      'trials',
      elapsedS,
      describeRunProgress(state, elapsedS),
    );
  }

  private snapshot(): RunProgressState {
    const s = this.state;
    return {
      nTrials: this.nTrials,
      finished: s.finished,
      complete: s.complete,
      pruned: s.pruned,
      failed: s.failed,
      best: this.best?.value ?? null,
      running: [...s.running.values()].sort((a, b) => a.number - b.number),
    };
  }

  /** Redraws the bar, or writes a plain line when one is due (`ended`: a trial just ended). */
  private show(ended: boolean): void {
    const state = this.snapshot();
    if (this.tty) this.progress.update(runWorkDone(state), runProgressLabel(state));
    if (!this.plain()) return;
    const since = (performance.now() - this.lastLine) / 1000;
    const due = ended
      ? since >= Math.min(this.intervalS, QUICK_TRIAL_LINES_S)
      : this.intervalS === 0;
    if (due) this.plainLine();
  }

  /** Plain lines for logs, or progress records (a service's job reads them). */
  private plain(): boolean {
    return !this.tty || this.out.progressRecords;
  }

  private plainLine(): void {
    const now = performance.now();
    this.lastLine = now;
    const record = this.record();
    if (!this.tty) this.out.note(`progress: ${record.text}`);
    this.out.progress(record);
    this.schedule();
  }

  /** The next periodic plain line, `intervalS` after the last line. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.plain() || this.intervalS <= 0) return;
    this.timer = setTimeout(() => {
      this.plainLine();
    }, this.intervalS * 1000);
    this.timer.unref();
  }
}

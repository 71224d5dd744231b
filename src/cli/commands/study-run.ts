import { bestBefore, oversubscription, runStudy, type StudyRunOutcome } from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import { progressRecord, type ProgressRecord } from '../../jobs/index.js';
import type { StudyDirection, TrialRecord } from '../../storage/index.js';
import type { DrlStudySpec } from '../../trading/index.js';
import { bestOf, trialDurationMs } from '../../tune/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { intOption } from '../option-values.js';
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

/**
 * `tradelab study run NAME --objective MODULE --trials N [--workers auto|N] [--timeout S]`. The
 * rules are app/'s runStudy; this file reads the flags, shows the progress and prints.
 */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const nTrials = intOption(options, 'trials', 1);
  const progressInterval = progressIntervalOption(options);
  let tracker: RunTracker | undefined;
  const interrupt = handleInterrupts(out, () => {
    tracker?.clear();
  });
  let outcome: StudyRunOutcome;
  try {
    outcome = await runStudy(
      context.project(),
      {
        study: context.positionals[0] ?? '',
        objective: typeof options.objective === 'string' ? options.objective : undefined,
        cwd: context.cwd,
        trials: nTrials,
        timeoutS: secondsOption(options, 'timeout'),
        workers: typeof options.workers === 'string' ? options.workers : undefined,
        signal: interrupt.stop,
        killSignal: interrupt.kill,
      },
      {
        onStart: async (start) => {
          const { study, workers, trialsPerWorker, why, components, before } = start;
          const timeoutS = secondsOption(options, 'timeout');
          out.record({
            type: 'start',
            study: study.name,
            storage: start.storage,
            trials: nTrials ?? null,
            workers,
            trialsPerWorker,
            why,
          });
          out.line(
            `Study "${study.name}" (${study.direction}) in ${start.storage}: ${nTrials === undefined ? 'trials' : plural(nTrials, 'trial')}${timeoutS === undefined ? '' : `, starting none after ${formatNumber(timeoutS)} s`}, ${plural(workers, 'worker process', 'worker processes')}${trialsPerWorker > 1 ? ` of ${trialsPerWorker} trials at once` : ''} (${why})`,
          );
          out.line(`  objective  ${start.objective}`);
          out.line(`  sampler    ${components.sampler}`);
          out.line(`  pruner     ${components.pruner}`);
          if (before.length > 0)
            out.line(`  continuing after ${plural(before.length, 'earlier trial')}`);
          await logProfileBanner(context, workers);
          // Resident trials step no env on the CPU: a process of several holds one core's work.
          const crowded = oversubscription(workers);
          if (crowded !== undefined) out.note(`warning: ${crowded}`);
          tracker = new RunTracker(
            out,
            study.direction,
            nTrials,
            bestBefore(start),
            progressInterval,
          );
        },
        onTrialStart: ({ number }) => {
          tracker?.trialStarted(number);
        },
        onTrialProgress: (progress) => {
          tracker?.trialProgress(progress);
        },
        onTrialEnd: (trial) => {
          tracker?.trialEnded(trial);
        },
      },
    );
  } finally {
    interrupt.dispose();
    tracker?.clear();
  }

  const { study, summary, after } = outcome;
  const best = after.best;
  const rate = summary.trials.length / Math.max(summary.seconds, 1e-9);
  if (out.json)
    out.record({
      type: 'summary',
      study: study.name,
      storage: outcome.storage,
      workers: outcome.workers,
      trialsPerWorker: outcome.trialsPerWorker,
      complete: summary.complete,
      pruned: summary.pruned,
      failed: summary.failed,
      lost: summary.lost,
      seconds: summary.seconds,
      trialsPerSecond: rate,
      interrupted: interrupt.signalName() ?? null,
      best:
        best === undefined ? null : { number: best.number, value: best.value, params: best.params },
      waiting: after.waiting,
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
    if (after.waiting > 0)
      out.line(
        `${plural(after.waiting, 'trial')} waiting (enqueued or retries of interrupted ones): the next \`tradelab study run ${study.name}\` runs them first.`,
      );
    out.line(`Details: tradelab study show ${study.name}`);
  }
  const code = interrupt.exitCode();
  if (code !== undefined) setExitCode(code);
  else if (outcome.failure !== undefined) throw outcome.failure;
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

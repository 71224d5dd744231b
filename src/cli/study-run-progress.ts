import { etaSeconds, formatDuration, formatRate } from './progress.js';
import { formatNumber } from './study-format.js';

/*
 * What a study run says of its progress. Counting finished trials alone says nothing for the
 * minutes a DRL trial takes ("0 trials/s", no ETA until the first ends, then a jumping one); the
 * work done here also counts the fraction of each running trial its objective reports, so the
 * rate and the ETA mean something from the first progress message on.
 */

/** A running trial as its objective last described it. */
export interface RunningTrial {
  number: number;
  /** Fraction of its work done, in [0, 1]. */
  fraction: number;
  /** Its objective's words ("" until it says any). */
  detail: string;
}

/** What a study run has done so far. */
export interface RunProgressState {
  /** Trials this run is to finish; undefined for a run bounded by time alone. */
  nTrials: number | undefined;
  finished: number;
  complete: number;
  pruned: number;
  failed: number;
  /** The best value so far, or null. */
  best: number | null;
  running: readonly RunningTrial[];
}

/** Trials' worth of work done: the finished ones and the fractions of the running ones. */
export function runWorkDone(state: RunProgressState): number {
  return state.finished + state.running.reduce((sum, t) => sum + t.fraction, 0);
}

/** A plain line of the run's progress after `elapsedS` seconds (without the `progress: ` head). */
export function describeRunProgress(state: RunProgressState, elapsedS: number): string {
  const done = runWorkDone(state);
  const amount =
    state.nTrials === undefined
      ? `${trials(done)} done`
      : `${round(done)}/${state.nTrials} trials done (${Math.round((100 * done) / state.nTrials)}%)`;
  const outcomes = `${state.complete} complete, ${state.pruned} pruned, ${state.failed} failed, best ${formatNumber(state.best)}`;
  const rate = formatRate(elapsedS > 0 ? done / elapsedS : 0, 'trials', 'trial');
  const eta =
    state.nTrials === undefined
      ? ''
      : `, ETA ${formatDuration(etaSeconds(done / state.nTrials, elapsedS))}`;
  const running =
    state.running.length === 0
      ? ''
      : `; running: ${state.running.map((t) => `trial ${t.number} (${t.detail === '' ? 'starting' : t.detail})`).join(', ')}`;
  return `${amount}: ${outcomes}; ${rate}${eta}${running}`;
}

/** A short label for the terminal bar: each running trial's share done, and the outcomes. */
export function runProgressLabel(state: RunProgressState): string {
  const running = state.running.map((t) => `#${t.number} ${Math.round(t.fraction * 100)}%`);
  return [
    ...running,
    `${state.pruned} pruned, ${state.failed} failed, best ${formatNumber(state.best)}`,
  ].join(' · ');
}

/** `1 trial` or `2.5 trials`. */
function trials(n: number): string {
  return `${round(n)} ${n === 1 ? 'trial' : 'trials'}`;
}

/** To one decimal, without a trailing `.0`. */
function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}

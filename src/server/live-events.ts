import type { JobEvent, JobRecord } from '../jobs/index.js';
import type { StudyStorage, TrialRecord } from '../storage/index.js';

/*
 * Live events for the dashboard and API clients (server-sent events): jobs as the runner reports
 * them, and trials as they end. Trials are written by other processes (a campaign's workers), so
 * the hub polls the storage, once a second and only while someone listens, asking each study only
 * for what changed since the last look (`refreshTrials`).
 */

/** One event: its SSE name and its JSON data. */
export type LiveEvent =
  | { event: 'job'; data: JobRecord }
  | { event: 'log'; data: Extract<JobEvent, { type: 'log' }> }
  | { event: 'trial'; data: { study: string; trial: TrialRecord } }
  | { event: 'study'; data: { study: string } };

/** What a study's last look saw: the next number, and the numbers not finished then. */
interface StudyCursor {
  id: number;
  fromNumber: number;
  unfinished: number[];
}

/** Fans events out to listeners; polls the storage for trials while anyone listens. */
export class LiveEvents {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly cursors = new Map<string, StudyCursor>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private primed = false;

  constructor(
    private readonly storage: StudyStorage,
    private readonly pollMs = 1000,
  ) {}

  /** Adds a listener; returns the function that removes it. */
  listen(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.pollTrials(), this.pollMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Sends an event to every listener. */
  publish(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** Relays what a job runner reports. */
  fromRunner(event: JobEvent): void {
    if (event.type === 'job') this.publish({ event: 'job', data: event.job });
    else this.publish({ event: 'log', data: event });
  }

  /** Stops polling. */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private async pollTrials(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const studies = await this.storage.listStudies();
      for (const study of studies) {
        let cursor = this.cursors.get(study.name);
        if (cursor === undefined || cursor.id !== study.id) {
          cursor = { id: study.id, fromNumber: 0, unfinished: [] };
          this.cursors.set(study.name, cursor);
          // A study seen for the first time after the first look is new: say so.
          if (this.primed) this.publish({ event: 'study', data: { study: study.name } });
        }
        const changed = await this.storage.refreshTrials(
          study.id,
          cursor.fromNumber,
          cursor.unfinished,
        );
        const unfinished = new Set(cursor.unfinished);
        for (const trial of changed) {
          const wasOpen = unfinished.has(trial.number) || trial.number >= cursor.fromNumber;
          const open = trial.state === 'waiting' || trial.state === 'running';
          if (open) unfinished.add(trial.number);
          else unfinished.delete(trial.number);
          // The first look only learns what is there; later ones report trials as they end.
          if (this.primed && wasOpen && !open) {
            this.publish({ event: 'trial', data: { study: study.name, trial } });
          }
          cursor.fromNumber = Math.max(cursor.fromNumber, trial.number + 1);
        }
        cursor.unfinished = [...unfinished];
      }
      this.primed = true;
    } catch (error) {
      process.stderr.write(`live events: ${(error as Error).message}\n`);
    } finally {
      this.polling = false;
    }
  }
}

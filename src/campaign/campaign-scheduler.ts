import type { TrialRecord } from '../storage/records.js';
import type { TicketPolicy } from '../tune/worker-pool.js';
import type { CampaignStudyPlan } from './campaign-file.js';

/*
 * Which study of a campaign the next trial comes from. Each ticket goes to the study furthest
 * below its weighted share of the running trials, among those below their target; a study that
 * reaches its target gets no more, so its workers move to the others. A fine-tuning study starts
 * once its source has `after` complete trials (or has finished with at least one).
 *
 * Other runs of the campaign (another terminal, other machines on one PostgreSQL database) may
 * work on the same studies: this run's counts see only its own trials. So each ticket carries its
 * study's target and the storage refuses a claim past it (maxTrials); a study refused so is at
 * its target for this run, and its counts are read again from the storage.
 */

/** A study's counts as stored: trials done toward its target, and complete ones among them. */
export interface StoredCounts {
  done: number;
  complete: number;
}

/** What the scheduler asks of the campaign's studies in the storage. */
export interface SchedulerStudies {
  /** Creates a fine-tuning study once its source is ready (or loads it, made by another run). */
  create(study: ScheduledStudy): Promise<void>;
  /** The study's counts as stored now, all runs' trials included. */
  recount(study: ScheduledStudy): Promise<StoredCounts>;
}

/** A study of the campaign as the scheduler tracks it. */
export interface ScheduledStudy {
  plan: CampaignStudyPlan;
  /** Trials done toward the target (see summarizeStudy), complete ones among them. */
  done: number;
  complete: number;
  /** Tickets handed out and not yet settled. */
  inFlight: number;
  /** Whether the stored study exists (a fine-tuning one is created when it becomes ready). */
  created: boolean;
  /** Whether the storage refused a trial of it: other runs' trials and this one's reached the target. */
  atTarget: boolean;
  /** Why it will not run, when it cannot (its source ended with no complete trial). */
  blocked?: string;
}

/** A campaign's ticket policy; `create` makes a fine-tuning study once its source is ready. */
export class CampaignScheduler implements TicketPolicy {
  readonly studies: readonly string[];
  private readonly byName = new Map<string, ScheduledStudy>();
  private readonly creating = new Map<string, Promise<void>>();
  /** Studies whose counts may hold other runs' trials: read again before the next ticket. */
  private readonly stale = new Set<ScheduledStudy>();

  constructor(
    private readonly entries: ScheduledStudy[],
    private readonly stored: SchedulerStudies,
  ) {
    for (const entry of entries) this.byName.set(entry.plan.study, entry);
    this.studies = entries.filter((e) => e.created).map((e) => e.plan.study);
    this.blockStarved();
  }

  /** The studies, in the campaign file's order. */
  state(): readonly ScheduledStudy[] {
    return this.entries;
  }

  async next(): Promise<string | undefined> {
    for (const entry of [...this.stale]) {
      this.stale.delete(entry);
      const counts = await this.stored.recount(entry);
      entry.done = counts.done;
      entry.complete = counts.complete;
    }
    this.blockStarved();
    for (const entry of this.entries)
      if (!entry.created && this.sourceReady(entry)) await this.createOnce(entry);
    const chosen = this.choose();
    if (chosen === undefined) return undefined;
    chosen.inFlight++;
    return chosen.plan.study;
  }

  settled(study: string, trial: TrialRecord | undefined): void {
    const entry = this.byName.get(study);
    if (entry === undefined) return;
    entry.inFlight--;
    if (trial === undefined) return;
    // A retry of an interrupted trial replaces the failure it retries: only ends count.
    entry.done++;
    if (trial.state === 'complete') entry.complete++;
    this.blockStarved();
  }

  maxTrials(study: string): number | undefined {
    return this.byName.get(study)?.plan.trials;
  }

  reached(study: string): void {
    const entry = this.byName.get(study);
    if (entry === undefined) return;
    entry.atTarget = true;
    this.stale.add(entry);
  }

  hasWork(): boolean {
    return (
      this.choose() !== undefined ||
      this.entries.some((e) => !e.created && e.blocked === undefined && this.sourceReady(e))
    );
  }

  /** Whether every study has reached its target (with other runs' trials), or cannot run. */
  finished(): boolean {
    return this.entries.every(
      (e) => e.blocked !== undefined || e.atTarget || e.done >= e.plan.trials,
    );
  }

  /** The ready study with the fewest running trials for its weight, among those below target. */
  private choose(): ScheduledStudy | undefined {
    let best: ScheduledStudy | undefined;
    let bestShare = Infinity;
    for (const entry of this.entries) {
      if (!entry.created || entry.atTarget || entry.done + entry.inFlight >= entry.plan.trials)
        continue;
      const share = (entry.inFlight + 1) / entry.plan.weight;
      if (share < bestShare) {
        best = entry;
        bestShare = share;
      }
    }
    return best;
  }

  private source(entry: ScheduledStudy): ScheduledStudy | undefined {
    const from = entry.plan.from;
    return from === null ? undefined : this.entries.find((e) => e.plan.key === from);
  }

  private sourceReady(entry: ScheduledStudy): boolean {
    const source = this.source(entry);
    if (source === undefined || !source.created || entry.blocked !== undefined) return false;
    const sourceDone =
      (source.done >= source.plan.trials || source.atTarget) && source.inFlight === 0;
    return source.complete >= entry.plan.after || (sourceDone && source.complete > 0);
  }

  /** Fine-tuning studies whose source ended without a complete trial can never start. */
  private blockStarved(): void {
    for (const entry of this.entries) {
      const source = this.source(entry);
      if (entry.created || source === undefined || entry.blocked !== undefined) continue;
      const sourceOver =
        source.blocked !== undefined ||
        (source.created && source.done >= source.plan.trials && source.inFlight === 0);
      if (sourceOver && source.complete === 0)
        entry.blocked = `its source ${source.plan.key} ended with no complete trial`;
    }
  }

  private createOnce(entry: ScheduledStudy): Promise<void> {
    let pending = this.creating.get(entry.plan.study);
    if (pending === undefined) {
      pending = this.stored.create(entry).then(() => {
        entry.created = true;
        // Another run may have made it first, with trials: counted as stored.
        this.stale.add(entry);
      });
      this.creating.set(entry.plan.study, pending);
    }
    return pending;
  }
}

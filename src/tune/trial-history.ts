import { FINISHED_STATES, type TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';

/**
 * A study's trials as samplers and pruners see them, kept current cheaply: finished trials never
 * change, so they are fetched once; each refresh asks the storage only for new trials and those
 * still waiting or running. Without it every trial would read the whole study (O(n²) per study).
 */
export class TrialHistory {
  /** Every trial known, by number. */
  private readonly byNumber: TrialRecord[] = [];
  /** Numbers of known trials that were not finished when last seen. */
  private readonly open = new Set<number>();

  constructor(
    private readonly storage: StudyStorage,
    private readonly studyId: number,
  ) {}

  /** Catches up with the storage and returns every trial by number (do not mutate them). */
  async refresh(): Promise<readonly TrialRecord[]> {
    const fresh = await this.storage.refreshTrials(this.studyId, this.byNumber.length, [
      ...this.open,
    ]);
    for (const trial of fresh) {
      this.byNumber[trial.number] = trial;
      if (FINISHED_STATES.includes(trial.state)) this.open.delete(trial.number);
      else this.open.add(trial.number);
    }
    return this.byNumber;
  }
}

import type { StudyStorage } from '../storage/index.js';
import { summarizeStudy, type StudySummary } from '../tune/index.js';
import type { CampaignPlan } from './campaign-file.js';
import { membershipOf } from './campaign-studies.js';

/*
 * A campaign's progress, one row per study, read from the storage alone: a run, `campaign status`
 * on another machine and a service job all read the same rows.
 */

/** One study's row. */
export interface CampaignRow {
  key: string;
  study: string;
  target: number;
  /** pending (not created: a fine-tuning study waiting for its source), running, or done. */
  state: 'pending' | 'running' | 'done';
  counts: StudySummary;
}

const NO_TRIALS: StudySummary = summarizeStudy('maximize', []);

/** The campaign's rows, from the storage. */
export async function campaignRows(
  storage: StudyStorage,
  plan: CampaignPlan,
): Promise<CampaignRow[]> {
  const stored = new Map(
    (await storage.listStudies())
      .filter((s) => membershipOf(s)?.name === plan.name)
      .map((s) => [s.name, s]),
  );
  const rows: CampaignRow[] = [];
  for (const entry of plan.studies) {
    const record = stored.get(entry.study);
    const counts =
      record === undefined
        ? NO_TRIALS
        : summarizeStudy(record.direction, await storage.getTrials(record.id));
    rows.push({
      key: entry.key,
      study: entry.study,
      target: entry.trials,
      state: record === undefined ? 'pending' : counts.done >= entry.trials ? 'done' : 'running',
      counts,
    });
  }
  return rows;
}

import type { StudyRecord, StudyStorage, TrialRecord } from '../storage/index.js';
import { buildCampaignReport, type CampaignReport, type ReportHoldout } from './campaign-report.js';
import { readCampaign } from './campaign-studies.js';
import { bestOf } from '../tune/index.js';

/** A study's best trial on the holdout, for the report (the CLI evaluates the saved model). */
export type HoldoutOfBest = (
  record: StudyRecord,
  best: TrialRecord,
) => Promise<ReportHoldout | undefined>;

/**
 * Campaign `name`'s report from the storage; with `holdoutOf`, each study's best trial is also
 * scored on the holdout against buy-and-hold.
 */
export async function loadCampaignReport(
  storage: StudyStorage,
  name: string,
  holdoutOf?: HoldoutOfBest,
): Promise<CampaignReport> {
  const { plan, studies } = await readCampaign(storage, name);
  const byName = new Map(studies.map((s) => [s.name, s]));
  const stored = [];
  for (const entry of plan.studies) {
    const record = byName.get(entry.study);
    const trials = record === undefined ? [] : await storage.getTrials(record.id);
    const best = record === undefined ? undefined : bestOf(trials, record.direction);
    const holdout =
      record !== undefined && best !== undefined && holdoutOf !== undefined
        ? await holdoutOf(record, best)
        : undefined;
    stored.push({ record, trials, ...(holdout === undefined ? {} : { holdout }) });
  }
  return buildCampaignReport({ storage: storage.url, plan, studies: stored });
}

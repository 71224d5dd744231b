import {
  buildCampaignReport,
  readCampaign,
  type CampaignReport,
  type ReportHoldout,
} from '../campaign/index.js';
import type { StudyStorage } from '../storage/index.js';
import type { DrlStudySpec } from '../trading/index.js';
import type { CommandContext } from './command-spec.js';
import { holdoutOfBest } from './print-trading-study.js';

/**
 * Campaign `name`'s report from the storage; with `holdout`, each study's best trial is evaluated
 * on the holdout against buy-and-hold (its saved model, on this machine's backend).
 */
export async function loadCampaignReport(
  context: CommandContext,
  storage: StudyStorage,
  name: string,
  options: { holdout: boolean },
): Promise<CampaignReport> {
  const { plan, studies } = await readCampaign(storage, name);
  const byName = new Map(studies.map((s) => [s.name, s]));
  const stored = [];
  for (const entry of plan.studies) {
    const record = byName.get(entry.study);
    const trials = record === undefined ? [] : await storage.getTrials(record.id);
    let holdout: ReportHoldout | undefined;
    const best = trials
      .filter((t) => t.state === 'complete' && t.value !== null)
      .sort((a, b) => (b.value as number) - (a.value as number) || a.number - b.number)[0];
    if (record !== undefined && best !== undefined && options.holdout) {
      const evaluated = await holdoutOfBest(
        context.project(),
        storage,
        record.systemAttrs.drl as DrlStudySpec,
        best,
      );
      if (evaluated !== undefined) {
        const { evaluation, timestamps } = evaluated;
        holdout = {
          trial: best.number,
          sharpe: evaluation.metrics.sharpe,
          benchmarkSharpe: evaluation.benchmarkMetrics.sharpe,
          totalReturn: evaluation.metrics.totalReturn,
          benchmarkReturn: evaluation.benchmarkMetrics.totalReturn,
          equity: {
            times: Array.from(evaluation.bars, (bar) => timestamps[bar] ?? NaN),
            strategy: Array.from(evaluation.equity),
            benchmark: Array.from(evaluation.benchmark),
          },
        };
      }
    }
    stored.push({ record, trials, ...(holdout === undefined ? {} : { holdout }) });
  }
  return buildCampaignReport({ storage: storage.url, plan, studies: stored });
}

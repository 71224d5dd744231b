import {
  loadCampaignReport as loadReport,
  type CampaignReport,
  type ReportHoldout,
} from '../campaign/index.js';
import { rangeVerdict } from '../eval/index.js';
import type { StudyStorage } from '../storage/index.js';
import type { DrlStudySpec } from '../trading/index.js';
import type { CommandContext } from './command-spec.js';
import { holdoutOfBest } from './print-trading-study.js';

/**
 * Campaign `name`'s report from the storage; with `holdout`, each study's best trial is evaluated
 * on the holdout against buy-and-hold (its saved model, on this machine's backend).
 */
export function loadCampaignReport(
  context: CommandContext,
  storage: StudyStorage,
  name: string,
  options: { holdout: boolean },
): Promise<CampaignReport> {
  if (!options.holdout) return loadReport(storage, name);
  return loadReport(storage, name, async (record, best): Promise<ReportHoldout | undefined> => {
    const evaluated = await holdoutOfBest(
      context.project(),
      storage,
      record.name,
      record.systemAttrs.drl as DrlStudySpec,
      best,
    );
    if (evaluated === undefined) return undefined;
    const { evaluation, timestamps } = evaluated;
    return {
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
      findings: rangeVerdict(evaluation).findings,
    };
  });
}

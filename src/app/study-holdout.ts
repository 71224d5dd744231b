import type { CampaignReport, ReportHoldout } from '../campaign/index.js';
import { openDatasetStore } from '../data/index.js';
import { rangeVerdict, type RangeEvaluation } from '../eval/index.js';
import type { StudyStorage, TrialRecord } from '../storage/index.js';
import type { DrlStudySpec } from '../trading/index.js';
import type { Project } from './open-project.js';
import { startBackend } from './start-backend.js';

/*
 * A trading study's best trial on its holdout (bars the search never saw), beside buy-and-hold:
 * its kept model, evaluated on this machine's backend. `study show`, `campaign report` and the
 * service's campaign report all take it from here.
 */

/** A holdout evaluation with the bars' times, to print its range. */
export interface StudyHoldout {
  evaluation: RangeEvaluation;
  timestamps: Float64Array;
  timeframe: DrlStudySpec['data']['timeframe'];
}

/**
 * Evaluates the best trial's model of study `study` on the holdout; undefined when the study has
 * no holdout or the trial kept no model.
 */
export async function holdoutOfBest(
  project: Project,
  storage: StudyStorage,
  study: string,
  spec: DrlStudySpec,
  best: TrialRecord,
): Promise<StudyHoldout | undefined> {
  // Loaded here: trading/ brings TensorFlow.js, which opening a project does not need.
  const { evaluateTrialModel, holdoutRange, loadStudyData, withStudyEncoder } =
    await import('../trading/index.js');
  if (holdoutRange(spec) === undefined) return undefined;
  const names = await storage.listArtifacts(best.id);
  if (!names.includes('model.json')) return undefined;
  await startBackend(project);
  const data = withStudyEncoder(
    await loadStudyData(openDatasetStore(project.config.settings.dataDir), spec, study),
    spec,
  );
  return {
    evaluation: await evaluateTrialModel(storage, spec, best, data),
    timestamps: data.timestamps,
    timeframe: data.timeframe,
  };
}

/**
 * Campaign `name`'s report from the storage; with `holdout`, each study's best trial is evaluated
 * on the holdout against buy-and-hold.
 */
export async function campaignReport(
  project: Project,
  storage: StudyStorage,
  name: string,
  options: { holdout: boolean },
): Promise<CampaignReport> {
  const { loadCampaignReport } = await import('../campaign/index.js');
  if (!options.holdout) return loadCampaignReport(storage, name);
  return loadCampaignReport(storage, name, async (record, best) => {
    const evaluated = await holdoutOfBest(
      project,
      storage,
      record.name,
      record.systemAttrs.drl as DrlStudySpec,
      best,
    );
    if (evaluated === undefined) return undefined;
    const { evaluation, timestamps } = evaluated;
    const holdout: ReportHoldout = {
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
    return holdout;
  });
}

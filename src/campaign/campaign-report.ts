import type { Finding } from '../eval/range-verdict.js';
import type {
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from '../storage/records.js';
import type { DrlStudySpec } from '../trading/study-spec.js';
import type { CampaignPlan, CampaignRunRecord } from './campaign-file.js';
import { combineSummaries, summarizeStudy, type StudySummary } from '../tune/index.js';

/*
 * Seed 000's campaign table done right, as data: per study the trials by state, the rate, the best
 * value and the best trial on the holdout against buy-and-hold; the total; where trial time goes
 * (rollout, update, the rest); how pruning cut trials short; and a diagnosis read off those
 * measurements. The CLI prints it as a table, Markdown or JSON, and the HTML report draws it.
 */

/** One trial, as the report uses it. */
export interface ReportTrial {
  number: number;
  state: TrialState;
  value: number | null;
  params: Record<string, ParamValue>;
  startedAt: number | null;
  finishedAt: number | null;
  /** Sharpe ratio of each split it finished, by split index (null: not reached). */
  splitSharpes: (number | null)[];
  /** The split after which it was pruned, if it was. */
  prunedAfterSplit: number | null;
  rolloutSeconds: number | null;
  updateSeconds: number | null;
  /** The worker process's peak resident memory during the trial. */
  peakRssBytes: number | null;
}

/** The best trial's model on the holdout, against buy-and-hold on the same bars. */
export interface ReportHoldout {
  trial: number;
  sharpe: number;
  benchmarkSharpe: number;
  totalReturn: number;
  benchmarkReturn: number;
  /** The equity curves: bar times (ms) and values, strategy and buy-and-hold, both from 1. */
  equity: { times: number[]; strategy: number[]; benchmark: number[] };
  /** The range's verdict (eval/range-verdict.ts): against buy-and-hold, and why it lost. */
  findings?: Pick<Finding, 'kind' | 'severity' | 'text' | 'advice'>[];
}

/** One study of the report. */
export interface ReportStudy {
  key: string;
  study: string;
  preset: string;
  /** Whether higher values are better (a trading study maximizes its Sharpe ratio). */
  direction: StudyDirection;
  target: number;
  /** pending: a fine-tuning study that has not started (its source not ready yet). */
  state: 'pending' | 'running' | 'done';
  counts: StudySummary;
  /** Splits per trial (the study's cross-validation). */
  splits: number;
  trials: ReportTrial[];
  holdout?: ReportHoldout;
}

/** Where the ended trials' time went, summed over the campaign. */
export interface PhaseSplit {
  /** Seconds in each phase; `other`: evaluation, data and model setup, what is not the two. */
  rollout: number;
  update: number;
  other: number;
  /** Trials the figures come from (those that recorded their phases). */
  trials: number;
}

/** The whole report. */
export interface CampaignReport {
  name: string;
  storage: string;
  generatedAt: number;
  plan: CampaignPlan;
  studies: ReportStudy[];
  total: { target: number; counts: StudySummary };
  phases: PhaseSplit;
  /** Pruned trials by the split they were stopped after. */
  prunedAfterSplit: Record<number, number>;
  diagnosis: string[];
}

/** A stored trial as the report uses it. */
export function reportTrial(trial: TrialRecord): ReportTrial {
  const attrs = trial.userAttrs;
  const splits = Array.isArray(attrs.splits)
    ? (attrs.splits as { split?: number; sharpe?: number }[])
    : [];
  const splitSharpes: (number | null)[] = [];
  for (const s of splits)
    if (typeof s.split === 'number' && typeof s.sharpe === 'number')
      splitSharpes[s.split] = s.sharpe;
  const number = (v: unknown): number | null =>
    typeof v === 'number' && Number.isFinite(v) ? v : null;
  return {
    number: trial.number,
    state: trial.state,
    value: trial.value,
    params: trial.params,
    startedAt: trial.startedAt,
    finishedAt: trial.finishedAt,
    splitSharpes: Array.from(splitSharpes, (v) => v ?? null),
    prunedAfterSplit: number(attrs.prunedAfterSplit),
    rolloutSeconds: number(attrs.rolloutSeconds),
    updateSeconds: number(attrs.updateSeconds),
    peakRssBytes: number(attrs.peakRssBytes),
  };
}

/** The splits of a trading study's cross-validation. */
function splitCount(study: StudyRecord | undefined): number {
  const cv = (study?.systemAttrs.drl as DrlStudySpec | undefined)?.cv;
  if (cv === undefined) return 0;
  if (cv.method === 'cpcv') return binomial(cv.groups, cv.testGroups);
  return cv.method === 'kfold' ? cv.k : cv.folds;
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/** Builds the report from the campaign's plan, its stored studies and their trials. */
export function buildCampaignReport(input: {
  storage: string;
  plan: CampaignPlan;
  studies: readonly {
    record: StudyRecord | undefined;
    trials: readonly TrialRecord[];
    holdout?: ReportHoldout;
  }[];
  now?: number;
}): CampaignReport {
  const { plan } = input;
  const studies: ReportStudy[] = plan.studies.map((entry, i) => {
    const stored = input.studies[i];
    const direction = stored?.record?.direction ?? 'maximize';
    const counts = summarizeStudy(direction, stored?.trials ?? []);
    return {
      key: entry.key,
      study: entry.study,
      preset: entry.preset,
      direction,
      target: entry.trials,
      state:
        stored?.record === undefined ? 'pending' : counts.done >= entry.trials ? 'done' : 'running',
      counts,
      splits: splitCount(stored?.record),
      trials: (stored?.trials ?? []).map(reportTrial),
      ...(stored?.holdout === undefined ? {} : { holdout: stored.holdout }),
    };
  });
  const phases: PhaseSplit = { rollout: 0, update: 0, other: 0, trials: 0 };
  const prunedAfterSplit: Record<number, number> = {};
  for (const study of studies)
    for (const t of study.trials) {
      if (t.state === 'pruned' && t.prunedAfterSplit !== null)
        prunedAfterSplit[t.prunedAfterSplit] = (prunedAfterSplit[t.prunedAfterSplit] ?? 0) + 1;
      if (
        t.startedAt === null ||
        t.finishedAt === null ||
        t.rolloutSeconds === null ||
        t.updateSeconds === null
      )
        continue;
      const seconds = (t.finishedAt - t.startedAt) / 1000;
      phases.rollout += t.rolloutSeconds;
      phases.update += t.updateSeconds;
      phases.other += Math.max(0, seconds - t.rolloutSeconds - t.updateSeconds);
      phases.trials++;
    }
  const total = totalOf(studies);
  return {
    name: plan.name,
    storage: input.storage,
    generatedAt: input.now ?? Date.now(),
    plan,
    studies,
    total,
    phases,
    prunedAfterSplit,
    diagnosis: diagnose(studies, total.counts, phases, prunedAfterSplit, plan.run),
  };
}

/** The campaign's totals: its studies' summaries combined, the rate over its whole running time. */
export function totalOf(studies: readonly { target: number; counts: StudySummary }[]): {
  target: number;
  counts: StudySummary;
} {
  return {
    target: studies.reduce((s, r) => s + r.target, 0),
    counts: combineSummaries(
      studies.map((r) => r.counts),
      'maximize',
    ),
  };
}

const percent = (x: number): string => `${Math.round(x * 100)}%`;

/** What the measurements say limits the campaign, most telling first. */
export function diagnose(
  studies: readonly ReportStudy[],
  total: StudySummary,
  phases: PhaseSplit,
  prunedAfterSplit: Record<number, number>,
  run: CampaignRunRecord | undefined,
): string[] {
  const lines: string[] = [];
  const time = phases.rollout + phases.update + phases.other;
  if (phases.trials > 0 && time > 0) {
    const update = phases.update / time;
    const rollout = phases.rollout / time;
    const other = phases.other / time;
    // Decided on the percentages as printed: a 29.6% shown as "30%" gets the 30% line, so two runs
    // that read the same never say different things.
    const at = (share: number, percentage: number): boolean =>
      Math.round(share * 100) >= percentage;
    if (at(update, 60))
      lines.push(
        run?.trialsPerWorker === undefined
          ? `update ${percent(update)} of trial time: compute-bound in the PPO update (matrix products); more workers help while cores are free${run === undefined ? '' : ` (${run.workers} on ${run.cores} cores)`}; smaller netDim or fewer repeatTimes shorten it`
          : `update ${percent(update)} of trial time: the PPO update on the card (${run.trialsPerWorker} resident trials at once); larger minibatches fill it better, smaller netDim or fewer repeatTimes shorten it`,
      );
    else if (at(rollout, 50))
      lines.push(
        `rollout ${percent(rollout)} of trial time: bound by stepping the envs and the policy's forward pass; more nEnvs per step (one batched forward pass) raise its rate`,
      );
    if (at(other, 30))
      lines.push(
        `${percent(other)} of trial time is neither rollout nor update (evaluating splits, loading data, building models): short trials pay it most; larger breakStep budgets amortize it`,
      );
  }
  if (run?.limitedBy === 'memory' && run.trialsPerWorker !== undefined)
    lines.push(
      `resident trials limited by the card's memory: ${run.trialsPerWorker} at once; a smaller largest trial (netDim, batchSize, nEnvs, targetStep) fits more`,
    );
  else if (run?.limitedBy === 'memory')
    lines.push(
      `workers limited by memory: ${run.workers} of ${run.cores} cores used; a smaller largest trial (netDim, batchSize) or more memory fits more`,
    );
  const ended = total.complete + total.pruned + total.failed;
  if (total.pruned > 0 && ended > 0) {
    const [split, count] = Object.entries(prunedAfterSplit)
      .map(([s, n]) => [Number(s), n] as const)
      .sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
    const rate = total.pruned / ended;
    const splits = Math.max(...studies.map((s) => s.splits), 0);
    if (rate >= 0.5 && count > 0)
      lines.push(
        `${percent(rate)} pruned, most after split ${split + 1} of ${splits}: the pruner decides early, so the later splits mostly run for complete trials; fewer splits would cost little information`,
      );
    else lines.push(`${percent(rate)} of ended trials pruned (most after split ${split + 1})`);
  }
  if (ended > 0 && total.failed / ended >= 0.1)
    lines.push(
      `${percent(total.failed / ended)} of trials failed: their reasons are in tradelab study trials STUDY --json`,
    );
  const starved = studies.filter((s) => s.state === 'pending');
  for (const s of starved)
    lines.push(`${s.key} has not started: it waits for its source's complete trials`);
  if (lines.length === 0)
    lines.push('nothing stands out: no phase dominates trial time, few trials pruned or failed');
  return lines;
}

import type { RangeEvaluation } from './evaluate.js';
import { bootstrapSharpeDifference, type SharpeDifference } from './sharpe-bootstrap.js';

/*
 * What an evaluated range says in words: whether the agent beats buy-and-hold (the block bootstrap
 * of their Sharpe difference, so a lucky range is not read as an edge), and, when it loses, why —
 * fees that ate the gross return, a book traded hundreds of times a year, a critic that learned
 * nothing, an episode cut short by ruin — each with what to try. Reports print these beside their
 * tables: a quant's first question about a losing run is which of these it was.
 */

/** Every kind of {@link Finding}: a list, for the schemas that publish it (the service's API). */
export const FINDING_KINDS = [
  'ahead-of-benchmark',
  'behind-benchmark',
  'no-evidence',
  'fees-ate-return',
  'extreme-turnover',
  'critic-not-learned',
  'terminated',
] as const;

/** One thing the range shows. */
export interface Finding {
  kind: (typeof FINDING_KINDS)[number];
  /** `warning`: something to fix; `info`: how the range compares. */
  severity: 'warning' | 'info';
  text: string;
  /** What to try, in the user's own flags. */
  advice?: string;
}

/** The findings of a range and the Sharpe comparison behind the first of them. */
export interface RangeVerdict {
  findings: Finding[];
  /** Undefined when the range is too short or a curve is ruined. */
  comparison?: SharpeDifference;
}

/** What else a verdict may use besides the range. */
export interface VerdictContext {
  /** The critic's explained variance at the end of training, when the range's model was trained here. */
  explainedVariance?: number;
  /** Seeds the bootstrap. Default 0. */
  seed?: number;
}

/** Fees above this share of the gross gain (or of the cash, when there was no gain) are the story. */
const FEE_SHARE = 0.5;
/** Annualized turnover (× the book's value) above which trading is churning, not positioning. */
const EXTREME_TURNOVER = 100;
/**
 * Below this the critic predicts returns worse than their mean. Not higher: where a signal is
 * weak, a healthy critic explains only a few percent of the returns' variance.
 */
const CRITIC_LEARNED = 0;

/** A figure to `digits` places, never "-0.00" (a rounded −0.001 reads as a sign that is not there). */
const fixed = (x: number, digits: number): string => {
  const text = x.toFixed(digits);
  return Number(text) === 0 ? (0).toFixed(digits) : text;
};
const pct = (x: number): string => `${fixed(x * 100, 1)}%`;

/** The verdict on one evaluated range (see the file header). */
export function rangeVerdict(
  evaluation: RangeEvaluation,
  context: VerdictContext = {},
): RangeVerdict {
  const findings: Finding[] = [];
  const { metrics, equity, benchmark } = evaluation;
  let comparison: SharpeDifference | undefined;
  const ruined = evaluation.metrics.flags.includes('ruin');
  if (equity.length >= 3 && !ruined && !evaluation.benchmarkMetrics.flags.includes('ruin')) {
    comparison = bootstrapSharpeDifference(equity, benchmark, {
      periodsPerYear: metrics.periodsPerYear,
      seed: context.seed ?? 0,
    });
    const interval = `Sharpe ${fixed(metrics.sharpe, 2)} against ${fixed(evaluation.benchmarkMetrics.sharpe, 2)}; the difference's ${Math.round(comparison.confidence * 100)}% interval is [${fixed(comparison.lower, 2)}, ${fixed(comparison.upper, 2)}] (block bootstrap, ${comparison.resamples} resamples of ${comparison.blockLength}-bar blocks)`;
    findings.push(
      comparison.lower > 0
        ? {
            kind: 'ahead-of-benchmark',
            severity: 'info',
            text: `Ahead of buy-and-hold: ${interval}.`,
          }
        : comparison.upper < 0
          ? {
              kind: 'behind-benchmark',
              severity: 'warning',
              text: `Behind buy-and-hold: ${interval}.`,
            }
          : {
              kind: 'no-evidence',
              severity: 'info',
              text: `No evidence either way against buy-and-hold: ${interval}, and it contains 0.`,
            },
    );
  }
  const initial = equity[0] ?? 0;
  const final = equity[equity.length - 1] ?? initial;
  const fees = evaluation.fees;
  const gross = final - initial + fees;
  if (initial > 0 && fees > 0) {
    const share = fees / initial;
    if (gross > 0 && fees > FEE_SHARE * gross)
      findings.push({
        kind: 'fees-ate-return',
        severity: 'warning',
        text: `Fees ate ${pct(fees / gross)} of the gross gain: ${pct(gross / initial)} before fees, ${pct((final - initial) / initial)} after, fees ${pct(share)} of the initial cash.`,
        advice: feeAdvice,
      });
    else if (gross <= 0 && share > 0.02)
      findings.push({
        kind: 'fees-ate-return',
        severity: 'warning',
        text: `It lost before fees (${pct(gross / initial)}) and paid ${pct(share)} of the initial cash in fees on top.`,
        advice: feeAdvice,
      });
  }
  const turnover = metrics.annualizedTurnover;
  if (turnover !== null && turnover > EXTREME_TURNOVER)
    findings.push({
      kind: 'extreme-turnover',
      severity: 'warning',
      text: `The book was traded ${Math.round(turnover).toLocaleString('en-US')}× a year: the policy turns noise into trades.`,
      advice: feeAdvice,
    });
  const ev = context.explainedVariance;
  if (ev !== undefined && Number.isFinite(ev) && ev < CRITIC_LEARNED)
    findings.push({
      kind: 'critic-not-learned',
      severity: 'warning',
      text: `The critic's explained variance ended at ${fixed(ev, 2)}: it predicts returns worse than their mean would, so the advantages the policy learned from were noise.`,
      advice:
        'train longer (--steps), with more envs (--envs) or a lower learning rate (--lr); check that the features can see the signal',
    });
  if (evaluation.ended === 'terminated')
    findings.push({
      kind: 'terminated',
      severity: 'warning',
      text: 'The episode was terminated: the portfolio fell below the termination threshold before the range ended.',
    });
  return comparison === undefined ? { findings } : { findings, comparison };
}

// What bench learn measured to cut churn (docs/ppo.md): a turnover penalty. Target positions with
// a band cut fees too, but learned less of the signal, so they come second.
const feeAdvice =
  "trade less: --turnover-penalty 0.001 makes every trade cost the agent 10 bps more than its fees (on bench learn's random walk it cut turnover from about 400× to 14× a year), --reward excess makes holding the baseline to beat, a longer timeframe needs fewer trades for the same moves, and --action-scaling target with a --rebalance-band trades positions only when they move";

import { describe, expect, it } from 'vitest';
import { featureMarket } from '../env/synthetic-market.js';
import { evaluate, type RangeEvaluation } from './evaluate.js';
import { rangeVerdict } from './range-verdict.js';

/*
 * The verdict on real evaluated ranges (the vectorized env, its fees, the metrics): a policy that
 * buys and sells its whole budget every bar is told that fees ate its return and that it churns;
 * one that buys once and holds is told neither, and compares with buy-and-hold without claiming
 * an edge either way; a critic that learned nothing is named when its explained variance is given.
 */

const data = featureMarket({ assets: 2, bars: 3000, seed: 5 });
const bars = data.timestamps.length;
const range: [number, number] = [0, bars];
const steps = bars - 1;

/** The one range evaluated with scripted actions `at(step)` for both assets, at 10 bps. */
async function evaluateScript(at: (step: number) => number): Promise<RangeEvaluation> {
  const [evaluation] = await evaluate(data, undefined, [script(at)], [range], {
    buyFeeBps: 10,
    sellFeeBps: 10,
  });
  if (evaluation === undefined) throw new Error('no evaluation');
  return evaluation;
}

/** Scripted actions, `at(step)` for both assets. */
const script = (at: (step: number) => number): Float32Array =>
  Float32Array.from({ length: steps * 2 }, (_, i) => at(Math.floor(i / 2)));

describe('the verdict on an evaluated range', () => {
  it('tells a churning policy that fees ate its return and that it trades noise', async () => {
    const churn = await evaluateScript((s) => (s % 2 === 0 ? 1 : -1));
    const verdict = rangeVerdict(churn);
    const kinds = verdict.findings.map((f) => f.kind);
    expect(kinds).toContain('fees-ate-return');
    expect(kinds).toContain('extreme-turnover');
    const turnover = verdict.findings.find((f) => f.kind === 'extreme-turnover');
    expect(turnover?.text).toMatch(/^The book was traded [\d,]+× a year/);
    expect(turnover?.advice).toContain('--reward excess');
    expect(verdict.comparison?.bars).toBe(churn.equity.length - 1);
  });

  it('finds nothing to warn of in a policy that buys once and holds, and names the critic when told', async () => {
    const hold = await evaluateScript((s) => (s === 0 ? 1 : 0));
    const verdict = rangeVerdict(hold);
    expect(verdict.findings.filter((f) => f.severity === 'warning')).toEqual([]);
    expect(verdict.findings[0]?.kind).toMatch(
      /^(no-evidence|ahead-of-benchmark|behind-benchmark)$/,
    );
    expect(verdict.findings[0]?.text).toMatch(
      /Sharpe -?\d+\.\d\d against -?\d+\.\d\d; the difference's 95% interval is \[-?\d+\.\d\d, -?\d+\.\d\d\] \(block bootstrap, 1000 resamples of \d+-bar blocks\)/,
    );
    const critic = rangeVerdict(hold, { explainedVariance: -0.05 }).findings.find(
      (f) => f.kind === 'critic-not-learned',
    );
    expect(critic?.text).toContain('explained variance ended at -0.05');
    expect(
      rangeVerdict(hold, { explainedVariance: 0.6 }).findings.map((f) => f.kind),
    ).not.toContain('critic-not-learned');
  });
});

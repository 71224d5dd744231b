import { describe, expect, it } from 'vitest';
import { Rng } from '../core/index.js';
import { splitsTurnover, trialVerdict, type OosCurves } from './trial-verdict.js';

/*
 * The verdict on a trial's out-of-sample curves, on curves whose answer is known: a strategy that
 * loses half a percent a bar is behind a random-walk buy-and-hold, one that gains it is ahead, the
 * market itself is no evidence either way, and a ruined one gets no comparison (not a throw). The
 * turnover the splits recorded is weighted by their test bars.
 */

const HOURS_A_YEAR = 8760;
const BARS = 400;

/** Chained equity (from 1) of per-bar returns drawn as `mean + 1% noise`, seeded. */
function chain(mean: number, seed: number): number[] {
  const rng = new Rng(seed);
  const out: number[] = [];
  let value = 1;
  for (let i = 0; i < BARS; i++) {
    value *= 1 + mean + 0.01 * rng.normal();
    out.push(value);
  }
  return out;
}

const bars = Array.from({ length: BARS }, (_, i) => 500 + i);
const market = chain(0, 1);
const curves = (strategy: number[]): OosCurves => ({ bars, strategy, benchmark: market });
const kinds = (strategy: number[], turnover?: number): string[] =>
  trialVerdict(curves(strategy), HOURS_A_YEAR, turnover).findings.map((f) => f.kind);

describe("the verdict on a trial's out-of-sample curves", () => {
  it('says behind buy-and-hold, and names a churning book with its advice', () => {
    const verdict = trialVerdict(curves(chain(-0.005, 2)), HOURS_A_YEAR, 500);
    expect(verdict.findings.map((f) => f.kind)).toEqual(['behind-benchmark', 'extreme-turnover']);
    expect(verdict.findings[0]?.severity).toBe('warning');
    expect(verdict.findings[0]?.text).toMatch(/^Behind buy-and-hold: Sharpe -\d+\.\d\d against/);
    expect(verdict.comparison?.bars).toBe(BARS);
    expect(verdict.findings[1]?.text).toContain('traded 500× a year');
    expect(verdict.findings[1]?.advice).toContain('--turnover-penalty');
  });

  it('says ahead of buy-and-hold, no evidence for the market itself, and nothing of turnover unknown or low', () => {
    expect(kinds(chain(0.005, 3), 4)).toEqual(['ahead-of-benchmark']);
    expect(kinds(market)).toEqual(['no-evidence']);
  });

  it('compares nothing once the strategy is ruined', () => {
    const ruined = chain(0, 4).map((v, i) => (i >= 200 ? 0 : v));
    expect(kinds(ruined)).toEqual([]);
  });

  it("weights the splits' turnover by their test bars", () => {
    const splits = [
      { split: 0, test: [[0, 100]], turnover: 10 },
      {
        split: 1,
        test: [
          [100, 250],
          [300, 450],
        ],
        turnover: 50,
      },
      { split: 2, test: [[450, 500]] },
    ];
    expect(splitsTurnover({ splits })).toBeCloseTo((10 * 100 + 50 * 300) / 400, 10);
    expect(splitsTurnover({ splits: [] })).toBeUndefined();
    expect(splitsTurnover({ prunedAfterSplit: 1 })).toBeUndefined();
  });
});

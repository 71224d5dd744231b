import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';
import {
  pboCaveats,
  perBarSharpe,
  probabilityOfBacktestOverfitting,
  type PboOptions,
} from './pbo.js';

/** `trials` columns of `bars` normal returns (std 1 %) plus a per-trial drift, one stream each. */
function noiseTrials(seed: number, trials: number, bars: number, drift = 0): Float64Array[] {
  return Array.from({ length: trials }, (_, t) => {
    const rng = new Rng(seed, t);
    return Float64Array.from({ length: bars }, () => 0.01 * rng.normal() + drift);
  });
}

function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] ?? 0;
  return s / xs.length;
}

/** What {@link naiveCscv} finds per combination, in lexicographic order of the in-sample sets. */
interface NaiveCscv {
  sets: number[][];
  logits: number[];
  selected: number[];
  is: number[];
  oos: number[];
}

/** CSCV written the plain way: index tuples, concatenated arrays, a sort for the ranks. */
function naiveCscv(trials: number[][], blocks: number): NaiveCscv {
  const blockBars = Math.floor((trials[0] ?? []).length / blocks);
  const sets: number[][] = [];
  const choose = (start: number, picked: number[]): void => {
    if (picked.length === blocks / 2) {
      sets.push(picked);
      return;
    }
    for (let b = start; b < blocks; b++) choose(b + 1, [...picked, b]);
  };
  choose(0, []);
  const sharpe = (xs: number[]): number => {
    const m = xs.reduce((a, x) => a + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    return sd === 0 ? 0 : m / sd;
  };
  const rows = (column: number[], chosen: number[]): number[] =>
    chosen.flatMap((b) => column.slice(b * blockBars, (b + 1) * blockBars));
  const out: NaiveCscv = { sets, logits: [], selected: [], is: [], oos: [] };
  for (const set of sets) {
    const rest = [...Array(blocks).keys()].filter((b) => !set.includes(b));
    const isPerf = trials.map((c) => sharpe(rows(c, set)));
    const oosPerf = trials.map((c) => sharpe(rows(c, rest)));
    const best = isPerf.indexOf(Math.max(...isPerf));
    const sorted = [...oosPerf].sort((a, b) => a - b);
    const first = sorted.indexOf(oosPerf[best] ?? 0) + 1;
    const last = sorted.lastIndexOf(oosPerf[best] ?? 0) + 1;
    const omega = (first + last) / 2 / (trials.length + 1);
    out.logits.push(Math.log(omega / (1 - omega)));
    out.selected.push(best);
    out.is.push(isPerf[best] ?? 0);
    out.oos.push(oosPerf[best] ?? 0);
  }
  return out;
}

function expectAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 12): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i] ?? 0, digits);
}

function thrown(f: () => unknown): TradelabError {
  try {
    f();
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a TradelabError');
}

describe('probabilityOfBacktestOverfitting: hand-computed cases (S = 2)', () => {
  it('N = 2: the trial that wins both halves is never overfit', () => {
    // Block 0 is bars 0–1, block 1 bars 2–3. Every block has std √2.
    // X: means 2 and 3 → Sharpe √2 and 3/√2; Y: means 1 and −2 → 1/√2 and −√2.
    // J = {0}: X is best IS (√2 > 1/√2) and best OOS (3/√2 > −√2): rank 2, ω = 2/3, λ = ln 2.
    // J = {1}: X is best IS (3/√2 > −√2) and best OOS (√2 > 1/√2): λ = ln 2 again.
    const result = probabilityOfBacktestOverfitting(
      [
        [1, 3, 2, 4],
        [0, 2, -3, -1],
      ],
      { blocks: 2 },
    );
    expect(result.pbo).toBe(0);
    expect(result.probabilityOfLoss).toBe(0);
    expect([...result.logits].map((l) => l - Math.LN2)).toEqual([
      expect.closeTo(0, 12),
      expect.closeTo(0, 12),
    ]);
    expect([...result.selectedTrials]).toEqual([0, 0]);
    expect(result.inSampleBlocks.map((s) => [...s])).toEqual([[0], [1]]);
    const { inSample, outOfSample, slope, intercept } = result.degradation;
    expect(inSample[0]).toBeCloseTo(Math.SQRT2, 12);
    expect(inSample[1]).toBeCloseTo(3 / Math.SQRT2, 12);
    expect(outOfSample[0]).toBeCloseTo(3 / Math.SQRT2, 12);
    expect(outOfSample[1]).toBeCloseTo(Math.SQRT2, 12);
    // The two points (√2, 3/√2) and (3/√2, √2) lie on y = −x + 5/√2.
    expect(slope).toBeCloseTo(-1, 12);
    expect(intercept).toBeCloseTo(5 / Math.SQRT2, 12);
    expect(result).toMatchObject({
      blocks: 2,
      trials: 2,
      blockBars: 2,
      barsUsed: 4,
      barsDropped: 0,
      combinations: 2,
      totalCombinations: 2,
      sampled: false,
    });
  });

  it('N = 3: the in-sample winner lands at or below the median, with a zero-variance trial', () => {
    // A: block Sharpes √2, 1/√2; B: 0 (block 0 is constant), √2; C: 1/√2, 0.
    // J = {0}: A is best IS; OOS (block 1) A 1/√2, B √2, C 0 → A ranks 2, ω = 2/4, λ = 0.
    // J = {1}: B is best IS; OOS (block 0) A √2, B 0, C 1/√2 → B ranks 1, ω = 1/4, λ = ln(1/3).
    const result = probabilityOfBacktestOverfitting(
      [
        [1, 3, 0, 2],
        [2, 2, 1, 3],
        [0, 2, -1, 1],
      ],
      { blocks: 2 },
    );
    expect(result.logits[0]).toBeCloseTo(0, 12);
    expect(result.logits[1]).toBeCloseTo(Math.log(1 / 3), 12);
    expect(result.pbo).toBe(1);
    expect([...result.selectedTrials]).toEqual([0, 1]);
    expect(result.degradation.outOfSample[0]).toBeCloseTo(1 / Math.SQRT2, 12);
    expect(result.degradation.outOfSample[1]).toBe(0);
    expect(result.probabilityOfLoss).toBe(0);
  });

  it('gives tied out-of-sample values their average rank', () => {
    // Metric: the mean. P: 2, 1; Q: 0, 1; R: 1, 3 (block 0, block 1).
    // J = {0}: P is best IS; OOS P 1 ties Q 1 for ranks 1–2 → 1.5, ω = 1.5/4, λ = ln(0.6).
    // J = {1}: R is best IS; OOS P 2, Q 0, R 1 → R ranks 2, ω = 2/4, λ = 0.
    const result = probabilityOfBacktestOverfitting(
      [
        [2, 2, 1, 1],
        [0, 0, 1, 1],
        [1, 1, 3, 3],
      ],
      { blocks: 2, metric: mean },
    );
    expect(result.logits[0]).toBeCloseTo(Math.log(0.6), 12);
    expect(result.logits[1]).toBeCloseTo(0, 12);
    expect([...result.selectedTrials]).toEqual([0, 2]);
    expect(result.pbo).toBe(1);
  });

  it('scores constant trials as Sharpe 0, so all tie at the median', () => {
    const result = probabilityOfBacktestOverfitting(
      [
        [0.1, 0.1, 0.1, 0.1],
        [0.3, 0.3, 0.3, 0.3],
        [-0.2, -0.2, -0.2, -0.2],
      ],
      { blocks: 2 },
    );
    expect([...result.degradation.inSample]).toEqual([0, 0]);
    expect([...result.logits]).toEqual([0, 0]);
    expect(result.degradation.slope).toBeNull();
    expect(result.degradation.intercept).toBeNull();
  });
});

describe('probabilityOfBacktestOverfitting: the block-sum fast path', () => {
  // S = 4, T = 23: blocks of 5 bars and 3 bars dropped at the end.
  const trials = noiseTrials(11, 5, 23, 0.001).map((c) => [...c]);
  const naive = naiveCscv(trials, 4);

  it('matches a naive recomputation from the returns', () => {
    const result = probabilityOfBacktestOverfitting(trials, { blocks: 4 });
    expect(result.barsUsed).toBe(20);
    expect(result.barsDropped).toBe(3);
    expect(result.inSampleBlocks.map((s) => [...s])).toEqual(naive.sets);
    expect([...result.selectedTrials]).toEqual(naive.selected);
    expectAllClose(result.logits, naive.logits);
    expectAllClose(result.degradation.inSample, naive.is);
    expectAllClose(result.degradation.outOfSample, naive.oos);
  });

  it('matches the same Sharpe passed as a custom metric', () => {
    const fast = probabilityOfBacktestOverfitting(trials, { blocks: 4 });
    const custom = probabilityOfBacktestOverfitting(trials, { blocks: 4, metric: perBarSharpe });
    expect([...custom.selectedTrials]).toEqual([...fast.selectedTrials]);
    expectAllClose(custom.logits, fast.logits);
    expectAllClose(custom.degradation.inSample, fast.degradation.inSample);
    expectAllClose(custom.degradation.outOfSample, fast.degradation.outOfSample);
  });

  it('is not thrown off by a large common offset (no cancellation in Σx² − (Σx)²/n)', () => {
    const shifted = trials.map((c) => c.map((x) => x + 1e4));
    const fast = probabilityOfBacktestOverfitting(shifted, { blocks: 4 });
    const custom = probabilityOfBacktestOverfitting(shifted, { blocks: 4, metric: perBarSharpe });
    const ratios = fast.degradation.inSample.map(
      (v, c) => v / (custom.degradation.inSample[c] ?? 0),
    );
    expectAllClose(ratios, new Float64Array(ratios.length).fill(1), 6);
  });
});

describe('probabilityOfBacktestOverfitting: combinations', () => {
  it('evaluates all C(S, S/2) of them by default', () => {
    const expected: Record<number, number> = { 2: 2, 4: 6, 6: 20, 8: 70, 16: 12_870 };
    for (const [blocks, count] of Object.entries(expected)) {
      const s = Number(blocks);
      const result = probabilityOfBacktestOverfitting(noiseTrials(1, 2, 2 * s), { blocks: s });
      expect(result.totalCombinations).toBe(count);
      expect(result.combinations).toBe(count);
      expect(result.logits).toHaveLength(count);
      expect(result.sampled).toBe(false);
      const keys = new Set(result.inSampleBlocks.map((set) => set.join(',')));
      expect(keys.size).toBe(count);
    }
  });

  it('draws a seeded subset of complementary pairs above maxCombinations', () => {
    const trials = noiseTrials(2, 4, 64);
    const options: PboOptions = { blocks: 16, maxCombinations: 101, seed: 7 };
    const result = probabilityOfBacktestOverfitting(trials, options);
    expect(result.sampled).toBe(true);
    expect(result.totalCombinations).toBe(12_870);
    expect(result.combinations).toBe(100); // rounded down to whole pairs
    const keys = result.inSampleBlocks.map((set) => set.join(','));
    expect(new Set(keys).size).toBe(100);
    for (let c = 0; c < 100; c += 2) {
      const half = [...(result.inSampleBlocks[c] ?? [])];
      const complement = [...(result.inSampleBlocks[c + 1] ?? [])];
      expect(half).toHaveLength(8);
      expect([...half, ...complement].sort((a, b) => a - b)).toEqual([...Array(16).keys()]);
    }
    const again = probabilityOfBacktestOverfitting(trials, options);
    expect([...again.logits]).toEqual([...result.logits]);
    const other = probabilityOfBacktestOverfitting(trials, { ...options, seed: 8 });
    expect(other.inSampleBlocks.map((set) => set.join(','))).not.toEqual(keys);
  });

  it('samples by default only above 100 000 combinations (S = 20)', () => {
    const result = probabilityOfBacktestOverfitting(noiseTrials(3, 2, 40), { blocks: 20 });
    expect(result.totalCombinations).toBe(184_756);
    expect(result.combinations).toBe(100_000);
    expect(result.sampled).toBe(true);
  });
});

describe('probabilityOfBacktestOverfitting: behaviour on synthetic studies', () => {
  it('is 0 when one trial beats the others in every block', () => {
    const trials = noiseTrials(5, 10, 1600);
    trials.push(noiseTrials(6, 1, 1600, 0.01)[0] ?? new Float64Array());
    const result = probabilityOfBacktestOverfitting(trials);
    expect(result.combinations).toBe(12_870);
    expect(result.pbo).toBe(0);
    expect(result.probabilityOfLoss).toBe(0);
    expect(new Set(result.selectedTrials)).toEqual(new Set([10]));
    // Best OOS of N = 11 every time: ω = 11/12, λ = ln 11.
    for (const l of result.logits) expect(l).toBeCloseTo(Math.log(11), 12);
  });

  it('is about 0.5 for pure noise (N = 20, T = 1600, S = 16)', () => {
    const result = probabilityOfBacktestOverfitting(noiseTrials(3, 20, 1600));
    expect(result.pbo).toBeGreaterThan(0.3);
    expect(result.pbo).toBeLessThan(0.7);
    // A sampled subset estimates the same number.
    const sampled = probabilityOfBacktestOverfitting(noiseTrials(3, 20, 1600), {
      maxCombinations: 2000,
    });
    expect(sampled.sampled).toBe(true);
    expect(sampled.pbo).toBeCloseTo(result.pbo, 1);
  });

  it('averages to 0.5 over many noise studies (one study varies widely: its combinations overlap)', () => {
    const pbos = [1, 2, 3, 4, 5, 6, 7, 8].map(
      (seed) =>
        probabilityOfBacktestOverfitting(noiseTrials(seed, 20, 1600), { maxCombinations: 1000 })
          .pbo,
    );
    expect(mean(pbos)).toBeGreaterThan(0.4);
    expect(mean(pbos)).toBeLessThan(0.6);
  });

  it('shows the paper’s signs of overfitting when the best of many noise trials is picked', () => {
    // 100 skill-less trials: the in-sample winner looks good, is average out-of-sample, and the
    // better it looked in-sample the worse it does out-of-sample (negative degradation slope).
    const result = probabilityOfBacktestOverfitting(noiseTrials(9, 100, 1600), {
      maxCombinations: 2000,
    });
    const { inSample, outOfSample, slope } = result.degradation;
    expect(mean(inSample)).toBeGreaterThan(0.05); // ≈ 2.5 standard errors of a per-bar Sharpe
    expect(Math.abs(mean(outOfSample))).toBeLessThan(0.025);
    expect(slope).toBeLessThan(0);
    expect(result.pbo).toBeGreaterThan(0.2);
    expect(result.probabilityOfLoss).toBeGreaterThan(0.2);

    // One trial with real skill among them: it is selected and PBO collapses.
    const withSkill = noiseTrials(9, 100, 1600);
    withSkill.push(noiseTrials(10, 1, 1600, 0.002)[0] ?? new Float64Array());
    const skilled = probabilityOfBacktestOverfitting(withSkill, { maxCombinations: 2000 });
    expect(skilled.pbo).toBeLessThan(0.05);
    expect(skilled.probabilityOfLoss).toBeLessThan(0.05);
  });
});

describe('probabilityOfBacktestOverfitting: invalid input', () => {
  const two = noiseTrials(1, 2, 64);

  it('rejects fewer than 2 trials', () => {
    const error = thrown(() => probabilityOfBacktestOverfitting(two.slice(0, 1)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('PBO needs at least 2 trials to rank, got 1');
    expect(error.hint).toMatch(/every completed trial/);
    expect(() => probabilityOfBacktestOverfitting([])).toThrow(/got 0/);
  });

  it('rejects an odd, too small or too large number of blocks', () => {
    for (const blocks of [3, 0, -2, 2.5, 54, Number.NaN]) {
      const error = thrown(() => probabilityOfBacktestOverfitting(two, { blocks }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(
        `PBO blocks ${blocks} is not allowed: expected an even integer from 2 to 52`,
      );
      expect(error.hint).toMatch(/even number/);
    }
  });

  it('rejects fewer than 2 bars per block', () => {
    const error = thrown(() => probabilityOfBacktestOverfitting(noiseTrials(1, 3, 31)));
    expect(error.code).toBe('DATA_TOO_SHORT');
    expect(error.message).toBe(
      'PBO needs at least 2 bars per block: 31 bars for 16 blocks (at least 32)',
    );
    expect(error.hint).toMatch(/at most 14\)/);
    expect(thrown(() => probabilityOfBacktestOverfitting(noiseTrials(1, 3, 3))).hint).toMatch(
      /at least 4 bars/,
    );
  });

  it('names the trial (column) and bar (row) of a non-finite return', () => {
    const trials = noiseTrials(1, 3, 64);
    (trials[2] ?? new Float64Array())[17] = Number.NaN;
    const error = thrown(() => probabilityOfBacktestOverfitting(trials));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'trial 2 (column 2) has return NaN at bar 17 (row 17), not a finite number',
    );
    expect(error.details).toEqual({ trial: 2, bar: 17, value: Number.NaN });
    (trials[2] ?? new Float64Array())[17] = 0;
    (trials[0] ?? new Float64Array())[63] = Infinity;
    expect(() => probabilityOfBacktestOverfitting(trials)).toThrow(/Infinity at bar 63/);
  });

  it('rejects trials of different lengths', () => {
    const error = thrown(() =>
      probabilityOfBacktestOverfitting([...two, noiseTrials(1, 1, 60)[0] ?? []]),
    );
    expect(error.message).toBe('trial 2 has 60 returns but trial 0 has 64');
    expect(error.hint).toMatch(/same bars/);
  });

  it('rejects a maxCombinations below one pair', () => {
    const error = thrown(() => probabilityOfBacktestOverfitting(two, { maxCombinations: 1 }));
    expect(error.message).toBe(
      'PBO maxCombinations 1 is not allowed: expected an integer of at least 2',
    );
  });

  it('rejects a custom metric that returns a non-finite value', () => {
    const error = thrown(() =>
      probabilityOfBacktestOverfitting(two, { blocks: 2, metric: () => Number.NaN }),
    );
    expect(error.message).toBe('the PBO metric returned NaN for trial 0 on blocks [0]');
    expect(error.hint).toMatch(/finite number/);
  });
});

describe('pboCaveats', () => {
  it('says why a PBO over few trials cannot be read, and is silent from 10 trials and 20 combinations', () => {
    const [few] = pboCaveats({ trials: 4, combinations: 12_870, blocks: 16 });
    expect(few).toMatch(/^only 4 trials: .* steps of 25 points/);
    // With an odd count the median trial itself counts as "at or below": noise gives 3/5, not 1/2.
    expect(pboCaveats({ trials: 5, combinations: 12_870, blocks: 16 })[0]).toMatch(
      /pure noise gives 60 %/,
    );
    expect(pboCaveats({ trials: 10, combinations: 20, blocks: 6 })).toEqual([]);
    const [blocks] = pboCaveats({ trials: 50, combinations: 6, blocks: 4 });
    expect(blocks).toMatch(/^only 6 combinations \(4 blocks\)/);
  });

  it('matches what PBO gives on pure noise: the bias it names is real', () => {
    const rng = new Rng(11);
    const noise = (): Float64Array => Float64Array.from({ length: 640 }, () => rng.normal() * 0.01);
    let sum = 0;
    const runs = 40;
    for (let r = 0; r < runs; r++)
      sum += probabilityOfBacktestOverfitting([noise(), noise(), noise()], { blocks: 8 }).pbo;
    // 3 trials of noise: the in-sample best is at or below the OOS median 2 times in 3, on average.
    expect(sum / runs).toBeGreaterThan(0.55);
    expect(sum / runs).toBeLessThan(0.78);
  });
});

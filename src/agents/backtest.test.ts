import { describe, expect, it } from 'vitest';
import { inSampleRanges, trainedRanges } from './backtest.js';

/** Hourly bars from 2021-01-01. */
const hours = (n: number, from = Date.UTC(2021, 0, 1)): { timestamps: Float64Array } => ({
  timestamps: Float64Array.from({ length: n }, (_, i) => from + i * 3_600_000),
});
const iso = (ms: number): string => new Date(ms).toISOString();

describe('inSampleRanges', () => {
  const data = hours(100);
  const t = (bar: number): number => data.timestamps[bar] ?? Number.NaN;
  const run = { train: { bars: [0, 60], from: iso(t(0)), to: iso(t(59)) } };

  it("finds the bars of a backtest range a run trained on, by the run's dates", () => {
    expect(inSampleRanges(run, data, [50, 100], true)).toEqual([[50, 60]]);
    expect(inSampleRanges(run, data, [60, 100], true)).toEqual([]);
    // Another import of the same symbols, starting 10 hours later: the same dates, other bars.
    const later = hours(100, t(10));
    expect(trainedRanges(run, later, false)).toEqual([[0, 50]]);
    expect(inSampleRanges(run, later, [40, 80], false)).toEqual([[40, 50]]);
  });

  it("uses a trial's split bars on the study's own data only, each of its ranges", () => {
    const trial = {
      train: [
        [0, 20],
        [40, 60],
      ],
    };
    expect(inSampleRanges(trial, data, [10, 50], true)).toEqual([
      [10, 20],
      [40, 50],
    ]);
    expect(inSampleRanges(trial, data, [10, 50], false)).toEqual([]);
    expect(inSampleRanges({}, data, [0, 100], true)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../core/index.js';
import { barFeatures, calendarFor, generateSynthetic, timeframeMs } from '../data/index.js';
import { fitHarBaseline, harForecast } from './har-baseline.js';
import { regressionMetrics } from './regression-metrics.js';
import { buildRvDataset, gatherChunks, type RvSeries } from './rv-dataset.js';

/** `days` sessions of 30-minute 24/7 bars for `symbols` symbols. */
function market(days: number, symbols = 2, seed = 4): RvSeries[] {
  const m = generateSynthetic({ symbols, bars: days * 48, timeframe: '30m', seed });
  return m.symbols.map((symbol, i) => ({
    symbol,
    bars: m.bars[i] as RvSeries['bars'],
    calendar: calendarFor('24/7'),
    barMs: timeframeMs('30m'),
  }));
}

describe('buildRvDataset', () => {
  const series = market(200);
  const horizon = 10;
  const dataset = buildRvDataset(series, { chunkLen: 96, horizon });

  it('splits sessions by time with a gap of `horizon` sessions between the splits', () => {
    const { train, validation, test, gap } = dataset.ranges;
    expect(gap).toBe(horizon);
    // 24/7: one session a day. Train ends, `horizon` sessions are left out, validation starts.
    expect(validation.firstDay - train.lastDay).toBe(horizon + 1);
    expect(test.firstDay - validation.lastDay).toBe(horizon + 1);
    // Per symbol, the last training target (sessions d+1 … d+h) ends before the first
    // validation session, whose own target starts after it: no target window is shared.
    for (let symbol = 0; symbol < series.length; symbol++) {
      const lastTrain = Math.max(
        ...Array.from(dataset.train.day).filter((_, i) => dataset.train.symbol[i] === symbol),
      );
      const firstValidation = Math.min(
        ...Array.from(dataset.validation.day).filter(
          (_, i) => dataset.validation.symbol[i] === symbol,
        ),
      );
      expect(lastTrain + horizon).toBeLessThan(firstValidation);
    }
    expect(dataset.train.count).toBeGreaterThan(dataset.trainCloses.count);
    expect(dataset.validation.count).toBe(2 * validation.sessions);
  });

  it('makes every validation and test sample a session close, and every chunk the bars before it', () => {
    const rows = [0, 5, dataset.validation.count - 1];
    const x = new Float32Array(rows.length * 96 * 4);
    gatherChunks(dataset, dataset.validation, rows, x);
    rows.forEach((i, r) => {
      const symbol = dataset.validation.symbol[i] ?? 0;
      const end = dataset.validation.endBar[i] ?? 0;
      const bars = series[symbol]?.bars;
      // The next bar opens the next session (UTC midnight in 24/7).
      const next = bars?.timestamps[end + 1];
      if (next !== undefined) expect(next % 86_400_000).toBe(0);
      const features = dataset.features[symbol] as Float32Array;
      expect(Array.from(x.subarray(r * 96 * 4, (r + 1) * 96 * 4))).toEqual(
        Array.from(features.subarray((end - 95) * 4, (end + 1) * 4)),
      );
    });
  });

  it('standardizes features by the training bars and keeps them finite', () => {
    const raw = barFeatures(series[0]?.bars as RvSeries['bars']);
    expect(raw.every(Number.isFinite)).toBe(true);
    expect(dataset.features.every((f) => f.every(Number.isFinite))).toBe(true);
    expect(dataset.normalization.sd.every((v) => v > 0)).toBe(true);
  });

  it('scores HAR-RV fitted on the training closes on the validation rows', () => {
    const har = fitHarBaseline(dataset);
    expect(har.rows).toBeGreaterThan(100);
    const forecast = harForecast(har, dataset, dataset.validation);
    expect(forecast.every(Number.isFinite)).toBe(true);
    const metrics = regressionMetrics(forecast, dataset.validation.target);
    expect(Number.isFinite(metrics.rmse)).toBe(true);
  });

  it('refuses data that leaves a split empty, before any training, and says how much is needed', () => {
    let error: unknown;
    try {
      buildRvDataset(market(40), { chunkLen: 96, horizon: 22 });
    } catch (e) {
      error = e;
    }
    expect(isTradelabError(error, 'DATA_TOO_SHORT')).toBe(true);
    expect(String(error)).toMatch(
      /40 sessions of RV cannot make train, validation and test splits/,
    );
    // Enough sessions but chunks longer than the data: the training split has no chunk.
    expect(() => buildRvDataset(market(120), { chunkLen: 48 * 119, horizon: 5 })).toThrow(
      /split has no samples/,
    );
  });
});

describe('regressionMetrics', () => {
  it('gives correlation 1 and R² 1 for a perfect forecast, R² 0 for the mean', () => {
    const truth = [1, 2, 3, 4];
    expect(regressionMetrics(truth, truth)).toMatchObject({ correlation: 1, r2: 1, rmse: 0 });
    expect(regressionMetrics([2.5, 2.5, 2.5, 2.5], truth).r2).toBeCloseTo(0, 12);
  });
});

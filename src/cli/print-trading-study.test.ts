import { describe, expect, it } from 'vitest';
import { trialRecord } from '../storage/records.js';
import { loadPreset } from '../trading/presets.js';
import { resolveDrlStudy } from '../trading/study-spec.js';
import type { SplitResult } from '../trading/split-metrics.js';
import { createOutput } from './output.js';
import { describeBudget, printSplits, tradingStudyRows } from './print-trading-study.js';

describe('study show for a trading study', () => {
  it('lists its settings and counts failures by cause, never mixing them with prunes', () => {
    const spec = resolveDrlStudy(
      {
        dataSpec: 'A,B:1h',
        market: { symbols: ['A', 'B'], timeframe: '1h', bars: 5000, digest: 'd' },
        cv: 'kfold:3',
      },
      loadPreset('ensemble_balanced'),
    );
    const rows = tradingStudyRows(spec, [
      trialRecord({ number: 0, state: 'fail', failReason: 'exceeds memory budget: netDim 4096 …' }),
      trialRecord({ number: 1, state: 'fail', failReason: 'exceeds memory budget: netDim 2048 …' }),
      trialRecord({
        number: 2,
        state: 'fail',
        failReason: 'out of memory in split 1 (netDim 1024)',
      }),
      trialRecord({ number: 3, state: 'pruned', value: 0.1 }),
    ]);
    const byLabel = Object.fromEntries(rows);
    expect(byLabel.cv).toBe('kfold:3, embargo 40 bars, lookback 1');
    expect(byLabel.holdout).toBe('last 20% of bars');
    expect(byLabel.failures).toBe(
      '2 × exceeds memory budget; 1 × out of memory in split 1 (netDim 1024)',
    );
  });
});

describe('study show: the best trial by split', () => {
  const DAY = 86_400_000;
  const split = (n: number, test: [number, number]): SplitResult => ({
    split: n,
    train: [],
    test: [test],
    sharpe: 1.5,
    benchmarkSharpe: 0.5,
    totalReturn: 0.1,
    benchmarkReturn: 0.05,
    maxDrawdown: 0.2,
    turnover: 3,
    envSteps: 1000,
    rolloutSeconds: 1,
    updateSeconds: 2,
  });
  const printed = (timestamps: Float64Array, timeframe: '1d' | '30m'): string => {
    let text = '';
    const stream = {
      write: (chunk: string): void => {
        text += chunk;
      },
    };
    const trial = trialRecord({ number: 7, userAttrs: { splits: [split(0, [0, 10])] } });
    printSplits(createOutput({ stdout: stream, stderr: stream }, false), trial, {
      timestamps,
      timeframe,
    });
    return text;
  };

  it('prints daily bars as dates', () => {
    const start = Date.parse('2000-02-18T00:00:00Z');
    const text = printed(
      Float64Array.from({ length: 20 }, (_, i) => start + i * DAY),
      '1d',
    );
    expect(text).toContain('bars 0..10 (2000-02-18 → 2000-02-27)');
    expect(text).not.toContain('T00:00');
  });

  it('prints intraday bars to the minute', () => {
    const start = Date.parse('2020-01-03T14:30:00Z');
    const text = printed(
      Float64Array.from({ length: 20 }, (_, i) => start + i * 1_800_000),
      '30m',
    );
    expect(text).toContain('bars 0..10 (2020-01-03 14:30 → 2020-01-03 19:00)');
  });
});

describe('study show: the best trial budget', () => {
  it('says what breakStep came to after the budget scale and whole updates', () => {
    expect(
      describeBudget({
        breakStep: 110_000,
        budgetScale: 0.11,
        scaledBreakStep: 12_100,
        targetStep: 1024,
        updates: 12,
        stepsPerSplit: 12_288,
      }),
    ).toBe(
      "breakStep 110,000 × 0.11 (the study's budget scale) = 12,100 → 12,288 env steps per split (12 updates of 1,024)",
    );
  });
});

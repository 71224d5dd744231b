import { describe, expect, it } from 'vitest';
import { trialRecord } from '../storage/index.js';
import { loadPreset, resolveDrlStudy } from '../trading/index.js';
import { tradingStudyRows } from './print-trading-study.js';

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

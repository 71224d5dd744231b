import { describe, expect, it } from 'vitest';
import { benchLearnStudy } from './learn-study-bench.js';

describe('bench learn-study', () => {
  it('runs a small trading study on a worker process and evaluates the best trial on the holdout', async () => {
    const seen: number[] = [];
    const run = await benchLearnStudy({
      trials: 3,
      // One worker: a worker process starting TensorFlow.js costs more than these trials, and the
      // DRL objective on two workers is `study run` in test/trading-study-cli.test.ts.
      workers: 1,
      steps: 1024,
      onTrial: (_, done) => seen.push(done),
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(run.summary.trials).toHaveLength(3);
    expect(run.summary.failed).toBe(0);
    // One row, the rate: the holdout is no rate, and comes beside the rows.
    const [rate, ...rest] = run.results;
    expect(rate?.unit).toBe('trials/hour');
    expect(rate?.rate).toBeGreaterThan(0);
    expect(rest).toEqual([]);
    expect(run.best?.state).toBe('complete');
    expect(run.holdout?.range).toEqual([Math.round(run.spec.data.bars * 0.8), run.spec.data.bars]);
    expect(run.spec.features).toEqual(['logReturns', 'volatility']);
  }, 120_000);
});

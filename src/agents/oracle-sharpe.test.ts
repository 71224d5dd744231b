import { describe, expect, it } from 'vitest';
import { featureMarket } from '../env/synthetic-market.js';
import { oracleSharpe } from './learning-check.js';

/*
 * The learning benchmark's oracle: the planted signal traded perfectly (long while the last 5
 * bars rose, flat otherwise) through the env, at the fees and fills the agent gets. It earns what
 * the generator planted, loses part of it to fees and more to a fill one bar later, and on a
 * random walk only pays fees.
 */

const oracle = async (
  signal: number,
  fee: number,
  executionPrice: 'close' | 'open' = 'close',
): Promise<number> => {
  const data = featureMarket({ assets: 2, bars: 8000, signal, seed: 1 });
  const bars = data.timestamps.length;
  return oracleSharpe(data, [Math.floor(bars / 2), bars], {
    buyFeeBps: fee,
    sellFeeBps: fee,
    executionPrice,
  });
};

describe("the learning benchmark's oracle", () => {
  it('earns the planted signal, less fees, less still with a later fill', async () => {
    const free = await oracle(0.1, 0);
    const paid = await oracle(0.1, 5);
    const prompt = await oracle(0.1, 5, 'open');
    expect(paid).toBeGreaterThan(1.5);
    expect(free).toBeGreaterThan(paid + 1);
    // At the next bar's open (the close it decided on, for 24/7 bars) it earns the bar the
    // signal is about; at the next close, one bar later, the signal is a bar stale.
    expect(prompt).toBeGreaterThan(paid + 1);
    expect(await oracle(0.2, 5)).toBeGreaterThan(paid + 1);
  });

  it('only pays fees on a random walk', async () => {
    expect(await oracle(0, 5)).toBeLessThan(-1);
  });
});

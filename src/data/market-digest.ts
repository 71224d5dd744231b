import { createHash } from 'node:crypto';
import type { MarketData } from './load-market-data.js';

/**
 * SHA-256 of exactly what a model sees of a {@link MarketData}: symbols, timeframe, bar times,
 * closes (and opens when present) and features. A run manifest stores it, so a resume or a
 * backtest on changed data is caught.
 */
export function digestMarketData(data: MarketData): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([data.symbols, data.timeframe, data.featureNames]));
  for (const array of [data.timestamps, data.priceArray, data.open, data.techArray])
    if (array !== undefined)
      hash.update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  return hash.digest('hex');
}

import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectBars, type Bars } from './bars.js';
import { computeFeatures, DEFAULT_FEATURE_NAMES } from './features/index.js';
import { innerJoin, loadMarketData } from './load-market-data.js';
import { openDatasetStore, type DatasetStore } from './store/dataset-store.js';
import { generateSynthetic } from './synth/index.js';
import type { CalendarName } from './calendar.js';
import { tempDir } from '../../test/support/temp-dir.js';

const NO_GAPS = { unexpected: 0, missingBars: 0, largest: undefined, closures: 0 };

async function storeWith(
  series: Record<string, Bars>,
  calendar: CalendarName = '24/7',
): Promise<DatasetStore> {
  const store = openDatasetStore(tempDir('tradelab-load-'));
  for (const [symbol, bars] of Object.entries(series)) {
    await store.write({ symbol, timeframe: '1h' }, bars, {
      calendar,
      gaps: NO_GAPS,
      adjusted: false,
      sources: [],
    });
  }
  return store;
}

/** Drops every row whose index is in `holes`. */
function withHoles(bars: Bars, holes: ReadonlySet<number>): Bars {
  const keep = [...bars.timestamps.keys()].filter((i) => !holes.has(i));
  return selectBars(bars, keep);
}

const market = generateSynthetic({ symbols: 2, bars: 600, timeframe: '1h', seed: 11 });
const [a0, b0] = market.bars as [Bars, Bars];
const a = withHoles(a0, new Set([5, 100, 101, 102, 400]));
const b = withHoles(b0, new Set([0, 1, 2, 3, 250, 599]));

describe('innerJoin', () => {
  it('returns, per series, the rows of the timestamps all series share', () => {
    const rows = innerJoin([
      Float64Array.of(1, 2, 3, 5, 8),
      Float64Array.of(0, 2, 3, 4, 5, 9),
      Float64Array.of(2, 5),
    ]);
    expect(rows.map((r) => Array.from(r))).toEqual([
      [1, 3],
      [1, 4],
      [0, 1],
    ]);
  });
});

describe('loadMarketData', () => {
  it('aligns symbols on common timestamps and reports what each lost', async () => {
    const store = await storeWith({ AAA: a, BBB: b });
    const data = await loadMarketData(store, [
      { symbol: 'AAA', timeframe: '1h' },
      { symbol: 'BBB', timeframe: '1h' },
    ]);
    const common = a.timestamps.filter((t) => b.timestamps.includes(t));
    expect(data.alignment.bars).toEqual([595, 594]);
    expect(data.alignment.dropped).toEqual([595 - common.length, 594 - common.length]);
    expect(Array.from(data.timestamps)).toEqual(Array.from(common.slice(data.warmupDropped)));
    // priceArray is T × assets, row-major closes.
    for (const i of [0, 7, data.timestamps.length - 1]) {
      const t = data.timestamps[i] ?? 0;
      expect(data.priceArray[i * 2]).toBe(a.close[a.timestamps.indexOf(t)]);
      expect(data.priceArray[i * 2 + 1]).toBe(b.close[b.timestamps.indexOf(t)]);
      expect(data.high?.[i * 2 + 1]).toBe(b.high[b.timestamps.indexOf(t)]);
    }
  });

  it("takes each symbol's features from its own series and trims every symbol's warm-up", async () => {
    const store = await storeWith({ AAA: a, BBB: b });
    const data = await loadMarketData(store, [
      { symbol: 'AAA', timeframe: '1h' },
      { symbol: 'BBB', timeframe: '1h' },
    ]);
    const width = DEFAULT_FEATURE_NAMES.length;
    expect(data.featureNames).toEqual(DEFAULT_FEATURE_NAMES);
    const own = [computeFeatures(a), computeFeatures(b)];
    const series = [a, b];
    // The first kept bar is past both symbols' own warm-up, and no earlier shared bar is.
    const first = data.timestamps[0] ?? 0;
    series.forEach((s, k) => {
      expect(s.timestamps.indexOf(first)).toBeGreaterThanOrEqual(own[k]?.warmup ?? 0);
    });
    for (const i of [0, 50, data.timestamps.length - 1]) {
      series.forEach((s, k) => {
        const row = s.timestamps.indexOf(data.timestamps[i] ?? 0);
        const expected = own[k]?.values.subarray(row * width, (row + 1) * width);
        expect(
          Array.from(data.techArray.subarray((i * 2 + k) * width, (i * 2 + k + 1) * width)),
        ).toEqual(Array.from(expected ?? []));
      });
    }
    expect(data.techArray.every((v) => Number.isFinite(v))).toBe(true);
  });

  it('caches features beside the dataset and drops the cache when the dataset is rewritten', async () => {
    const store = await storeWith({ AAA: a });
    const key = { symbol: 'AAA', timeframe: '1h' as const };
    const first = await loadMarketData(store, [key]);
    const cacheFiles = (): string[] =>
      readdirSync(join(store.dir, 'AAA')).filter((f) => f.includes('.features-'));
    expect(cacheFiles()).toHaveLength(1);
    const second = await loadMarketData(store, [key]);
    expect(second.techArray).toEqual(first.techArray);
    await store.write(key, a0, { calendar: '24/7', gaps: NO_GAPS, adjusted: false, sources: [] });
    expect(cacheFiles()).toHaveLength(0);
    const third = await loadMarketData(store, [key]);
    expect(third.timestamps.length).toBeGreaterThan(first.timestamps.length);
  });

  it('recomputes and replaces a load cache that is cut short or not one of ours', async () => {
    const store = await storeWith({ AAA: a });
    const key = { symbol: 'AAA', timeframe: '1h' as const };
    const first = await loadMarketData(store, [key]);
    const [cache] = readdirSync(join(store.dir, 'AAA')).filter((f) => f.includes('.features-'));
    const path = join(store.dir, 'AAA', cache ?? '');
    const whole = readFileSync(path);
    for (const damaged of [whole.subarray(0, whole.length >> 1), Buffer.from('not arrow')]) {
      writeFileSync(path, damaged);
      const again = await loadMarketData(store, [key]);
      expect(again.techArray).toEqual(first.techArray);
      expect(readFileSync(path).equals(whole)).toBe(true);
    }
  });

  it('loads the same whether each symbol comes from its cache or not', async () => {
    const store = await storeWith({ AAA: a, BBB: b });
    const keys = [
      { symbol: 'AAA', timeframe: '1h' as const },
      { symbol: 'BBB', timeframe: '1h' as const },
    ];
    const fresh = await loadMarketData(store, keys);
    const [cache] = readdirSync(join(store.dir, 'BBB')).filter((f) => f.includes('.features-'));
    rmSync(join(store.dir, 'BBB', cache ?? ''));
    const mixed = await loadMarketData(store, keys);
    const cached = await loadMarketData(store, keys);
    for (const data of [mixed, cached]) {
      expect(data.techArray).toEqual(fresh.techArray);
      expect(data.priceArray).toEqual(fresh.priceArray);
      expect(data.volume).toEqual(fresh.volume);
      expect(data.timestamps).toEqual(fresh.timestamps);
    }
    const closes = await loadMarketData(store, keys, { ohlcv: false });
    expect(closes.priceArray).toEqual(fresh.priceArray);
    expect(closes.techArray).toEqual(fresh.techArray);
    expect(closes.open).toBeUndefined();
  });

  it('loads a time range only', async () => {
    const store = await storeWith({ AAA: a0 });
    const from = a0.timestamps[200] ?? 0;
    const to = a0.timestamps[300] ?? 0;
    const data = await loadMarketData(store, [{ symbol: 'AAA', timeframe: '1h' }], {
      range: { fromMs: from, toMs: to },
    });
    expect(data.alignment.bars).toEqual([100]);
    expect(data.timestamps[0]).toBe(from);
    expect(data.timestamps.at(-1)).toBe(a0.timestamps[299]);
  });

  it('refuses symbols of different timeframes or calendars', async () => {
    const store = await storeWith({ AAA: a0 });
    await store.write({ symbol: 'SPY', timeframe: '1h' }, b0, {
      calendar: 'us-equities',
      gaps: NO_GAPS,
      adjusted: false,
      sources: [],
    });
    await store.write({ symbol: 'EUR', timeframe: '1h' }, b0, {
      calendar: 'fx',
      gaps: NO_GAPS,
      adjusted: false,
      sources: [],
    });
    await expect(
      loadMarketData(store, [
        { symbol: 'AAA', timeframe: '1h' },
        { symbol: 'AAA', timeframe: '1d' },
      ]),
    ).rejects.toThrow(/share one timeframe/);
    await expect(
      loadMarketData(store, [
        { symbol: 'SPY', timeframe: '1h' },
        { symbol: 'EUR', timeframe: '1h' },
      ]),
    ).rejects.toThrow(/different calendars/);
  });
});

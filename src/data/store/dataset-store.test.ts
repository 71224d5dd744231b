import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { TradelabError } from '../../core/index.js';
import { allocateBars, BAR_FIELDS, type Bars } from '../bars.js';
import { loadCachedDataset } from '../load-cache.js';
import { computeFeatures } from '../features/index.js';
import { CATALOG_FILE, readCatalog } from './catalog.js';
import { openDatasetStore, type DatasetStore, type DatasetWrite } from './dataset-store.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh store in a temp directory (the directory itself is not created by the store). */
function freshStore(): DatasetStore {
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-store-'));
  made.push(dir);
  return openDatasetStore(join(dir, 'data'));
}

/** A seeded PRNG (mulberry32), uniform in [0, 1). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T0 = Date.UTC(2024, 0, 2);
const MIN = 60_000;

/** Random bars with full-precision doubles (and a few awkward ones), optionally an adjusted close. */
function randomBars(n: number, seed: number, withAdj = false, stepMs = MIN): Bars {
  const random = rng(seed);
  const bars = allocateBars(n, withAdj);
  for (let i = 0; i < n; i++) {
    const close = 100 * Math.exp(random() - 0.5);
    bars.timestamps[i] = T0 + i * stepMs;
    bars.open[i] = close * (1 + (random() - 0.5) / 100);
    bars.high[i] = Math.max(close, bars.open[i] ?? 0) * (1 + random() / 100);
    bars.low[i] = Math.min(close, bars.open[i] ?? 0) * (1 - random() / 100);
    bars.close[i] = close;
    bars.volume[i] = random() * 1e6;
    if (bars.adjClose !== undefined) bars.adjClose[i] = close * (0.9 + random() / 20);
  }
  bars.volume.set([0, 0.1 + 0.2, 5e-324, 1.7976931348623157e308].slice(0, n));
  return bars;
}

const info = (extra: Partial<DatasetWrite> = {}): DatasetWrite => ({
  calendar: '24/7',
  gaps: { unexpected: 0, missingBars: 0, largest: undefined, closures: 0 },
  adjusted: false,
  sources: [
    {
      path: '/data/btc.csv',
      sha256: 'ab'.repeat(32),
      bytes: 1234,
      rows: 10,
      format: 'generic',
      importedAt: '2024-06-01T00:00:00.000Z',
    },
  ],
  ...extra,
});

/** The bytes of a typed array, for bit-exact comparisons. */
const bits = (a: Float64Array | undefined): Buffer =>
  a === undefined ? Buffer.alloc(0) : Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function expectSameBits(actual: Bars, expected: Bars): void {
  for (const field of ['timestamps', 'open', 'high', 'low', 'close', 'volume', 'adjClose'] as const)
    expect(bits(actual[field]).equals(bits(expected[field])), field).toBe(true);
}

/** The Parquet files under the store, relative to it. */
function parquetFiles(store: DatasetStore): string[] {
  if (!existsSync(store.dir)) return [];
  return readdirSync(store.dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.parquet'))
    .sort();
}

async function rejection(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a TradelabError, but nothing was thrown');
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

const BTC_1M = { symbol: 'BTCUSDT', timeframe: '1m' } as const;
const BTC_1H = { symbol: 'BTCUSDT', timeframe: '1h' } as const;
const SPY_1D = { symbol: 'SPY', timeframe: '1d' } as const;

describe('DatasetStore: write and read', () => {
  it('round-trips bars bit for bit, adjusted close included', async () => {
    const store = freshStore();
    const bars = randomBars(500, 1, true);
    await store.write(SPY_1D, bars, info({ calendar: 'us-equities' }));
    const { entry, bars: back } = await store.read(SPY_1D);
    expect(entry.adjusted).toBe(false);
    expectSameBits(back, bars);
  });

  it('keeps -0 and tiny or huge values as they are', async () => {
    const store = freshStore();
    const bars = randomBars(6, 2);
    bars.volume[4] = -0;
    // The smallest positive double as a price: the bar's low too, as a stored bar's low must be.
    bars.open[5] = Number.MIN_VALUE;
    bars.low[5] = Number.MIN_VALUE;
    await store.write(BTC_1M, bars, info());
    expectSameBits((await store.read(BTC_1M)).bars, bars);
  });

  it('reads an adjusted dataset as adjusted bars, and as imported with raw', async () => {
    const store = freshStore();
    const bars = randomBars(50, 3, true, 86_400_000);
    await store.write(SPY_1D, bars, info({ adjusted: true, calendar: 'us-equities' }));
    const raw = await store.read(SPY_1D, { raw: true });
    expectSameBits(raw.bars, bars);
    const { entry, bars: adjusted } = await store.read(SPY_1D);
    expect(entry.adjusted).toBe(true);
    expect(bits(adjusted.close).equals(bits(bars.adjClose))).toBe(true);
    expect(bits(adjusted.timestamps).equals(bits(bars.timestamps))).toBe(true);
    expect(bits(adjusted.volume).equals(bits(bars.volume))).toBe(true);
    for (let i = 0; i < 50; i++) {
      const factor = (bars.adjClose?.[i] ?? NaN) / (bars.close[i] ?? NaN);
      expect(adjusted.open[i]).toBeCloseTo((bars.open[i] ?? NaN) * factor, 9);
      expect(adjusted.high[i]).toBeCloseTo((bars.high[i] ?? NaN) * factor, 9);
      expect(adjusted.low[i]).toBeCloseTo((bars.low[i] ?? NaN) * factor, 9);
    }
  });

  it('records the dataset in the catalog', async () => {
    const store = freshStore();
    const bars = randomBars(10, 4);
    const entry = await store.write(BTC_1M, bars, info());
    expect(entry).toMatchObject({
      symbol: 'BTCUSDT',
      timeframe: '1m',
      calendar: '24/7',
      rows: 10,
      firstMs: T0,
      lastMs: T0 + 9 * MIN,
      columns: ['timestamp', 'open', 'high', 'low', 'close', 'volume'],
      adjusted: false,
      sources: info().sources,
    });
    expect(entry.file).toMatch(/^BTCUSDT\/1m\.[0-9a-f]{8}\.parquet$/);
    expect(existsSync(join(store.dir, entry.file))).toBe(true);
    expect(entry.createdAt).toBe(entry.updatedAt);
    expect(store.get(BTC_1M)).toEqual(entry);
    expect(readCatalog(store.dir)).toEqual({ version: 1, datasets: { 'BTCUSDT:1m': entry } });
    // Nothing else is left behind: no lock, no temp files.
    expect(readdirSync(store.dir).sort()).toEqual(['BTCUSDT', CATALOG_FILE]);
    expect(readdirSync(join(store.dir, 'BTCUSDT'))).toEqual([entry.file.split('/')[1]]);
  });

  it('lists datasets sorted by key', async () => {
    const store = freshStore();
    expect(store.list()).toEqual([]);
    await store.write(SPY_1D, randomBars(3, 5, false, 86_400_000), info());
    await store.write(BTC_1M, randomBars(3, 6), info());
    await store.write(BTC_1H, randomBars(3, 7, false, 3_600_000), info());
    expect(store.list().map((e) => `${e.symbol}:${e.timeframe}`)).toEqual([
      'BTCUSDT:1h',
      'BTCUSDT:1m',
      'SPY:1d',
    ]);
  });

  it('replaces a dataset on rewrite: new file, old file removed, created time kept', async () => {
    const store = freshStore();
    const first = await store.write(BTC_1M, randomBars(10, 8), info());
    await sleep(5);
    const newer = randomBars(20, 9);
    const second = await store.write(BTC_1M, newer, info());
    expect(second.file).not.toBe(first.file);
    expect(existsSync(join(store.dir, first.file))).toBe(false);
    expect(parquetFiles(store)).toEqual([second.file]);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt > first.updatedAt).toBe(true);
    expect(second.rows).toBe(20);
    expectSameBits((await store.read(BTC_1M)).bars, newer);
  });

  it('removes a dataset and its file', async () => {
    const store = freshStore();
    await store.write(BTC_1H, randomBars(3, 10, false, 3_600_000), info());
    const entry = await store.write(BTC_1M, randomBars(3, 11), info());
    const removed = await store.remove(BTC_1M);
    expect(removed).toEqual(entry);
    expect(store.get(BTC_1M)).toBeUndefined();
    expect(existsSync(join(store.dir, entry.file))).toBe(false);
    expect(store.list().map((e) => e.timeframe)).toEqual(['1h']);
    const again = await rejection(store.remove(BTC_1M));
    expect(again.message).toContain('no dataset BTCUSDT:1m');
  });
});

describe('DatasetStore: a write of another origin', () => {
  it('is refused without force, saying what is there, and leaves the dataset as it was', async () => {
    const store = freshStore();
    const key = { symbol: 'BTCUSDT', timeframe: '1m' } as const;
    const imported = await store.write(key, randomBars(5, 1), info());
    const synth = {
      sources: [],
      derivedFrom: 'synth --seed 1 --signal 0 --bars 8 --calendar 24/7',
    };
    const refused = await store.write(key, randomBars(8, 2), info(synth)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TradelabError);
    expect((refused as TradelabError).code).toBe('DATASET_EXISTS');
    expect((refused as TradelabError).message).toBe(
      'BTCUSDT:1m already exists: imported from 1 file (/data/btc.csv), 5 bars from 2024-01-02 to 2024-01-02; writing synthetic bars (synth --seed 1 --signal 0 --bars 8 --calendar 24/7) would replace it',
    );
    expect(store.require(key)).toEqual(imported);
    expect((await store.read(key)).bars.close.length).toBe(5);
    // Of the same origin (an import again), and with force, it goes on.
    expect((await store.write(key, randomBars(6, 3), info())).rows).toBe(6);
    expect((await store.write(key, randomBars(8, 2), info(synth), { force: true })).rows).toBe(8);
    const resampled = { sources: [], derivedFrom: 'ETHUSDT:1m' };
    await expect(store.write(key, randomBars(3, 4), info(resampled))).rejects.toThrow(
      'writing bars resampled from ETHUSDT:1m would replace it',
    );
  });
});

describe('DatasetStore: missing datasets', () => {
  it('suggests a close key when the one asked for is missing', async () => {
    const store = freshStore();
    await store.write(BTC_1H, randomBars(3, 12, false, 3_600_000), info());
    const error = catchError(() => store.require(BTC_1M));
    expect(error).toBeInstanceOf(TradelabError);
    const e = error as TradelabError;
    expect(e.code).toBe('DATASET_NOT_FOUND');
    expect(e.message).toBe(`no dataset BTCUSDT:1m in ${store.dir}; there are: BTCUSDT:1h`);
    expect(e.hint).toBe('did you mean BTCUSDT:1h?');
    const read = await rejection(store.read({ symbol: 'BTCUSD', timeframe: '1h' }));
    expect(read.hint).toBe('did you mean BTCUSDT:1h?');
  });

  it('says so when the store is empty, and how to fill it', () => {
    const store = freshStore();
    const error = catchError(() => store.require(BTC_1M)) as TradelabError;
    expect(error.message).toBe(`no dataset BTCUSDT:1m in ${store.dir} (the store is empty)`);
    expect(error.hint).toContain('tradelab data import');
  });

  it('reports a dataset file that went missing', async () => {
    const store = freshStore();
    const entry = await store.write(BTC_1M, randomBars(3, 13), info());
    rmSync(join(store.dir, entry.file));
    const error = await rejection(store.read(BTC_1M));
    expect(error.message).toBe(`BTCUSDT:1m's store file ${join(store.dir, entry.file)} is missing`);
    expect(error.hint).toContain('tradelab data rm BTCUSDT:1m');
    expect(error.hint).toContain(
      'tradelab data import /data/btc.csv --symbol BTCUSDT --timeframe 1m',
    );
  });
});

describe('DatasetStore: the catalog lock', () => {
  it('takes over a lock left by a process that is gone', async () => {
    const store = freshStore();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    await store.write(BTC_1H, randomBars(3, 14, false, 3_600_000), info());
    writeFileSync(join(store.dir, 'catalog.lock'), String(gone));
    await store.write(BTC_1M, randomBars(3, 15), info());
    expect(store.get(BTC_1M)?.rows).toBe(3);
    expect(existsSync(join(store.dir, 'catalog.lock'))).toBe(false);
  });

  it('waits for a lock held by a live process', async () => {
    const store = freshStore();
    await store.write(BTC_1H, randomBars(3, 16, false, 3_600_000), info());
    const lock = join(store.dir, 'catalog.lock');
    writeFileSync(lock, String(process.pid));
    const pending = store.write(BTC_1M, randomBars(3, 17), info());
    await sleep(300);
    expect(store.get(BTC_1M)).toBeUndefined();
    rmSync(lock);
    await pending;
    expect(store.get(BTC_1M)?.rows).toBe(3);
    expect(store.get(BTC_1H)?.rows).toBe(3);
  });

  it('serializes concurrent writes: both datasets end up in the catalog', async () => {
    const store = freshStore();
    await Promise.all([
      store.write(BTC_1M, randomBars(30, 18), info()),
      store.write(SPY_1D, randomBars(40, 19, true, 86_400_000), info()),
      store.write(BTC_1H, randomBars(50, 20, false, 3_600_000), info()),
    ]);
    expect(store.list().map((e) => [`${e.symbol}:${e.timeframe}`, e.rows])).toEqual([
      ['BTCUSDT:1h', 50],
      ['BTCUSDT:1m', 30],
      ['SPY:1d', 40],
    ]);
    expect(parquetFiles(store)).toHaveLength(3);
  });

  it('leaves one file when two writes of one dataset race', async () => {
    const store = freshStore();
    await Promise.all([
      store.write(BTC_1M, randomBars(30, 21), info()),
      store.write(BTC_1M, randomBars(31, 22), info()),
    ]);
    const entry = store.require(BTC_1M);
    expect(parquetFiles(store)).toEqual([entry.file]);
    expect((await store.read(BTC_1M)).bars.timestamps.length).toBe(entry.rows);
  });
});

describe('DatasetStore: a damaged catalog', () => {
  it('reports a catalog.json that is not JSON, naming the file', async () => {
    const store = freshStore();
    await store.write(BTC_1M, randomBars(3, 23), info());
    const path = join(store.dir, CATALOG_FILE);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 40));
    const error = catchError(() => store.list()) as TradelabError;
    expect(error).toBeInstanceOf(TradelabError);
    expect(error.code).toBe('DATA_STORE_INVALID');
    expect(error.message).toBe(`${path} is not valid JSON`);
    expect(error.hint).toContain('restore it from a backup');
    const onWrite = await rejection(store.write(BTC_1H, randomBars(3, 24), info()));
    expect(onWrite.code).toBe('DATA_STORE_INVALID');
    // The failed write left no file and no lock behind.
    expect(existsSync(join(store.dir, 'catalog.lock'))).toBe(false);
    expect(parquetFiles(store)).toHaveLength(1);
  });

  it('reports a catalog of another version', () => {
    const store = freshStore();
    const path = join(store.dir, CATALOG_FILE);
    mkdirSync(store.dir);
    writeFileSync(path, '{"version": 2, "datasets": {}}');
    const error = catchError(() => store.get(BTC_1M)) as TradelabError;
    expect(error).toBeInstanceOf(TradelabError);
    expect(error.message).toBe(`${path} has version 2; this tradelab reads version 1`);
  });

  it.each([
    [
      'file is a number',
      (e: Record<string, unknown>) => (e.file = 42),
      '.file is 42: expected string',
    ],
    [
      'rows is missing',
      (e: Record<string, unknown>) => delete e.rows,
      '.rows is missing (expected number)',
    ],
    [
      'a source has no sha256',
      (e: Record<string, unknown>) => (e.sources = [{ path: '/x.csv' }]),
      '.sources[0].sha256 is missing (expected string)',
    ],
    [
      'file leaves the store',
      (e: Record<string, unknown>) => (e.file = '../../etc/passwd'),
      '.file is "../../etc/passwd": expected a Parquet file inside the store, such as "BTCUSDT/1m.0123abcd.parquet"',
    ],
    [
      'the entry is of another dataset',
      (e: Record<string, unknown>) => (e.timeframe = '1h'),
      ' holds BTCUSDT:1h (its symbol and timeframe must match its key)',
    ],
  ])('reports a catalog entry whose %s, naming the file and the field', async (_, edit, what) => {
    const store = freshStore();
    await store.write(BTC_1M, randomBars(3, 27), info());
    const path = join(store.dir, CATALOG_FILE);
    const catalog = JSON.parse(readFileSync(path, 'utf8')) as {
      datasets: Record<string, Record<string, unknown>>;
    };
    edit(catalog.datasets['BTCUSDT:1m'] ?? {});
    writeFileSync(path, JSON.stringify(catalog));
    for (const error of [
      catchError(() => store.list()),
      await rejection(store.read(BTC_1M)),
      await rejection(store.write(BTC_1H, randomBars(3, 28), info())),
    ]) {
      expect(error).toBeInstanceOf(TradelabError);
      const e = error as TradelabError;
      expect(e.code).toBe('DATA_STORE_INVALID');
      expect(e.message).toBe(
        `${path} is not a valid tradelab catalog: datasets["BTCUSDT:1m"]${what}`,
      );
      expect(e.hint).toContain(`in ${path}`);
    }
  });

  it.each([
    ['null', 'null'],
    ['an array', '[]'],
    ['datasets: null', '{"version": 1, "datasets": null}'],
  ])('reports a catalog.json holding %s as damaged, not with a TypeError', (_, text) => {
    const store = freshStore();
    mkdirSync(store.dir);
    writeFileSync(join(store.dir, CATALOG_FILE), text);
    const error = catchError(() => store.list());
    expect(error).toBeInstanceOf(TradelabError);
    expect((error as TradelabError).code).toBe('DATA_STORE_INVALID');
  });
});

describe('DatasetStore: the files are plain Parquet', () => {
  it('reads back through DuckDB read_parquet with the same values', async () => {
    const store = freshStore();
    const bars = randomBars(200, 25, true, 86_400_000);
    const entry = await store.write(SPY_1D, bars, info({ adjusted: true }));
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const duck = await instance.connect();
    try {
      const path = join(store.dir, entry.file);
      const described = await duck.runAndReadAll('DESCRIBE SELECT * FROM read_parquet($1)', [path]);
      expect(described.getRowObjects().map((r) => [r['column_name'], r['column_type']])).toEqual([
        ['timestamp', 'TIMESTAMP WITH TIME ZONE'],
        ['open', 'DOUBLE'],
        ['high', 'DOUBLE'],
        ['low', 'DOUBLE'],
        ['close', 'DOUBLE'],
        ['volume', 'DOUBLE'],
        ['adj_close', 'DOUBLE'],
      ]);
      const reader = await duck.runAndReadAll(
        'SELECT epoch_ms("timestamp") AS t, open, high, low, close, volume, adj_close FROM read_parquet($1)',
        [path],
      );
      const [t, open, high, low, close, volume, adj] = reader.getColumns();
      expect(t?.map(Number)).toEqual([...bars.timestamps]);
      expect(open).toEqual([...bars.open]);
      expect(high).toEqual([...bars.high]);
      expect(low).toEqual([...bars.low]);
      expect(close).toEqual([...bars.close]);
      expect(volume).toEqual([...bars.volume]);
      expect(adj).toEqual([...(bars.adjClose ?? [])]);
    } finally {
      duck.closeSync();
      instance.closeSync();
    }
  });
});

describe('DatasetStore: a damaged dataset file', () => {
  /** Drops the file's size and CRC-32 from its catalog entry, as tradelab wrote entries before. */
  function withoutChecksum(store: DatasetStore): void {
    const path = join(store.dir, CATALOG_FILE);
    const catalog = JSON.parse(readFileSync(path, 'utf8')) as {
      datasets: Record<string, Record<string, unknown>>;
    };
    for (const entry of Object.values(catalog.datasets)) {
      delete entry.fileBytes;
      delete entry.fileCrc32;
    }
    writeFileSync(path, JSON.stringify(catalog));
  }

  it.each([
    ['not Parquet at all', () => Buffer.from('timestamp,open\n1,2\n')],
    ['cut short', (bytes: Buffer) => bytes.subarray(0, bytes.length - 50)],
  ])('reports a file that is %s, naming the dataset and the file', async (_, damage) => {
    const store = freshStore();
    const entry = await store.write(BTC_1M, randomBars(100, 26), info());
    const path = join(store.dir, entry.file);
    writeFileSync(path, damage(readFileSync(path)));
    expect(store.fileStatus(entry)).toBe('damaged');
    const error = await rejection(store.read(BTC_1M));
    expect(error.code).toBe('DATA_STORE_INVALID');
    expect(error.message).toContain('BTCUSDT:1m');
    expect(error.message).toContain(`"${path}" is damaged: its CRC-32 is `);
    expect(error.hint).toContain('tradelab data rm BTCUSDT:1m');
    expect(error.details).toMatchObject({ file: path });
    // Written before checksums were kept: the reader's own complaint.
    withoutChecksum(store);
    const old = await rejection(store.read(BTC_1M));
    expect(old.code).toBe('DATA_STORE_INVALID');
    expect(old.message).toContain(`"${path}" is not a valid Parquet file`);
  });

  it('finds damage inside a page that leaves the size and the magic bytes as they were', async () => {
    const store = freshStore();
    const entry = await store.write(BTC_1M, randomBars(1000, 27), info());
    const path = join(store.dir, entry.file);
    const bytes = readFileSync(path);
    const at = bytes.length >> 1;
    bytes[at] = (bytes[at] ?? 0) ^ 0x40;
    writeFileSync(path, bytes);
    // `data list`'s cheap look sees nothing; a read does.
    expect(store.fileStatus(entry)).toBe('ok');
    const error = await rejection(store.read(BTC_1M));
    expect(error.code).toBe('DATA_STORE_INVALID');
    expect(error.message).toMatch(
      new RegExp(
        `^BTCUSDT:1m: "${path}" is damaged: its CRC-32 is [0-9a-f]{8}, not the ${entry.fileCrc32?.toString(16).padStart(8, '0')} it was written with$`,
      ),
    );
    expect(error.hint).toContain('tradelab data rm BTCUSDT:1m');
  });

  it('refuses to store a bar a read would take for damage', async () => {
    const store = freshStore();
    const bars = randomBars(10, 28);
    bars.open[3] = 1.78e127;
    const error = await rejection(store.write(BTC_1M, bars, info()));
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toBe(
      `BTCUSDT:1m: refusing to store row 4 (2024-01-02T00:03:00.000Z): high ${bars.high[3]} is below max(open 1.78e+127, close ${bars.close[3]})`,
    );
    expect(store.list()).toEqual([]);
  });
});

describe('DatasetStore: a store written by earlier versions (test/fixtures/store-v0)', () => {
  /** A copy of the fixture store (tests may write to it) and the bars it held when written. */
  function oldStore(): { store: DatasetStore; expected: Record<string, Record<string, number[]>> } {
    const fixtures = join(import.meta.dirname, '../../../test/fixtures');
    const dir = mkdtempSync(join(tmpdir(), 'tradelab-store-v0-'));
    made.push(dir);
    cpSync(join(fixtures, 'store-v0'), join(dir, 'data'), { recursive: true });
    const expected = JSON.parse(
      readFileSync(join(fixtures, 'store-v0-bars.json'), 'utf8'),
    ) as Record<string, Record<string, number[]>>;
    return { store: openDatasetStore(join(dir, 'data')), expected };
  }

  it('reads every dataset as it was written (uncompressed Parquet of our old codec)', async () => {
    const { store, expected } = oldStore();
    expect(store.list().map((e) => `${e.symbol}:${e.timeframe}`)).toEqual([
      'SPY:1d',
      'SYN0:1h',
      'SYN1:1h',
    ]);
    for (const entry of store.list()) {
      const key = `${entry.symbol}:${entry.timeframe}`;
      const { bars } = await store.read(entry, { raw: true });
      const want = expected[key] ?? {};
      expect(Object.keys(bars).sort(), key).toEqual(Object.keys(want).sort());
      for (const [field, values] of Object.entries(want)) {
        const got = bars[field as keyof Bars];
        expect({ key, field, values: [...(got ?? [])] }).toEqual({ key, field, values });
      }
    }
    // The adjusted dataset still reads adjusted (close = the adjusted close).
    const spy = await store.read({ symbol: 'SPY', timeframe: '1d' });
    expect([...spy.bars.close]).toEqual(expected['SPY:1d']?.['adjClose']);
  });

  it("rebuilds its load cache over an earlier version's Parquet feature cache, then reads it", async () => {
    const { store } = oldStore();
    const key = { symbol: 'SYN0', timeframe: '1h' } as const;
    const { bars } = await store.read(key);
    const fresh = computeFeatures(bars);
    const first = await loadCachedDataset(store, key);
    expect(first.cached).toBe(false);
    const second = await loadCachedDataset(store, key);
    expect(second.cached).toBe(true);
    for (const loaded of [first, second]) {
      expect(loaded.features.warmup).toBe(fresh.warmup);
      expect(float32Bits(loaded.features.values)).toEqual(float32Bits(fresh.values));
      for (const field of ['timestamps', ...BAR_FIELDS] as const)
        expect([...loaded.bars[field]]).toEqual([...bars[field]]);
    }
  });

  it('reads its files without checksums, and checks their bars: a damaged price is found', async () => {
    const { store, expected } = oldStore();
    const key = { symbol: 'SYN0', timeframe: '1h' } as const;
    const entry = store.require(key);
    expect(entry.fileCrc32).toBeUndefined();
    expect(store.fileStatus(entry)).toBe('ok');
    // The old codec wrote PLAIN, uncompressed doubles: turn bar 18's open into 1.78e+127 in place.
    const path = join(store.dir, entry.file);
    const bytes = readFileSync(path);
    const open = expected['SYN0:1h']?.open?.[17] ?? Number.NaN;
    const at = bytes.indexOf(Buffer.from(Float64Array.of(open).buffer));
    expect(at).toBeGreaterThan(0);
    Buffer.from(Float64Array.of(1.78e127).buffer).copy(bytes, at);
    writeFileSync(path, bytes);
    const error = await rejection(store.read(key));
    expect(error.code).toBe('DATA_STORE_INVALID');
    expect(error.message).toContain(
      `SYN0:1h: ${path} holds a bar no import would have stored: row 18 (2020-01-01T17:00:00.000Z): high`,
    );
    expect(error.message).toContain('is below max(open 1.78e+127');
    expect(error.hint).toContain('it was made from synth');
  });

  it('rewrites a dataset in the new format and leaves the others as they are', async () => {
    const { store, expected } = oldStore();
    const key = { symbol: 'SYN1', timeframe: '1h' } as const;
    const { file: before, derivedFrom } = store.require(key);
    const { bars } = await store.read(key);
    // Written as what it is (a synthetic dataset), as `data synth` would write it again.
    const entry = await store.write(
      key,
      bars,
      info({ sources: [], ...(derivedFrom === undefined ? {} : { derivedFrom }) }),
    );
    expect(entry.file).not.toBe(before);
    expect(entry.fileCrc32).toBeTypeOf('number');
    expect(existsSync(join(store.dir, before))).toBe(false);
    const again = await store.read(key);
    for (const field of BAR_FIELDS)
      expect([...again.bars[field]]).toEqual(expected['SYN1:1h']?.[field]);
    expect((await store.read({ symbol: 'SYN0', timeframe: '1h' })).bars.close.length).toBe(300);
  });
});

/** A float32 array's bytes, for bit-exact comparison (NaN included). */
function float32Bits(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

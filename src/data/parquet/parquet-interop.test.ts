import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TradelabError } from '../../errors/index.js';
import { readParquetWithDuckDb } from './read-foreign-parquet.js';
import { readParquetFile, readParquetMetadata } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';

const made: string[] = [];
let instance: DuckDBInstance;
let duck: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await instance.connect();
});

afterAll(() => {
  duck.closeSync();
  instance.closeSync();
});

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-parquet-duckdb-'));
  made.push(dir);
  return dir;
}

/** Rows of a query as objects (BIGINT as bigint, DOUBLE as number). */
async function rows(sql: string, values: string[] = []): Promise<Record<string, unknown>[]> {
  const reader = await duck.runAndReadAll(sql, values);
  return reader.getRowObjects();
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

async function errorOfAsync(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a TradelabError, but nothing was thrown');
}

const DAY = 86_400_000;

/** 1-minute bars from 1969-12-25 on, so early timestamps are negative; specials in `x`. */
function sampleTable(n: number, seed: number) {
  const random = rng(seed);
  const ts = Float64Array.from({ length: n }, (_, i) => -7 * DAY + i * 60_000);
  const close = Float64Array.from({ length: n }, () => 100 + random() * 10);
  const volume = Float32Array.from({ length: n }, () => Math.round(random() * 1000));
  const trades = Float64Array.from({ length: n }, () => Math.round((random() - 0.5) * 2 ** 40));
  const x = Float64Array.from({ length: n }, (_, i) => i - n / 2);
  x.set([NaN, -0, Infinity, -Infinity], 0);
  return {
    columns: [
      { name: 'timestamp', type: 'timestamp-ms' as const, values: ts },
      { name: 'close', type: 'double' as const, values: close },
      { name: 'volume', type: 'float' as const, values: volume },
      { name: 'trades', type: 'int64' as const, values: trades },
      { name: 'x', type: 'double' as const, values: x },
    ],
    metadata: { 'tradelab.symbol': 'BTCUSDT', 'tradelab.timeframe': '1m' },
  };
}

describe('DuckDB reads the files writeParquetFile writes', () => {
  it('sees the row count, the column types and every value', async () => {
    const path = join(tempDir(), 'bars.parquet');
    const table = sampleTable(10_000, 1);
    await writeParquetFile(path, table, { rowsPerGroup: 4000, rowsPerPage: 1500 });

    const described = await rows('DESCRIBE SELECT * FROM read_parquet($1)', [path]);
    expect(described.map((r) => [r['column_name'], r['column_type']])).toEqual([
      ['timestamp', 'TIMESTAMP WITH TIME ZONE'],
      ['close', 'DOUBLE'],
      ['volume', 'FLOAT'],
      ['trades', 'BIGINT'],
      ['x', 'DOUBLE'],
    ]);

    const reader = await duck.runAndReadAll(
      'SELECT epoch_ms("timestamp") AS t, close, volume, trades, x FROM read_parquet($1)',
      [path],
    );
    const [t, close, volume, trades, x] = reader.getColumns();
    expect(t?.length).toBe(10_000);
    const [tsIn, closeIn, volumeIn, tradesIn, xIn] = table.columns.map((c) => c.values);
    expect(t?.map(Number)).toEqual([...(tsIn ?? [])]);
    expect(close).toEqual([...(closeIn ?? [])]);
    expect(volume).toEqual([...(volumeIn ?? [])]);
    expect(trades?.map(Number)).toEqual([...(tradesIn ?? [])]);
    const xs = x as number[];
    expect([Number.isNaN(xs[0]), Object.is(xs[1], -0), xs[2], xs[3]]).toEqual([
      true,
      true,
      Infinity,
      -Infinity,
    ]);
    expect(xs.slice(4)).toEqual([...(xIn ?? [])].slice(4));
  });

  it('exposes the key-value metadata and per-row-group statistics', async () => {
    const path = join(tempDir(), 'meta.parquet');
    await writeParquetFile(path, sampleTable(10_000, 2), { rowsPerGroup: 4000 });

    const kv = await rows(
      'SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata($1) ORDER BY key',
      [path],
    );
    expect(kv).toEqual([
      { key: 'tradelab.symbol', value: 'BTCUSDT' },
      { key: 'tradelab.timeframe', value: '1m' },
    ]);

    const file = await rows('SELECT created_by, num_rows FROM parquet_file_metadata($1)', [path]);
    expect(file).toEqual([{ created_by: 'tradelab', num_rows: 10_000n }]);

    const stats = await rows(
      `SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count,
              compression, encodings
       FROM parquet_metadata($1) WHERE path_in_schema IN ('trades', 'x') ORDER BY row_group_id, column_id`,
      [path],
    );
    expect(stats).toHaveLength(6);
    expect(stats[0]).toMatchObject({ path_in_schema: 'trades', stats_null_count: 0n });
    expect(stats[0]?.['compression']).toBe('UNCOMPRESSED');
    expect(stats[0]?.['encodings']).toBe('PLAIN');
    // x runs from -5000 upward with NaN and ±Infinity in group 0, which therefore has no bounds.
    expect(stats[1]).toMatchObject({ path_in_schema: 'x', stats_min_value: null });
    expect(stats[3]).toMatchObject({
      path_in_schema: 'x',
      stats_min_value: '-1000.0',
      stats_max_value: '2999.0',
    });

    // DuckDB uses the statistics to skip row groups; whatever it does, the answers must be right.
    const filtered = await rows(
      'SELECT count(*) AS n, min(x) AS lo FROM read_parquet($1) WHERE x BETWEEN 3500 AND 3600',
      [path],
    );
    expect(filtered).toEqual([{ n: 101n, lo: 3500 }]);
  });

  it('answers filters on NaN, -0 and Infinity as it does in memory (statistics do not mislead)', async () => {
    const path = join(tempDir(), 'special.parquet');
    const x = Float64Array.from([NaN, -0, 5, 1, 2, 3, Infinity, 0, -Infinity]);
    await writeParquetFile(
      path,
      { columns: [{ name: 'x', type: 'double', values: x }] },
      {
        rowsPerGroup: 3,
      },
    );
    await duck.run(
      `CREATE OR REPLACE TABLE mem AS SELECT * FROM (VALUES ('NaN'::DOUBLE), (-0.0::DOUBLE),
         (5::DOUBLE), (1::DOUBLE), (2::DOUBLE), (3::DOUBLE), ('inf'::DOUBLE), (0::DOUBLE),
         ('-inf'::DOUBLE)) v(x)`,
    );
    for (const where of ['x > 100', "x = 'NaN'::DOUBLE", 'x = 0', 'x < -1e308', 'x >= 3']) {
      const fromFile = await rows(`SELECT count(*) AS n FROM read_parquet($1) WHERE ${where}`, [
        path,
      ]);
      const inMemory = await rows(`SELECT count(*) AS n FROM mem WHERE ${where}`);
      expect({ where, n: fromFile[0]?.['n'] }).toEqual({ where, n: inMemory[0]?.['n'] });
    }
  });

  it('reads an empty table as zero rows with the schema intact', async () => {
    const path = join(tempDir(), 'empty.parquet');
    await writeParquetFile(path, {
      columns: [
        { name: 'timestamp', type: 'timestamp-ms', values: new Float64Array(0) },
        { name: 'close', type: 'double', values: new Float64Array(0) },
      ],
    });
    expect(await rows('SELECT count(*) AS n FROM read_parquet($1)', [path])).toEqual([{ n: 0n }]);
    const described = await rows('DESCRIBE SELECT * FROM read_parquet($1)', [path]);
    expect(described.map((r) => r['column_type'])).toEqual(['TIMESTAMP WITH TIME ZONE', 'DOUBLE']);
  });
});

describe('DuckDB-written (foreign) files', () => {
  /** A snappy-compressed file the way DuckDB (and pyarrow, pandas…) write them: nullable columns. */
  async function foreignFile(dir: string, compression = 'snappy'): Promise<string> {
    const path = join(dir, `foreign-${compression}.parquet`);
    await duck.run(
      `COPY (
         SELECT (TIMESTAMP '1969-12-31 23:59:00' + INTERVAL (i) MINUTE) AS ts,
                100.0 + i / 4 AS close,
                CAST(i AS FLOAT) AS f,
                i AS n,
                CAST(i AS DECIMAL(10, 2)) AS dec,
                CASE WHEN i = 3 THEN NULL ELSE CAST(i * 2 AS DOUBLE) END AS maybe,
                'sym' || i AS label
         FROM range(5000) t(i)
       ) TO '${path}' (FORMAT parquet, COMPRESSION ${compression},
                       KV_METADATA {'tradelab.symbol': 'ETHUSDT'})`,
    );
    return path;
  }

  it('the fast reader refuses a compressed file and says why, so callers can fall back', async () => {
    const path = await foreignFile(tempDir());
    const error = await errorOfAsync(readParquetFile(path, { columns: ['ts', 'close'] }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(path);
    expect(error.message).toContain('compressed with SNAPPY');
    expect(error.message).toContain('OPTIONAL (nullable or repeated)');
    expect(error.hint).toContain('readParquetWithDuckDb');
    expect(error.details?.['unsupported']).toEqual(expect.arrayContaining([expect.any(String)]));

    const meta = await readParquetMetadata(path);
    expect(meta.numRows).toBe(5000);
    expect(meta.metadata).toMatchObject({ 'tradelab.symbol': 'ETHUSDT' });
    expect(meta.columns.map((c) => [c.name, c.physicalType, c.type])).toEqual([
      ['ts', 'INT64', undefined],
      ['close', 'DOUBLE', 'double'],
      ['f', 'FLOAT', 'float'],
      ['n', 'INT64', 'int64'],
      ['dec', 'INT64', undefined],
      ['maybe', 'DOUBLE', 'double'],
      ['label', 'BYTE_ARRAY', undefined],
    ]);
    expect(meta.columns[0]?.annotation).toBe('TIMESTAMP(MICROS)');
    expect(meta.rowGroups[0]?.columns[0]?.codec).toBe('SNAPPY');
    expect(meta.fastReaderProblems.join('; ')).toContain('compressed with SNAPPY');
  });

  it('the fast reader also refuses an uncompressed DuckDB file (nullable columns)', async () => {
    const path = await foreignFile(tempDir(), 'uncompressed');
    const error = await errorOfAsync(readParquetFile(path, { columns: ['close'] }));
    expect(error.message).toContain('column "close": OPTIONAL (nullable or repeated)');
    expect(error.message).not.toContain('compressed with');
  });

  it('readParquetWithDuckDb reads it: timestamps in ms, numbers as doubles, NULL as NaN', async () => {
    const path = await foreignFile(tempDir());
    const table = await readParquetWithDuckDb(path);
    expect(table.numRows).toBe(5000);
    expect(Object.keys(table.columns)).toEqual(['ts', 'close', 'f', 'n', 'dec', 'maybe']);
    expect(table.skippedColumns).toEqual(['label']);
    expect(table.metadata).toEqual({ 'tradelab.symbol': 'ETHUSDT' });
    const ts = table.columns['ts'];
    expect(ts).toBeInstanceOf(Float64Array);
    expect([ts?.[0], ts?.[1], ts?.[4999]]).toEqual([-60_000, 0, 4998 * 60_000]);
    expect(table.columns['f']).toBeInstanceOf(Float32Array);
    expect(table.columns['f']?.[4999]).toBe(4999);
    expect(table.columns['n']?.[4999]).toBe(4999);
    expect(table.columns['dec']?.[17]).toBe(17);
    expect(table.columns['close']?.[5]).toBe(101.25);
    expect(Number.isNaN(table.columns['maybe']?.[3])).toBe(true);
    expect(table.columns['maybe']?.[4]).toBe(8);
  });

  it('readParquetWithDuckDb picks columns, and names bad ones', async () => {
    const path = await foreignFile(tempDir());
    const table = await readParquetWithDuckDb(path, ['close', 'ts']);
    expect(Object.keys(table.columns)).toEqual(['close', 'ts']);
    expect(table.skippedColumns).toEqual([]);

    const notNumeric = await errorOfAsync(readParquetWithDuckDb(path, ['label']));
    expect(notNumeric.message).toContain('column "label"');
    expect(notNumeric.message).toContain('VARCHAR, which is not numeric');

    const unknown = await errorOfAsync(readParquetWithDuckDb(path, ['clsoe']));
    expect(unknown.message).toContain('did you mean "close"?');
  });

  it('readParquetWithDuckDb reads tradelab files the same as the fast reader', async () => {
    const path = join(tempDir(), 'ours.parquet');
    await writeParquetFile(path, sampleTable(3000, 3), { rowsPerGroup: 1000 });
    const fast = await readParquetFile(path);
    const viaDuck = await readParquetWithDuckDb(path);
    expect(viaDuck.numRows).toBe(fast.numRows);
    expect(viaDuck.metadata).toEqual(fast.metadata);
    for (const [name, values] of Object.entries(fast.columns)) {
      const other = viaDuck.columns[name];
      expect(other?.constructor).toBe(values.constructor);
      expect(
        Buffer.from(other?.buffer ?? new ArrayBuffer(0)).equals(Buffer.from(values.buffer)),
      ).toBe(true);
    }
  });

  it('readParquetWithDuckDb turns a missing file into an error naming it', async () => {
    const path = join(tempDir(), 'missing.parquet');
    const error = await errorOfAsync(readParquetWithDuckDb(path));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(`DuckDB could not read Parquet file "${path}"`);
  });
});

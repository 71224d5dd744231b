import { Rng } from '../../core/index.js';
import { errorOfAsync } from '../../../test/support/assertions.js';
/**
 * Parquet written here must read elsewhere, and Parquet written elsewhere must read here. DuckDB
 * stands in for the rest of the world on both sides: it reads what writeParquetFile writes, and it
 * writes the "foreign" files (every codec, dictionary pages, nulls, v2 pages and encodings, every
 * timestamp unit) that readParquetFile must read to the same values DuckDB reads back.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readParquetFile } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';
import { tempDir as runTempDir } from '../../../test/support/temp-dir.js';

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
  const dir = runTempDir('tradelab-parquet-duckdb-');
  made.push(dir);
  return dir;
}

/** Rows of a query as objects (BIGINT as bigint, DOUBLE as number). */
async function rows(sql: string, values: string[] = []): Promise<Record<string, unknown>[]> {
  const reader = await duck.runAndReadAll(sql, values);
  return reader.getRowObjects();
}

const DAY = 86_400_000;

/** 1-minute bars from 1969-12-25 on, so early timestamps are negative; specials in `x`. */
function sampleTable(n: number, seed: number) {
  const generator = new Rng(seed);
  const random = (): number => generator.uniform();
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
    await writeParquetFile(path, table, { rowsPerGroup: 4000 });

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

  it('sees the key-value metadata, the row groups, Snappy pages and statistics', async () => {
    const path = join(tempDir(), 'meta.parquet');
    await writeParquetFile(path, sampleTable(10_000, 2), { rowsPerGroup: 4000 });

    const kv = await rows(
      `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata($1)
       WHERE decode(key) LIKE 'tradelab.%' ORDER BY key`,
      [path],
    );
    expect(kv).toEqual([
      { key: 'tradelab.symbol', value: 'BTCUSDT' },
      { key: 'tradelab.timeframe', value: '1m' },
    ]);

    const stats = await rows(
      `SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, compression
       FROM parquet_metadata($1) WHERE path_in_schema IN ('trades', 'x') ORDER BY row_group_id, column_id`,
      [path],
    );
    expect(stats).toHaveLength(6);
    expect(stats.map((s) => s['compression'])).toEqual(Array(6).fill('SNAPPY'));
    expect(stats[0]?.['stats_min_value']).toEqual(expect.any(String));
    // x holds NaN (in row group 0), so no bounds anywhere: DuckDB would misuse them (see the writer).
    expect(
      stats.filter((s) => s['path_in_schema'] === 'x').map((s) => s['stats_min_value']),
    ).toEqual([null, null, null]);

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

describe('readParquetFile on DuckDB-written (foreign) files', () => {
  /**
   * A file the way DuckDB (and pyarrow, pandas…) write them: nullable columns, dictionary pages
   * for repetitive columns, every numeric type and timestamp unit, a text column.
   */
  async function foreignFile(dir: string, options: string): Promise<string> {
    const path = join(dir, `foreign-${options.replace(/\W+/g, '-')}.parquet`);
    await duck.run(
      `COPY (
         SELECT (TIMESTAMP '1969-12-31 23:59:00' + INTERVAL (i) MINUTE) AS ts,
                CAST(TIMESTAMP '1969-12-31 23:59:00' + INTERVAL (i) MINUTE AS TIMESTAMP_NS) AS ts_ns,
                CAST(TIMESTAMP '1969-12-31 23:59:00' + INTERVAL (i) MINUTE AS TIMESTAMPTZ) AS ts_tz,
                CAST(TIMESTAMP '2020-01-01' + INTERVAL (i) MINUTE AS TIMESTAMP_MS) AS ts_ms,
                CAST(DATE '1969-12-30' + CAST(i AS INTEGER) AS DATE) AS day,
                100.0 + i / 4 AS close,
                CAST(i AS FLOAT) AS f,
                i AS n,
                CAST(i % 7 AS INTEGER) AS small,
                CAST(i AS UBIGINT) AS u,
                CAST(i / 8 AS DECIMAL(10, 2)) AS dec,
                CAST(i / 8 AS DECIMAL(30, 3)) AS wide,
                CASE WHEN i % 97 = 3 THEN NULL ELSE CAST(i * 2 AS DOUBLE) END AS maybe,
                CASE WHEN i % 89 = 5 THEN NULL ELSE TIMESTAMP '2021-01-01' + INTERVAL (i) SECOND END AS maybe_ts,
                CAST(round(100 + sin(i / 50.0), 2) AS DOUBLE) AS repeats,
                'sym' || (i % 3) AS label
         FROM range(5000) t(i)
       ) TO '${path}' (FORMAT parquet, ${options}, ROW_GROUP_SIZE 2048,
                       KV_METADATA {'tradelab.symbol': 'ETHUSDT'})`,
    );
    return path;
  }

  /** DuckDB's own reading of each numeric column, as doubles (timestamps as epoch ms). */
  async function duckValues(path: string, columns: readonly string[]): Promise<number[][]> {
    const select = columns
      .map((c) =>
        c.startsWith('ts') || c === 'day' || c === 'maybe_ts'
          ? `CAST(floor(epoch_us(CAST("${c}" AS TIMESTAMP)) / 1000) AS DOUBLE)`
          : `CAST("${c}" AS DOUBLE)`,
      )
      .join(', ');
    const reader = await duck.runAndReadAll(`SELECT ${select} FROM read_parquet($1)`, [path]);
    return reader.getColumns().map((column) => column.map((v) => (v === null ? NaN : Number(v))));
  }

  const NUMERIC = [
    'ts',
    'ts_ns',
    'ts_tz',
    'ts_ms',
    'day',
    'close',
    'f',
    'n',
    'small',
    'u',
    'dec',
    'wide',
    'maybe',
    'maybe_ts',
    'repeats',
  ];

  it.each([
    'COMPRESSION uncompressed',
    'COMPRESSION snappy',
    'COMPRESSION zstd',
    'COMPRESSION gzip',
    'COMPRESSION brotli',
    'COMPRESSION lz4_raw',
    'COMPRESSION zstd, PARQUET_VERSION v2',
    'COMPRESSION snappy, DICTIONARY_COMPRESSION_RATIO_THRESHOLD 0',
  ])('reads every numeric column as DuckDB does (%s)', async (options) => {
    const path = await foreignFile(tempDir(), options);
    const table = await readParquetFile(path);
    expect(table.numRows).toBe(5000);
    expect(Object.keys(table.columns)).toEqual(NUMERIC);
    expect(table.skippedColumns).toEqual(['label']);
    // Typed as times: their unit is the file's; the integers (n, u…) are plain numbers.
    expect(table.timeColumns).toEqual(['ts', 'ts_ns', 'ts_tz', 'ts_ms', 'day', 'maybe_ts']);
    expect(table.metadata).toMatchObject({ 'tradelab.symbol': 'ETHUSDT' });
    const expected = await duckValues(path, NUMERIC);
    NUMERIC.forEach((name, k) => {
      expect({ name, values: [...(table.columns[name] ?? [])] }).toEqual({
        name,
        values: expected[k],
      });
    });
    expect(table.columns['f']).toBeInstanceOf(Float32Array);
    expect(table.columns['ts']).toBeInstanceOf(Float64Array);
    expect([table.columns['ts']?.[0], table.columns['ts']?.[1]]).toEqual([-60_000, 0]);
    expect(Number.isNaN(table.columns['maybe']?.[3])).toBe(true);
    expect(Number.isNaN(table.columns['maybe_ts']?.[5])).toBe(true);
  });

  it('picks columns in the order asked, and names bad ones', async () => {
    const path = await foreignFile(tempDir(), 'COMPRESSION snappy');
    const table = await readParquetFile(path, { columns: ['close', 'ts'] });
    expect(Object.keys(table.columns)).toEqual(['close', 'ts']);
    expect(table.skippedColumns).toEqual([]);

    const notNumeric = await errorOfAsync(readParquetFile(path, { columns: ['label'] }));
    expect(notNumeric.code).toBe('INVALID_ARGUMENT');
    expect(notNumeric.message).toContain(`column "label" of Parquet file "${path}"`);
    expect(notNumeric.message).toContain('BYTE_ARRAY (UTF8), which is not numeric');

    const unknown = await errorOfAsync(readParquetFile(path, { columns: ['clsoe'] }));
    expect(unknown.message).toContain('did you mean "close"?');
  });

  it('turns a missing file into an error naming it', async () => {
    const path = join(tempDir(), 'missing.parquet');
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.code).toBe('FILE_NOT_FOUND');
    expect(error.message).toBe(`cannot read Parquet file "${path}": no such file`);
  });
});

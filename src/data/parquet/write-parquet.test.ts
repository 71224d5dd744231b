import { Rng } from '../../core/index.js';
import { errorOfAsync } from '../../../test/support/assertions.js';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParquetColumnInput } from './parquet-table.js';
import { parquetMetadata, type FileMetaData } from 'hyparquet';
import { readParquetFile } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';
import { tempDir as runTempDir } from '../../../test/support/temp-dir.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = runTempDir('tradelab-parquet-');
  made.push(dir);
  return dir;
}

/** Random bar-like columns: timestamps straddling 1970 (negatives included), prices, an int64. */
function randomColumns(n: number, seed: number): ParquetColumnInput[] {
  const generator = new Rng(seed);
  const random = (): number => generator.uniform();
  const ts = new Float64Array(n);
  const close = new Float64Array(n);
  const volume = new Float32Array(n);
  const count = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ts[i] = Math.round((random() - 0.5) * 2 * 8.64e15); // ±100 million days, the Date range
    close[i] = (random() - 0.5) * 10 ** Math.floor(random() * 20 - 10);
    volume[i] = random() * 1e6;
    count[i] = Math.round((random() - 0.5) * 2 * Number.MAX_SAFE_INTEGER);
  }
  return [
    { name: 'timestamp', type: 'timestamp-ms', values: ts },
    { name: 'close', type: 'double', values: close },
    { name: 'volume', type: 'float', values: volume },
    { name: 'count', type: 'int64', values: count },
  ];
}

/** Raw bytes of a typed array, to compare floats bit for bit (NaN payloads, -0). */
function bits(values: Float64Array | Float32Array | undefined): Uint8Array {
  if (values === undefined) throw new Error('column missing');
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** Asserts same array type and identical bytes; points at the first differing row if not. */
function expectSameValues(
  actual: Float64Array | Float32Array | undefined,
  expected: Float64Array | Float32Array | undefined,
): void {
  expect(actual?.constructor).toBe(expected?.constructor);
  expect(actual?.length).toBe(expected?.length);
  const a = bits(actual);
  const b = bits(expected);
  if (Buffer.compare(a, b) === 0) return;
  const row = (actual ?? []).findIndex((v, i) => !Object.is(v, expected?.[i]));
  expect({ row, value: actual?.[row] }).toEqual({ row, value: expected?.[row] });
}

/** The file's footer, parsed by hyparquet. */
function footer(path: string): FileMetaData {
  return parquetMetadata(readFileSync(path));
}

describe('writeParquetFile → readParquetFile', () => {
  it('round-trips random columns of every type exactly', async () => {
    const path = join(tempDir(), 'bars.parquet');
    const columns = randomColumns(5000, 1);
    const result = await writeParquetFile(path, {
      columns,
      metadata: { 'tradelab.symbol': 'BTCUSDT', 'tradelab.timeframe': '1m' },
    });
    expect(result).toMatchObject({ path, numRows: 5000, rowGroups: 1 });
    expect(result.bytes).toBe(readFileSync(path).length);

    const table = await readParquetFile(path);
    expect(table.numRows).toBe(5000);
    expect(Object.keys(table.columns)).toEqual(['timestamp', 'close', 'volume', 'count']);
    for (const column of columns) expectSameValues(table.columns[column.name], column.values);
    expect(table.columns['volume']).toBeInstanceOf(Float32Array);
    expect(table.metadata).toMatchObject({
      'tradelab.symbol': 'BTCUSDT',
      'tradelab.timeframe': '1m',
    });
  });

  it('keeps NaN, ±0 and ±Infinity bit-exact and handles negative and extreme timestamps', async () => {
    const path = join(tempDir(), 'special.parquet');
    const doubles = Float64Array.from([NaN, 0, -0, Infinity, -Infinity, Number.MIN_VALUE, -1e308]);
    // A NaN with a non-default payload, to prove bytes are copied, not re-encoded.
    new DataView(doubles.buffer).setBigUint64(0, 0x7ff8dead_beef0001n, true);
    const floats = Float32Array.from([NaN, 0, -0, Infinity, -Infinity, 1.5, -2.5]);
    const ts = Float64Array.from([
      -1,
      0,
      -86_400_000,
      -4_294_967_296,
      -4_294_967_297,
      4_294_967_296,
      Number.MIN_SAFE_INTEGER,
    ]);
    await writeParquetFile(path, {
      columns: [
        { name: 't', type: 'timestamp-ms', values: ts },
        { name: 'd', type: 'double', values: doubles },
        { name: 'f', type: 'float', values: floats },
      ],
    });
    const table = await readParquetFile(path);
    expect(bits(table.columns['d'])).toEqual(bits(doubles));
    expect(bits(table.columns['f'])).toEqual(bits(floats));
    expect([...(table.columns['t'] ?? [])]).toEqual([...ts]);
  });

  it('writes an empty table that reads back as zero rows with its metadata', async () => {
    const path = join(tempDir(), 'empty.parquet');
    await writeParquetFile(path, {
      columns: [
        { name: 't', type: 'timestamp-ms', values: new Float64Array(0) },
        { name: 'x', type: 'double', values: new Float64Array(0) },
      ],
      metadata: { k: 'v' },
    });
    const table = await readParquetFile(path);
    expect(table.numRows).toBe(0);
    expect(table.columns['t']).toEqual(new Float64Array(0));
    expect(table.metadata).toMatchObject({ k: 'v' });
    expect(footer(path).schema.map((e) => e.name)).toEqual(['arrow_schema', 't', 'x']);
  });

  it('splits rows into row groups, and reads them back in order', async () => {
    const path = join(tempDir(), 'groups.parquet');
    const columns = randomColumns(10_007, 2);
    await writeParquetFile(path, { columns }, { rowsPerGroup: 3000 });
    expect(footer(path).row_groups.map((g) => Number(g.num_rows))).toEqual([
      3000, 3000, 3000, 1007,
    ]);
    const table = await readParquetFile(path);
    for (const column of columns) expectSameValues(table.columns[column.name], column.values);
  });

  it('reads a subset of columns in the order asked', async () => {
    const path = join(tempDir(), 'subset.parquet');
    const columns = randomColumns(100, 3);
    await writeParquetFile(path, { columns });
    const table = await readParquetFile(path, { columns: ['count', 'timestamp'] });
    expect(Object.keys(table.columns)).toEqual(['count', 'timestamp']);
    expectSameValues(table.columns['timestamp'], columns[0]?.values);
  });

  it('names the missing column and suggests the closest one', async () => {
    const path = join(tempDir(), 'names.parquet');
    await writeParquetFile(path, { columns: randomColumns(10, 4) });
    const error = await errorOfAsync(readParquetFile(path, { columns: ['clsoe'] }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('has no column "clsoe"');
    expect(error.message).toContain('did you mean "close"?');
  });

  it('writes REQUIRED columns, Snappy pages, delta-encoded timestamps and min/max statistics', async () => {
    const path = join(tempDir(), 'layout.parquet');
    await writeParquetFile(
      path,
      {
        columns: [
          { name: 't', type: 'timestamp-ms', values: Float64Array.from([-5, 7, 3, 10, 20]) },
          { name: 'x', type: 'double', values: Float64Array.from([0.5, 0.25, 2, 4, 1]) },
        ],
      },
      { rowsPerGroup: 3 },
    );
    const meta = footer(path);
    expect(meta.schema.slice(1).map((e) => [e.name, e.type, e.repetition_type])).toEqual([
      ['t', 'INT64', 'REQUIRED'],
      ['x', 'DOUBLE', 'REQUIRED'],
    ]);
    expect(meta.schema[1]?.logical_type).toEqual({
      type: 'TIMESTAMP',
      isAdjustedToUTC: true,
      unit: 'MILLIS',
    });
    const [first, second] = meta.row_groups;
    const [t, x] = first?.columns.map((c) => c.meta_data) ?? [];
    expect(t?.codec).toBe('SNAPPY');
    expect(t?.encodings).toContain('DELTA_BINARY_PACKED');
    expect(x?.encodings).not.toContain('RLE_DICTIONARY');
    // hyparquet shows timestamp bounds as Dates.
    expect(t?.statistics).toMatchObject({ min_value: new Date(-5), max_value: new Date(7) });
    expect(x?.statistics).toMatchObject({ min_value: 0.25, max_value: 2 });
    expect(second?.columns[0]?.meta_data?.statistics).toMatchObject({
      min_value: new Date(10),
      max_value: new Date(20),
    });
  });

  it('writes uncompressed pages when asked', async () => {
    const path = join(tempDir(), 'plain.parquet');
    const columns = randomColumns(100, 6);
    await writeParquetFile(path, { columns }, { compression: 'none' });
    expect(footer(path).row_groups[0]?.columns.map((c) => c.meta_data?.codec)).toEqual([
      'UNCOMPRESSED',
      'UNCOMPRESSED',
      'UNCOMPRESSED',
      'UNCOMPRESSED',
    ]);
    const table = await readParquetFile(path);
    for (const column of columns) expectSameValues(table.columns[column.name], column.values);
  });
});

describe('writeParquetFile atomicity and validation', () => {
  async function existingFile(): Promise<{ dir: string; path: string; before: Buffer }> {
    const dir = tempDir();
    const path = join(dir, 'data.parquet');
    await writeParquetFile(path, { columns: randomColumns(50, 5) });
    return { dir, path, before: readFileSync(path) };
  }

  it('rejects columns of different lengths before touching the disk', async () => {
    const { dir, path, before } = await existingFile();
    const error = await errorOfAsync(
      writeParquetFile(path, {
        columns: [
          { name: 'a', type: 'double', values: new Float64Array(3) },
          { name: 'b', type: 'double', values: new Float64Array(2) },
        ],
      }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('column "b" has 2 values but "a" has 3');
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['data.parquet']);
  });

  it('fails on a non-integer timestamp and leaves the old file and no temp file', async () => {
    const { dir, path, before } = await existingFile();
    const ts = Float64Array.from({ length: 5000 }, (_, i) => i * 60_000);
    ts[4321] = 1.5;
    const error = await errorOfAsync(
      writeParquetFile(
        path,
        {
          columns: [
            { name: 'x', type: 'double', values: new Float64Array(5000) },
            { name: 't', type: 'timestamp-ms', values: ts },
          ],
        },
        { rowsPerGroup: 1000 },
      ),
    );
    expect(error.message).toContain('column "t" (timestamp-ms) row 4321: 1.5 is not an integer');
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['data.parquet']);
  });

  it('rejects NaN and out-of-range int64 values', async () => {
    const dir = tempDir();
    for (const bad of [NaN, Infinity, 2 ** 63]) {
      const error = await errorOfAsync(
        writeParquetFile(join(dir, 'x.parquet'), {
          columns: [{ name: 'n', type: 'int64', values: Float64Array.from([1, bad]) }],
        }),
      );
      expect(error.message).toContain(`row 1: ${bad} is not an integer in the int64 range`);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('rejects duplicate names, unknown types, no columns and bad options', async () => {
    const path = join(tempDir(), 'x.parquet');
    const values = new Float64Array(1);
    const cases: [Parameters<typeof writeParquetFile>, string][] = [
      [
        [
          path,
          {
            columns: [
              { name: 'a', type: 'double', values },
              { name: 'a', type: 'double', values },
            ],
          },
        ],
        'column name "a" appears twice',
      ],
      [
        [path, { columns: [{ name: 'a', type: 'text' as 'double', values }] }],
        'has type "text"; expected one of double, timestamp-ms, int64, float',
      ],
      [[path, { columns: [] }], 'the table has no columns'],
      [
        [path, { columns: [{ name: 'a', type: 'double', values }] }, { rowsPerGroup: 0 }],
        'rowsPerGroup must be a positive integer, got 0',
      ],
    ];
    for (const [args, message] of cases) {
      const error = await errorOfAsync(writeParquetFile(...args));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(message);
    }
  });

  it('replaces an existing file with the new contents', async () => {
    const { path } = await existingFile();
    await writeParquetFile(path, {
      columns: [{ name: 'only', type: 'double', values: Float64Array.from([1, 2]) }],
    });
    const table = await readParquetFile(path);
    expect(Object.keys(table.columns)).toEqual(['only']);
  });

  it('converts between float widths when the array type differs from the column type', async () => {
    const path = join(tempDir(), 'widths.parquet');
    await writeParquetFile(path, {
      columns: [
        { name: 'f', type: 'float', values: Float64Array.from([1.1, 2]) },
        { name: 'd', type: 'double', values: Float32Array.from([0.5, 3]) },
      ],
    });
    const table = await readParquetFile(path);
    expect(table.columns['f']).toEqual(Float32Array.from([1.1, 2]));
    expect(table.columns['d']).toEqual(Float64Array.from([0.5, 3]));
  });
});

import { errorOfAsync } from '../../../test/support/assertions.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readParquetFile } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';
import { tempDir as runTempDir } from '../../../test/support/temp-dir.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = runTempDir('tradelab-parquet-read-');
  made.push(dir);
  return dir;
}

/** A small file of ours: 1000 rows of a timestamp and a double, in 4 row groups. */
async function smallFile(path: string): Promise<Buffer> {
  await writeParquetFile(
    path,
    {
      columns: [
        {
          name: 't',
          type: 'timestamp-ms',
          values: Float64Array.from({ length: 1000 }, (_, i) => i * 60_000),
        },
        { name: 'x', type: 'double', values: Float64Array.from({ length: 1000 }, (_, i) => i / 3) },
      ],
    },
    { rowsPerGroup: 250 },
  );
  return readFileSync(path);
}

describe('readParquetFile on damaged files', () => {
  it('says a file is not Parquet when the magic is missing, naming it', async () => {
    const path = join(tempDir(), 'not.parquet');
    writeFileSync(path, 'timestamp,open\n1,2\n');
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toContain(`"${path}" is not a valid Parquet file`);
    expect(error.hint).toContain('truncated or not Parquet');
    expect(error.details).toMatchObject({ file: path, corrupt: true });
  });

  it('detects a file cut short', async () => {
    const path = join(tempDir(), 'cut.parquet');
    const bytes = await smallFile(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain(`"${path}" is not a valid Parquet file`);
  });

  it('detects data cut from the middle (the footer intact)', async () => {
    const path = join(tempDir(), 'middle.parquet');
    const bytes = await smallFile(path);
    const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
    writeFileSync(path, Buffer.concat([bytes.subarray(0, 200), bytes.subarray(footerStart - 100)]));
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain(`"${path}" is not a valid Parquet file`);
  });

  it('detects a footer that does not decode', async () => {
    const path = join(tempDir(), 'garbled.parquet');
    const bytes = await smallFile(path);
    const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
    bytes.fill(0xff, footerStart, footerStart + 16);
    writeFileSync(path, bytes);
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain(`"${path}" is not a valid Parquet file`);
  });

  it('says so when a path is a directory', async () => {
    const dir = tempDir();
    const error = await errorOfAsync(readParquetFile(dir));
    expect(error.code).toBe('FILE_ACCESS');
    expect(error.message).toBe(`cannot read Parquet file "${dir}": not a file`);
  });
});

describe('readParquetFile on files written before the store was compressed', () => {
  it('reads a file of the old codec (PLAIN, uncompressed, REQUIRED) bit for bit', async () => {
    // A store file from test/fixtures/store-v0, written by tradelab's own codec.
    const path = join(
      import.meta.dirname,
      '../../../test/fixtures/store-v0/SYN0/1h.ee54a68a.parquet',
    );
    const table = await readParquetFile(path);
    expect(table.numRows).toBe(300);
    expect(Object.keys(table.columns)).toEqual([
      'timestamp',
      'open',
      'high',
      'low',
      'close',
      'volume',
    ]);
    expect(table.metadata).toEqual({ 'tradelab.dataset': 'SYN0:1h', 'tradelab.calendar': '24/7' });
    const expected = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../test/fixtures/store-v0-bars.json'), 'utf8'),
    ) as Record<string, Record<string, number[]>>;
    const bars = expected['SYN0:1h'];
    expect([...(table.columns['timestamp'] ?? [])]).toEqual(bars?.['timestamps']);
    expect([...(table.columns['close'] ?? [])]).toEqual(bars?.['close']);
  });
});

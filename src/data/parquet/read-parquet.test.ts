import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TradelabError } from '../../core/index.js';
import {
  encodeFileMetaData,
  encodePageHeader,
  type FileMetaData,
  type PageHeader,
  type Statistics,
} from './parquet-format.js';
import { readParquetFile, readParquetMetadata } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-parquet-read-'));
  made.push(dir);
  return dir;
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

/**
 * A one-column DOUBLE file assembled by hand from a page header and its data, to reach cases our
 * writer never produces.
 */
function handBuilt(header: PageHeader, data: Float64Array, magic = 'PAR1'): Buffer {
  const headerBytes = encodePageHeader(header);
  const dataBytes = new Uint8Array(data.buffer);
  const rows = data.length;
  const meta: FileMetaData = {
    version: 1,
    schema: [
      { name: 'schema', numChildren: 1 },
      { name: 'x', type: 'DOUBLE', repetition: 'REQUIRED' },
    ],
    numRows: rows,
    rowGroups: [
      {
        columns: [
          {
            fileOffset: 0,
            metaData: {
              type: 'DOUBLE',
              encodings: ['PLAIN'],
              pathInSchema: ['x'],
              codec: 'UNCOMPRESSED',
              numValues: rows,
              totalUncompressedSize: headerBytes.length + dataBytes.length,
              totalCompressedSize: headerBytes.length + dataBytes.length,
              dataPageOffset: 4,
            },
          },
        ],
        totalByteSize: headerBytes.length + dataBytes.length,
        numRows: rows,
      },
    ],
  };
  const footer = encodeFileMetaData(meta);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(footer.length);
  return Buffer.concat([
    Buffer.from('PAR1'),
    headerBytes,
    dataBytes,
    footer,
    length,
    Buffer.from(magic),
  ]);
}

function dataPage(values: Float64Array, statistics?: Statistics): PageHeader {
  const header: PageHeader = {
    type: 'DATA_PAGE',
    uncompressedPageSize: values.byteLength,
    compressedPageSize: values.byteLength,
    dataPageHeader: {
      numValues: values.length,
      encoding: 'PLAIN',
      definitionLevelEncoding: 'RLE',
      repetitionLevelEncoding: 'RLE',
      ...(statistics === undefined ? {} : { statistics }),
    },
  };
  return header;
}

describe('readParquetFile on files other writers could produce', () => {
  it('reads a page whose header (with large page statistics) exceeds the first read', async () => {
    const path = join(tempDir(), 'big-header.parquet');
    const values = Float64Array.from([1, 2, 3]);
    const big = new Uint8Array(3000).fill(7);
    writeFileSync(path, handBuilt(dataPage(values, { min: big, max: big }), values));
    const table = await readParquetFile(path);
    expect(table.columns['x']).toEqual(values);
  });

  it('refuses a dictionary page that the chunk metadata did not announce', async () => {
    const path = join(tempDir(), 'dict.parquet');
    const values = Float64Array.from([1, 2]);
    writeFileSync(
      path,
      handBuilt(
        {
          type: 'DICTIONARY_PAGE',
          uncompressedPageSize: 16,
          compressedPageSize: 16,
          dictionaryPageHeader: { numValues: 2, encoding: 'PLAIN' },
        },
        values,
      ),
    );
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain('column "x": dictionary-encoded');
    expect(error.hint).toContain('readParquetWithDuckDb');
  });

  it('refuses a file with an encrypted footer', async () => {
    const path = join(tempDir(), 'secret.parquet');
    const values = Float64Array.from([1]);
    writeFileSync(path, handBuilt(dataPage(values), values, 'PARE'));
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain('the footer is encrypted');
  });
});

describe('readParquetFile on damaged files', () => {
  it('says a file is not Parquet when the magic is missing', async () => {
    const path = join(tempDir(), 'not.parquet');
    writeFileSync(path, 'timestamp,open\n1,2\n');
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toContain(`"${path}" is not a valid Parquet file`);
  });

  it('detects a file cut short in the middle', async () => {
    const path = join(tempDir(), 'cut.parquet');
    await writeParquetFile(path, {
      columns: [{ name: 'x', type: 'double', values: new Float64Array(1000).fill(1) }],
    });
    const bytes = readFileSync(path);
    // Keep the footer but drop data from the middle: the page then overruns the file.
    writeFileSync(path, Buffer.concat([bytes.subarray(0, 4000), bytes.subarray(8000)]));
    const error = await errorOfAsync(readParquetFile(path));
    expect(error.message).toContain('is not a valid Parquet file');
  });

  it('detects a footer that does not decode', async () => {
    const path = join(tempDir(), 'garbled.parquet');
    const values = Float64Array.from([1, 2]);
    const bytes = handBuilt(dataPage(values), values);
    // Overwrite the footer's first bytes with an invalid compact type (13).
    const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
    bytes.fill(0x1d, footerStart, footerStart + 4);
    writeFileSync(path, bytes);
    const error = await errorOfAsync(readParquetMetadata(path));
    expect(error.message).toContain('the footer could not be decoded');
  });
});

describe('readParquetMetadata', () => {
  it('reports rows, schema, key-value metadata and statistics without reading data', async () => {
    const path = join(tempDir(), 'meta.parquet');
    await writeParquetFile(
      path,
      {
        columns: [
          { name: 't', type: 'timestamp-ms', values: Float64Array.from([0, 60_000, 120_000]) },
          { name: 'v', type: 'float', values: Float32Array.from([3, 1, 2]) },
        ],
        metadata: { 'tradelab.symbol': 'SPY' },
      },
      { rowsPerGroup: 2 },
    );
    const meta = await readParquetMetadata(path);
    expect(meta).toMatchObject({
      path,
      numRows: 3,
      createdBy: 'tradelab',
      metadata: { 'tradelab.symbol': 'SPY' },
      fastReaderProblems: [],
    });
    expect(meta.columns).toEqual([
      {
        name: 't',
        physicalType: 'INT64',
        repetition: 'REQUIRED',
        type: 'timestamp-ms',
        annotation: 'TIMESTAMP(MILLIS, UTC)',
      },
      { name: 'v', physicalType: 'FLOAT', repetition: 'REQUIRED', type: 'float' },
    ]);
    expect(meta.rowGroups.map((g) => g.numRows)).toEqual([2, 1]);
    expect(meta.rowGroups[0]?.columns).toEqual([
      {
        column: 't',
        codec: 'UNCOMPRESSED',
        encodings: ['PLAIN'],
        compressedBytes: expect.any(Number) as number,
        min: 0,
        max: 60_000,
        nullCount: 0,
      },
      {
        column: 'v',
        codec: 'UNCOMPRESSED',
        encodings: ['PLAIN'],
        compressedBytes: expect.any(Number) as number,
        min: 1,
        max: 3,
        nullCount: 0,
        nanCount: 0,
      },
    ]);
  });
});

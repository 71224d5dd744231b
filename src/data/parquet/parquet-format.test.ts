import { describe, expect, it } from 'vitest';
import {
  decodeFileMetaData,
  decodePageHeader,
  encodeFileMetaData,
  encodePageHeader,
  type FileMetaData,
  type PageHeader,
} from './parquet-format.js';

describe('Parquet metadata encoding', () => {
  it('round-trips a footer with a TIMESTAMP(MILLIS, UTC) column, statistics and key-value pairs', () => {
    // 20 columns, so the schema, column and column-order lists need the long list header.
    const names = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const meta: FileMetaData = {
      version: 1,
      schema: [
        { name: 'schema', numChildren: names.length + 1 },
        {
          name: 'ts',
          type: 'INT64',
          repetition: 'REQUIRED',
          convertedType: 'TIMESTAMP_MILLIS',
          logicalType: { kind: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
        ...names.map((name) => ({
          name,
          type: 'DOUBLE' as const,
          repetition: 'REQUIRED' as const,
        })),
      ],
      numRows: 3_000_000_000,
      rowGroups: [
        {
          columns: ['ts', ...names].map((name, i) => ({
            fileOffset: 0,
            metaData: {
              type: i === 0 ? ('INT64' as const) : ('DOUBLE' as const),
              encodings: ['PLAIN' as const],
              pathInSchema: [name],
              codec: 'UNCOMPRESSED' as const,
              numValues: 3_000_000_000,
              totalUncompressedSize: 24_000_000_020,
              totalCompressedSize: 24_000_000_020,
              dataPageOffset: 4 + i * 24_000_000_020,
              statistics: {
                nullCount: 0,
                nanCount: 2,
                minValue: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
                maxValue: Uint8Array.from([8, 7, 6, 5, 4, 3, 2, 1]),
                isMinValueExact: true,
                isMaxValueExact: false,
              },
            },
          })),
          totalByteSize: 500_000_000_000,
          numRows: 3_000_000_000,
          fileOffset: 4,
          totalCompressedSize: 500_000_000_000,
          ordinal: 0,
        },
      ],
      keyValueMetadata: [{ key: 'tradelab.symbol', value: 'BTCUSDT' }, { key: 'no-value' }],
      createdBy: 'tradelab',
      columnOrders: ['TYPE_ORDER', ...names.map(() => 'TYPE_ORDER' as const)],
    };
    expect(decodeFileMetaData(encodeFileMetaData(meta))).toEqual(meta);
  });

  it('round-trips a data page header and reports how many bytes it took', () => {
    const header: PageHeader = {
      type: 'DATA_PAGE',
      uncompressedPageSize: 8_000_000,
      compressedPageSize: 8_000_000,
      dataPageHeader: {
        numValues: 1_000_000,
        encoding: 'PLAIN',
        definitionLevelEncoding: 'RLE',
        repetitionLevelEncoding: 'RLE',
      },
    };
    const bytes = encodePageHeader(header);
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes);
    expect(decodePageHeader(padded)).toEqual({ header, length: bytes.length });
  });

  it('keeps enum values it does not know as UNKNOWN_n instead of failing', () => {
    const header: PageHeader = {
      type: 'UNKNOWN_9',
      uncompressedPageSize: 1,
      compressedPageSize: 1,
      dataPageHeader: {
        numValues: 1,
        encoding: 'UNKNOWN_42',
        definitionLevelEncoding: 'RLE',
        repetitionLevelEncoding: 'RLE',
      },
    };
    expect(decodePageHeader(encodePageHeader(header)).header).toEqual(header);
  });
});

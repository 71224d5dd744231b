/**
 * The Parquet metadata structures tradelab reads and writes, and their Thrift compact encoding.
 * Field ids follow apache/parquet-format src/main/thrift/parquet.thrift; only the fields we use are
 * modelled, and the decoder skips the rest.
 */
import { endianness } from 'node:os';
import { TradelabError } from '../../core/index.js';
import { COMPACT_TYPE, CompactReader, CompactWriter, ThriftStruct } from './thrift-compact.js';

/** The 4-byte magic at both ends of a Parquet file. */
export const PARQUET_MAGIC = 'PAR1';
/** The magic of a file whose footer is encrypted. */
export const PARQUET_ENCRYPTED_MAGIC = 'PARE';

/** Throws unless the CPU is little-endian: typed-array bytes are read and written as Parquet's LE. */
export function assertLittleEndian(): void {
  if (endianness() !== 'LE') {
    throw new TradelabError('INTERNAL', 'the Parquet codec needs a little-endian CPU');
  }
}

/** A value of a Thrift enum this code does not know (a newer format version). */
export type UnknownEnum = `UNKNOWN_${number}`;

/** Parquet `Type`, indexed by its Thrift value. */
export const PHYSICAL_TYPES = [
  'BOOLEAN',
  'INT32',
  'INT64',
  'INT96',
  'FLOAT',
  'DOUBLE',
  'BYTE_ARRAY',
  'FIXED_LEN_BYTE_ARRAY',
] as const;
/** A Parquet physical type. */
export type PhysicalType = (typeof PHYSICAL_TYPES)[number] | UnknownEnum;

/** Parquet `FieldRepetitionType`, indexed by its Thrift value. */
export const REPETITIONS = ['REQUIRED', 'OPTIONAL', 'REPEATED'] as const;
/** A field repetition. */
export type Repetition = (typeof REPETITIONS)[number] | UnknownEnum;

/** Parquet `Encoding`, indexed by its Thrift value (1 was GROUP_VAR_INT, long removed). */
export const ENCODINGS = [
  'PLAIN',
  'GROUP_VAR_INT',
  'PLAIN_DICTIONARY',
  'RLE',
  'BIT_PACKED',
  'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY',
  'DELTA_BYTE_ARRAY',
  'RLE_DICTIONARY',
  'BYTE_STREAM_SPLIT',
  'ALP',
] as const;
/** A page encoding. */
export type Encoding = (typeof ENCODINGS)[number] | UnknownEnum;

/** Parquet `CompressionCodec`, indexed by its Thrift value. */
export const CODECS = [
  'UNCOMPRESSED',
  'SNAPPY',
  'GZIP',
  'LZO',
  'BROTLI',
  'LZ4',
  'ZSTD',
  'LZ4_RAW',
] as const;
/** A compression codec. */
export type Codec = (typeof CODECS)[number] | UnknownEnum;

/** Parquet `PageType`, indexed by its Thrift value. */
export const PAGE_TYPES = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'] as const;
/** A page type. */
export type PageType = (typeof PAGE_TYPES)[number] | UnknownEnum;

/** Parquet `ConvertedType`, indexed by its Thrift value. */
export const CONVERTED_TYPES = [
  'UTF8',
  'MAP',
  'MAP_KEY_VALUE',
  'LIST',
  'ENUM',
  'DECIMAL',
  'DATE',
  'TIME_MILLIS',
  'TIME_MICROS',
  'TIMESTAMP_MILLIS',
  'TIMESTAMP_MICROS',
  'UINT_8',
  'UINT_16',
  'UINT_32',
  'UINT_64',
  'INT_8',
  'INT_16',
  'INT_32',
  'INT_64',
  'JSON',
  'BSON',
  'INTERVAL',
] as const;
/** A legacy converted type. */
export type ConvertedType = (typeof CONVERTED_TYPES)[number] | UnknownEnum;

/** The members of the `LogicalType` union, by field id (gaps are unused ids). */
const LOGICAL_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'STRING',
  2: 'MAP',
  3: 'LIST',
  4: 'ENUM',
  5: 'DECIMAL',
  6: 'DATE',
  7: 'TIME',
  8: 'TIMESTAMP',
  10: 'INTEGER',
  11: 'UNKNOWN',
  12: 'JSON',
  13: 'BSON',
  14: 'UUID',
  15: 'FLOAT16',
  16: 'VARIANT',
  17: 'GEOMETRY',
  18: 'GEOGRAPHY',
  19: 'FILE',
};

/** The `TimeUnit` union members, by field id. */
const TIME_UNITS = { 1: 'MILLIS', 2: 'MICROS', 3: 'NANOS' } as const;
/** A timestamp unit. */
export type TimeUnit = (typeof TIME_UNITS)[keyof typeof TIME_UNITS];

/** A logical type annotation: timestamps modelled, the rest named only. */
export type LogicalType =
  { kind: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: TimeUnit } | { kind: 'OTHER'; name: string };

/** Parquet `SchemaElement`. */
export interface SchemaElement {
  type?: PhysicalType;
  typeLength?: number;
  repetition?: Repetition;
  name: string;
  numChildren?: number;
  convertedType?: ConvertedType;
  scale?: number;
  precision?: number;
  fieldId?: number;
  logicalType?: LogicalType;
}

/** Parquet `Statistics`; min/max are PLAIN-encoded values. */
export interface Statistics {
  /** Deprecated signed-order max. */
  max?: Uint8Array;
  /** Deprecated signed-order min. */
  min?: Uint8Array;
  nullCount?: number;
  distinctCount?: number;
  maxValue?: Uint8Array;
  minValue?: Uint8Array;
  isMaxValueExact?: boolean;
  isMinValueExact?: boolean;
  nanCount?: number;
}

/** Parquet `KeyValue`. */
export interface KeyValue {
  key: string;
  value?: string;
}

/** Parquet `ColumnMetaData`. */
export interface ColumnMetaData {
  type: PhysicalType;
  encodings: Encoding[];
  pathInSchema: string[];
  codec: Codec;
  numValues: number;
  totalUncompressedSize: number;
  totalCompressedSize: number;
  keyValueMetadata?: KeyValue[];
  dataPageOffset: number;
  indexPageOffset?: number;
  dictionaryPageOffset?: number;
  statistics?: Statistics;
}

/** Parquet `ColumnChunk`. */
export interface ColumnChunk {
  filePath?: string;
  fileOffset: number;
  metaData?: ColumnMetaData;
  /** Whether the chunk carries crypto metadata (an encrypted column). */
  encrypted?: boolean;
}

/** Parquet `RowGroup`. */
export interface RowGroup {
  columns: ColumnChunk[];
  totalByteSize: number;
  numRows: number;
  fileOffset?: number;
  totalCompressedSize?: number;
  ordinal?: number;
}

/** A `ColumnOrder` union member. */
export type ColumnOrder =
  'TYPE_ORDER' | 'IEEE_754_TOTAL_ORDER' | 'INT96_TIMESTAMP_ORDER' | UnknownEnum;
const COLUMN_ORDER_IDS: Readonly<Record<number, ColumnOrder>> = {
  1: 'TYPE_ORDER',
  2: 'IEEE_754_TOTAL_ORDER',
  3: 'INT96_TIMESTAMP_ORDER',
};

/** Parquet `FileMetaData`. */
export interface FileMetaData {
  version: number;
  schema: SchemaElement[];
  numRows: number;
  rowGroups: RowGroup[];
  keyValueMetadata?: KeyValue[];
  createdBy?: string;
  columnOrders?: ColumnOrder[];
  /** Whether the footer names an encryption algorithm (plaintext-footer encrypted file). */
  encrypted?: boolean;
}

/** Parquet `DataPageHeader`. */
export interface DataPageHeader {
  numValues: number;
  encoding: Encoding;
  definitionLevelEncoding: Encoding;
  repetitionLevelEncoding: Encoding;
  statistics?: Statistics;
}

/** Parquet `DictionaryPageHeader`. */
export interface DictionaryPageHeader {
  numValues: number;
  encoding: Encoding;
  isSorted?: boolean;
}

/** Parquet `PageHeader` (index pages and v2 headers are recognised by `type` only). */
export interface PageHeader {
  type: PageType;
  uncompressedPageSize: number;
  compressedPageSize: number;
  crc?: number;
  dataPageHeader?: DataPageHeader;
  dictionaryPageHeader?: DictionaryPageHeader;
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** The Thrift compact bytes of a footer. */
export function encodeFileMetaData(meta: FileMetaData): Uint8Array {
  const w = new CompactWriter();
  w.structBegin();
  w.i32Field(1, meta.version);
  w.listField(2, COMPACT_TYPE.STRUCT, meta.schema, (_, element) => {
    w.structElement(() => {
      writeSchemaElement(w, element);
    });
  });
  w.i64Field(3, meta.numRows);
  w.listField(4, COMPACT_TYPE.STRUCT, meta.rowGroups, (_, group) => {
    w.structElement(() => {
      writeRowGroup(w, group);
    });
  });
  if (meta.keyValueMetadata !== undefined) writeKeyValues(w, 5, meta.keyValueMetadata);
  if (meta.createdBy !== undefined) w.stringField(6, meta.createdBy);
  if (meta.columnOrders !== undefined) {
    w.listField(7, COMPACT_TYPE.STRUCT, meta.columnOrders, (_, order) => {
      // Each member is an empty struct: a union of one field whose value is `{}`.
      w.structElement(() => {
        w.structField(enumIndex(COLUMN_ORDER_NAMES, order), noFields);
      });
    });
  }
  w.structEnd();
  return w.finish();
}

/** The Thrift compact bytes of a page header. */
export function encodePageHeader(header: PageHeader): Uint8Array {
  const w = new CompactWriter();
  w.structBegin();
  w.i32Field(1, enumIndex(PAGE_TYPES, header.type));
  w.i32Field(2, header.uncompressedPageSize);
  w.i32Field(3, header.compressedPageSize);
  if (header.crc !== undefined) w.i32Field(4, header.crc);
  const data = header.dataPageHeader;
  if (data !== undefined) {
    w.structField(5, () => {
      w.i32Field(1, data.numValues);
      w.i32Field(2, enumIndex(ENCODINGS, data.encoding));
      w.i32Field(3, enumIndex(ENCODINGS, data.definitionLevelEncoding));
      w.i32Field(4, enumIndex(ENCODINGS, data.repetitionLevelEncoding));
      if (data.statistics !== undefined) writeStatistics(w, 5, data.statistics);
    });
  }
  const dict = header.dictionaryPageHeader;
  if (dict !== undefined) {
    w.structField(7, () => {
      w.i32Field(1, dict.numValues);
      w.i32Field(2, enumIndex(ENCODINGS, dict.encoding));
      if (dict.isSorted !== undefined) w.boolField(3, dict.isSorted);
    });
  }
  w.structEnd();
  return w.finish();
}

const COLUMN_ORDER_NAMES = ['', 'TYPE_ORDER', 'IEEE_754_TOTAL_ORDER', 'INT96_TIMESTAMP_ORDER'];

function writeSchemaElement(w: CompactWriter, e: SchemaElement): void {
  if (e.type !== undefined) w.i32Field(1, enumIndex(PHYSICAL_TYPES, e.type));
  if (e.typeLength !== undefined) w.i32Field(2, e.typeLength);
  if (e.repetition !== undefined) w.i32Field(3, enumIndex(REPETITIONS, e.repetition));
  w.stringField(4, e.name);
  if (e.numChildren !== undefined) w.i32Field(5, e.numChildren);
  if (e.convertedType !== undefined) w.i32Field(6, enumIndex(CONVERTED_TYPES, e.convertedType));
  if (e.scale !== undefined) w.i32Field(7, e.scale);
  if (e.precision !== undefined) w.i32Field(8, e.precision);
  if (e.fieldId !== undefined) w.i32Field(9, e.fieldId);
  const logical = e.logicalType;
  if (logical !== undefined) {
    if (logical.kind !== 'TIMESTAMP') {
      throw new TradelabError('INTERNAL', `cannot write logical type ${logical.name}`);
    }
    w.structField(10, () => {
      w.structField(8, () => {
        w.boolField(1, logical.isAdjustedToUTC);
        w.structField(2, () => {
          w.structField(timeUnitId(logical.unit), noFields);
        });
      });
    });
  }
}

function writeRowGroup(w: CompactWriter, g: RowGroup): void {
  w.listField(1, COMPACT_TYPE.STRUCT, g.columns, (_, chunk) => {
    w.structElement(() => {
      writeColumnChunk(w, chunk);
    });
  });
  w.i64Field(2, g.totalByteSize);
  w.i64Field(3, g.numRows);
  if (g.fileOffset !== undefined) w.i64Field(5, g.fileOffset);
  if (g.totalCompressedSize !== undefined) w.i64Field(6, g.totalCompressedSize);
  if (g.ordinal !== undefined) w.i16Field(7, g.ordinal);
}

function writeColumnChunk(w: CompactWriter, c: ColumnChunk): void {
  if (c.filePath !== undefined) w.stringField(1, c.filePath);
  w.i64Field(2, c.fileOffset);
  const m = c.metaData;
  if (m === undefined) return;
  w.structField(3, () => {
    w.i32Field(1, enumIndex(PHYSICAL_TYPES, m.type));
    w.listField(2, COMPACT_TYPE.I32, m.encodings, (_, e) => {
      w.i32(enumIndex(ENCODINGS, e));
    });
    w.listField(3, COMPACT_TYPE.BINARY, m.pathInSchema, (_, p) => {
      w.string(p);
    });
    w.i32Field(4, enumIndex(CODECS, m.codec));
    w.i64Field(5, m.numValues);
    w.i64Field(6, m.totalUncompressedSize);
    w.i64Field(7, m.totalCompressedSize);
    if (m.keyValueMetadata !== undefined) writeKeyValues(w, 8, m.keyValueMetadata);
    w.i64Field(9, m.dataPageOffset);
    if (m.indexPageOffset !== undefined) w.i64Field(10, m.indexPageOffset);
    if (m.dictionaryPageOffset !== undefined) w.i64Field(11, m.dictionaryPageOffset);
    if (m.statistics !== undefined) writeStatistics(w, 12, m.statistics);
  });
}

function writeStatistics(w: CompactWriter, id: number, s: Statistics): void {
  w.structField(id, () => {
    if (s.max !== undefined) w.binaryField(1, s.max);
    if (s.min !== undefined) w.binaryField(2, s.min);
    if (s.nullCount !== undefined) w.i64Field(3, s.nullCount);
    if (s.distinctCount !== undefined) w.i64Field(4, s.distinctCount);
    if (s.maxValue !== undefined) w.binaryField(5, s.maxValue);
    if (s.minValue !== undefined) w.binaryField(6, s.minValue);
    if (s.isMaxValueExact !== undefined) w.boolField(7, s.isMaxValueExact);
    if (s.isMinValueExact !== undefined) w.boolField(8, s.isMinValueExact);
    if (s.nanCount !== undefined) w.i64Field(9, s.nanCount);
  });
}

function writeKeyValues(w: CompactWriter, id: number, pairs: readonly KeyValue[]): void {
  w.listField(id, COMPACT_TYPE.STRUCT, pairs, (_, kv) => {
    w.structElement(() => {
      w.stringField(1, kv.key);
      if (kv.value !== undefined) w.stringField(2, kv.value);
    });
  });
}

/** The body of an empty struct (union members like MILLIS or TYPE_ORDER carry no fields). */
function noFields(): void {
  // Nothing to write: structField adds the stop byte.
}

function timeUnitId(unit: TimeUnit): number {
  return unit === 'MILLIS' ? 1 : unit === 'MICROS' ? 2 : 3;
}

/** The Thrift value of an enum name (`UNKNOWN_n` maps back to n). */
function enumIndex(names: readonly string[], name: string): number {
  const index = names.indexOf(name);
  if (index >= 0) return index;
  const match = /^UNKNOWN_(\d+)$/.exec(name);
  if (match?.[1] !== undefined) return Number(match[1]);
  throw new TradelabError('INTERNAL', `unknown Parquet enum value "${name}"`);
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Decodes a footer (the bytes between the data and the 4-byte length). */
export function decodeFileMetaData(bytes: Uint8Array): FileMetaData {
  const s = new CompactReader(bytes).readStruct();
  const meta: FileMetaData = {
    version: req(s.int(1), 'FileMetaData.version'),
    schema: s.structList(2).map(readSchemaElement),
    numRows: req(s.i64(3), 'FileMetaData.num_rows'),
    rowGroups: s.structList(4).map(readRowGroup),
  };
  if (s.has(5)) meta.keyValueMetadata = s.structList(5).map(readKeyValue);
  const createdBy = s.string(6);
  if (createdBy !== undefined) meta.createdBy = createdBy;
  if (s.has(7)) meta.columnOrders = s.structList(7).map(readColumnOrder);
  if (s.has(8)) meta.encrypted = true;
  return meta;
}

/** Decodes a page header at the start of `bytes`; `length` is how many bytes it took. */
export function decodePageHeader(bytes: Uint8Array): { header: PageHeader; length: number } {
  const reader = new CompactReader(bytes);
  const s = reader.readStruct();
  const header: PageHeader = {
    type: enumName(PAGE_TYPES, req(s.int(1), 'PageHeader.type')),
    uncompressedPageSize: req(s.int(2), 'PageHeader.uncompressed_page_size'),
    compressedPageSize: req(s.int(3), 'PageHeader.compressed_page_size'),
  };
  const crc = s.int(4);
  if (crc !== undefined) header.crc = crc;
  const data = s.struct(5);
  if (data !== undefined) {
    header.dataPageHeader = {
      numValues: req(data.int(1), 'DataPageHeader.num_values'),
      encoding: enumName(ENCODINGS, req(data.int(2), 'DataPageHeader.encoding')),
      definitionLevelEncoding: enumName(ENCODINGS, req(data.int(3), 'definition_level_encoding')),
      repetitionLevelEncoding: enumName(ENCODINGS, req(data.int(4), 'repetition_level_encoding')),
    };
    const stats = data.struct(5);
    if (stats !== undefined) header.dataPageHeader.statistics = readStatistics(stats);
  }
  const dict = s.struct(7);
  if (dict !== undefined) {
    header.dictionaryPageHeader = {
      numValues: req(dict.int(1), 'DictionaryPageHeader.num_values'),
      encoding: enumName(ENCODINGS, req(dict.int(2), 'DictionaryPageHeader.encoding')),
    };
    const sorted = dict.bool(3);
    if (sorted !== undefined) header.dictionaryPageHeader.isSorted = sorted;
  }
  return { header, length: reader.position };
}

function readSchemaElement(s: ThriftStruct): SchemaElement {
  const e: SchemaElement = { name: req(s.string(4), 'SchemaElement.name') };
  const type = s.int(1);
  if (type !== undefined) e.type = enumName(PHYSICAL_TYPES, type);
  const typeLength = s.int(2);
  if (typeLength !== undefined) e.typeLength = typeLength;
  const repetition = s.int(3);
  if (repetition !== undefined) e.repetition = enumName(REPETITIONS, repetition);
  const numChildren = s.int(5);
  if (numChildren !== undefined) e.numChildren = numChildren;
  const converted = s.int(6);
  if (converted !== undefined) e.convertedType = enumName(CONVERTED_TYPES, converted);
  const scale = s.int(7);
  if (scale !== undefined) e.scale = scale;
  const precision = s.int(8);
  if (precision !== undefined) e.precision = precision;
  const fieldId = s.int(9);
  if (fieldId !== undefined) e.fieldId = fieldId;
  const logical = s.struct(10);
  if (logical !== undefined) e.logicalType = readLogicalType(logical);
  return e;
}

function readLogicalType(s: ThriftStruct): LogicalType {
  const [id] = s.fields.keys();
  const name = id === undefined ? 'EMPTY' : (LOGICAL_TYPE_NAMES[id] ?? `UNKNOWN_${id}`);
  const timestamp = s.struct(8);
  if (timestamp === undefined) return { kind: 'OTHER', name };
  const unit = timestamp.struct(2);
  const [unitId] = unit?.fields.keys() ?? [];
  const unitName = unitId === 1 || unitId === 2 || unitId === 3 ? TIME_UNITS[unitId] : undefined;
  if (unitName === undefined) return { kind: 'OTHER', name: `TIMESTAMP(unit ${unitId ?? '?'})` };
  return {
    kind: 'TIMESTAMP',
    isAdjustedToUTC: req(timestamp.bool(1), 'TimestampType.isAdjustedToUTC'),
    unit: unitName,
  };
}

function readRowGroup(s: ThriftStruct): RowGroup {
  const g: RowGroup = {
    columns: s.structList(1).map(readColumnChunk),
    totalByteSize: req(s.i64(2), 'RowGroup.total_byte_size'),
    numRows: req(s.i64(3), 'RowGroup.num_rows'),
  };
  const fileOffset = s.i64(5);
  if (fileOffset !== undefined) g.fileOffset = fileOffset;
  const compressed = s.i64(6);
  if (compressed !== undefined) g.totalCompressedSize = compressed;
  const ordinal = s.int(7);
  if (ordinal !== undefined) g.ordinal = ordinal;
  return g;
}

function readColumnChunk(s: ThriftStruct): ColumnChunk {
  // file_offset is required but some writers leave it out; it is deprecated anyway.
  const c: ColumnChunk = { fileOffset: s.i64(2) ?? 0 };
  const filePath = s.string(1);
  if (filePath !== undefined) c.filePath = filePath;
  const m = s.struct(3);
  if (m !== undefined) c.metaData = readColumnMetaData(m);
  if (s.has(8) || s.has(9)) c.encrypted = true;
  return c;
}

function readColumnMetaData(s: ThriftStruct): ColumnMetaData {
  const m: ColumnMetaData = {
    type: enumName(PHYSICAL_TYPES, req(s.int(1), 'ColumnMetaData.type')),
    encodings: s.intList(2).map((e) => enumName(ENCODINGS, e)),
    pathInSchema: s.stringList(3),
    codec: enumName(CODECS, req(s.int(4), 'ColumnMetaData.codec')),
    numValues: req(s.i64(5), 'ColumnMetaData.num_values'),
    totalUncompressedSize: req(s.i64(6), 'ColumnMetaData.total_uncompressed_size'),
    totalCompressedSize: req(s.i64(7), 'ColumnMetaData.total_compressed_size'),
    dataPageOffset: req(s.i64(9), 'ColumnMetaData.data_page_offset'),
  };
  if (s.has(8)) m.keyValueMetadata = s.structList(8).map(readKeyValue);
  const indexOffset = s.i64(10);
  if (indexOffset !== undefined) m.indexPageOffset = indexOffset;
  const dictOffset = s.i64(11);
  if (dictOffset !== undefined) m.dictionaryPageOffset = dictOffset;
  const stats = s.struct(12);
  if (stats !== undefined) m.statistics = readStatistics(stats);
  return m;
}

function readStatistics(s: ThriftStruct): Statistics {
  const out: Statistics = {};
  const max = s.binary(1);
  if (max !== undefined) out.max = max;
  const min = s.binary(2);
  if (min !== undefined) out.min = min;
  const nullCount = s.i64(3);
  if (nullCount !== undefined) out.nullCount = nullCount;
  const distinct = s.i64(4);
  if (distinct !== undefined) out.distinctCount = distinct;
  const maxValue = s.binary(5);
  if (maxValue !== undefined) out.maxValue = maxValue;
  const minValue = s.binary(6);
  if (minValue !== undefined) out.minValue = minValue;
  const maxExact = s.bool(7);
  if (maxExact !== undefined) out.isMaxValueExact = maxExact;
  const minExact = s.bool(8);
  if (minExact !== undefined) out.isMinValueExact = minExact;
  const nanCount = s.i64(9);
  if (nanCount !== undefined) out.nanCount = nanCount;
  return out;
}

function readKeyValue(s: ThriftStruct): KeyValue {
  const kv: KeyValue = { key: req(s.string(1), 'KeyValue.key') };
  const value = s.string(2);
  if (value !== undefined) kv.value = value;
  return kv;
}

function readColumnOrder(s: ThriftStruct): ColumnOrder {
  const [id] = s.fields.keys();
  return COLUMN_ORDER_IDS[id ?? 0] ?? `UNKNOWN_${id ?? 0}`;
}

function enumName<T extends string>(names: readonly T[], value: number): T | UnknownEnum {
  return names[value] ?? `UNKNOWN_${value}`;
}

function req<T>(value: T | undefined, field: string): T {
  if (value === undefined) {
    throw new TradelabError('DATA_INVALID', `Parquet metadata lacks required field ${field}`);
  }
  return value;
}

/**
 * A fast reader for the Parquet files tradelab writes: flat numeric columns, PLAIN, uncompressed,
 * REQUIRED. Each page is read straight into the output typed array (one copy, kernel to array);
 * int64 columns are then converted to numbers in place. Anything else (compression, dictionaries,
 * nulls, nesting) is refused with an error naming the feature, so callers fall back to
 * {@link readParquetWithDuckDb}.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { TradelabError, closestMatch } from '../../core/index.js';
import {
  PARQUET_ENCRYPTED_MAGIC,
  PARQUET_MAGIC,
  assertLittleEndian,
  decodeFileMetaData,
  decodePageHeader,
  type Codec,
  type ColumnChunk,
  type Encoding,
  type FileMetaData,
  type PhysicalType,
  type Repetition,
  type SchemaElement,
  type Statistics,
} from './parquet-format.js';
import type { ParquetColumnType, ParquetTable } from './parquet-table.js';
import { isThriftTruncated } from './thrift-compact.js';

/** Options for {@link readParquetFile}. */
export interface ReadParquetOptions {
  /** Columns to read, in this order. Default: every column, in file order. */
  columns?: readonly string[];
}

/** One leaf column of a Parquet schema. */
export interface ParquetColumnInfo {
  /** The column name (nested paths joined with "."). */
  name: string;
  physicalType: PhysicalType;
  repetition: Repetition;
  /** The tradelab type, when the column is one {@link readParquetFile} can return. */
  type?: ParquetColumnType;
  /** The logical or converted type annotation, e.g. `TIMESTAMP(MILLIS, UTC)`, if any. */
  annotation?: string;
}

/** Statistics of one column chunk, decoded for numeric columns. */
export interface ParquetChunkInfo {
  column: string;
  codec: Codec;
  encodings: Encoding[];
  /** Bytes on disk. */
  compressedBytes: number;
  /** Lower bound, in the stored unit (ms for `timestamp-ms`); absent when not written. */
  min?: number;
  /** Upper bound, in the stored unit; absent when not written. */
  max?: number;
  nullCount?: number;
  nanCount?: number;
}

/** One row group's size and per-column statistics. */
export interface ParquetRowGroupInfo {
  numRows: number;
  columns: ParquetChunkInfo[];
}

/** What {@link readParquetMetadata} reports, without reading any data. */
export interface ParquetFileInfo {
  path: string;
  numRows: number;
  createdBy?: string;
  /** Footer key-value metadata (a key without value maps to ""). */
  metadata: Record<string, string>;
  columns: ParquetColumnInfo[];
  rowGroups: ParquetRowGroupInfo[];
  /** Why {@link readParquetFile} cannot read the file; empty when it can. */
  fastReaderProblems: string[];
}

// Footer reads start with this many bytes from the end, enough for most footers in one read.
const TAIL_READ_BYTES = 64 * 1024;
// First guess at a page header's size; ours are ~20 bytes, foreign ones with statistics larger.
const PAGE_HEADER_GUESS = 256;
const TWO_POW_32 = 4294967296;
const MAGIC_BYTES = new TextEncoder().encode(PARQUET_MAGIC);
const ENCRYPTED_MAGIC_BYTES = new TextEncoder().encode(PARQUET_ENCRYPTED_MAGIC);
// Column chunks read at once: the kernel copies run on libuv's pool (4 threads by default), so a
// few in flight use spare cores while the main thread converts timestamps.
const READ_CONCURRENCY = 4;
const LEVEL_ENCODINGS: readonly Encoding[] = ['RLE', 'BIT_PACKED'];

/** Reads a Parquet file written by {@link writeParquetFile} (or any flat PLAIN/uncompressed one). */
export async function readParquetFile(
  path: string,
  options: ReadParquetOptions = {},
): Promise<ParquetTable> {
  assertLittleEndian();
  const handle = await open(path, 'r');
  try {
    const { meta, size } = await readFooter(handle, path);
    const leaves = leafColumns(meta.schema, path);
    const selected = selectColumns(path, leaves, options.columns);
    const problems = fastReaderProblems(meta, leaves, selected);
    if (problems.length > 0) throw unsupported(path, problems);

    const numRows = meta.numRows;
    // PLAIN values take at least 4 bytes each; a larger claim is corrupt, not worth allocating.
    if (selected.length > 0 && numRows * 4 > size) {
      throw corrupt(path, `the footer claims ${numRows} rows, more than ${size} bytes can hold`);
    }
    const outputs = selected.map((leaf) =>
      leaf.info.type === 'float' ? new Float32Array(numRows) : new Float64Array(numRows),
    );
    const tasks: (() => Promise<void>)[] = [];
    let rowOffset = 0;
    for (const group of meta.rowGroups) {
      const groupOffset = rowOffset;
      for (const [k, leaf] of selected.entries()) {
        const chunk = group.columns[leaf.index];
        const output = outputs[k];
        if (chunk?.metaData === undefined || output === undefined) {
          throw corrupt(path, `row group lacks column "${leaf.info.name}"`);
        }
        tasks.push(() =>
          readChunk(handle, path, leaf.info, chunk, group.numRows, output, groupOffset),
        );
      }
      rowOffset += group.numRows;
    }
    await runConcurrently(tasks, READ_CONCURRENCY);
    return {
      numRows,
      columns: Object.fromEntries(
        selected.map((leaf, k) => [leaf.info.name, outputs[k]]),
      ) as Record<string, Float64Array | Float32Array>,
      metadata: keyValueRecord(meta),
    };
  } finally {
    await handle.close();
  }
}

/** Reads a Parquet file's footer: row count, schema, key-value metadata, statistics. */
export async function readParquetMetadata(path: string): Promise<ParquetFileInfo> {
  const handle = await open(path, 'r');
  try {
    const { meta } = await readFooter(handle, path);
    const leaves = leafColumns(meta.schema, path);
    const info: ParquetFileInfo = {
      path,
      numRows: meta.numRows,
      metadata: keyValueRecord(meta),
      columns: leaves.map((leaf) => leaf.info),
      rowGroups: meta.rowGroups.map((group) => ({
        numRows: group.numRows,
        columns: group.columns.map((chunk, i) => chunkInfo(chunk, leaves[i])),
      })),
      fastReaderProblems: fastReaderProblems(meta, leaves, leaves),
    };
    if (meta.createdBy !== undefined) info.createdBy = meta.createdBy;
    return info;
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Footer and schema

async function readFooter(
  handle: FileHandle,
  path: string,
): Promise<{ meta: FileMetaData; size: number }> {
  const { size } = await handle.stat();
  if (size < 12) throw corrupt(path, `only ${size} bytes, too small for a Parquet file`);
  const head = await readAt(handle, path, 0, 4);
  const tailLength = Math.min(size, TAIL_READ_BYTES);
  const tail = await readAt(handle, path, size - tailLength, tailLength);
  const magic = tail.subarray(tailLength - 4);
  if (sameBytes(magic, ENCRYPTED_MAGIC_BYTES)) {
    throw unsupported(path, ['the footer is encrypted']);
  }
  if (!sameBytes(magic, MAGIC_BYTES) || !sameBytes(head, MAGIC_BYTES)) {
    throw corrupt(path, 'the PAR1 magic is missing at the start or end of the file');
  }
  const footerLength = new DataView(tail.buffer, tail.byteOffset).getUint32(tailLength - 8, true);
  if (footerLength + 12 > size) {
    throw corrupt(path, `footer length ${footerLength} exceeds the file size ${size}`);
  }
  const footer =
    footerLength + 8 <= tailLength
      ? tail.subarray(tailLength - 8 - footerLength, tailLength - 8)
      : await readAt(handle, path, size - 8 - footerLength, footerLength);
  let meta: FileMetaData;
  try {
    meta = decodeFileMetaData(footer);
  } catch (error) {
    throw corrupt(path, `the footer could not be decoded: ${(error as Error).message}`, error);
  }
  if (meta.encrypted === true) throw unsupported(path, ['the columns are encrypted']);
  return { meta, size };
}

/** A leaf column and its position among the leaves (= its index in each row group). */
interface Leaf {
  index: number;
  info: ParquetColumnInfo;
  nested: boolean;
}

function leafColumns(schema: readonly SchemaElement[], path: string): Leaf[] {
  const root = schema[0];
  if (root === undefined) throw corrupt(path, 'the schema is empty');
  const leaves: Leaf[] = [];
  let next = 1;
  // Depth-first walk of the flattened schema tree.
  const walk = (count: number, prefix: string, nested: boolean): void => {
    for (let i = 0; i < count; i++) {
      const element = schema[next++];
      if (element === undefined) throw corrupt(path, 'the schema tree is truncated');
      const name = prefix === '' ? element.name : `${prefix}.${element.name}`;
      const children = element.numChildren ?? 0;
      if (children > 0) {
        walk(children, name, true);
        continue;
      }
      const info: ParquetColumnInfo = {
        name,
        physicalType: element.type ?? 'UNKNOWN_-1',
        repetition: element.repetition ?? 'REQUIRED',
      };
      const annotation = annotationOf(element);
      if (annotation !== undefined) info.annotation = annotation;
      const type = tradelabType(element);
      if (type !== undefined) info.type = type;
      leaves.push({ index: leaves.length, info, nested });
    }
  };
  walk(root.numChildren ?? 0, '', false);
  return leaves;
}

function annotationOf(e: SchemaElement): string | undefined {
  const logical = e.logicalType;
  if (logical?.kind === 'TIMESTAMP') {
    return `TIMESTAMP(${logical.unit}${logical.isAdjustedToUTC ? ', UTC' : ''})`;
  }
  if (logical !== undefined) return logical.name;
  return e.convertedType;
}

function tradelabType(e: SchemaElement): ParquetColumnType | undefined {
  if (e.type === 'DOUBLE') return 'double';
  if (e.type === 'FLOAT') return 'float';
  if (e.type !== 'INT64') return undefined;
  const logical = e.logicalType;
  if (logical?.kind === 'TIMESTAMP') return logical.unit === 'MILLIS' ? 'timestamp-ms' : undefined;
  if (logical !== undefined) return logical.name === 'INTEGER' ? 'int64' : undefined;
  if (e.convertedType === 'TIMESTAMP_MILLIS') return 'timestamp-ms';
  if (e.convertedType === undefined || e.convertedType === 'INT_64') return 'int64';
  return undefined;
}

function selectColumns(path: string, leaves: readonly Leaf[], names?: readonly string[]): Leaf[] {
  if (names === undefined) return [...leaves];
  const known = leaves.map((leaf) => leaf.info.name);
  return names.map((name) => {
    const leaf = leaves.find((l) => l.info.name === name);
    if (leaf !== undefined) return leaf;
    const guess = closestMatch(name, known);
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `Parquet file "${path}" has no column "${name}"; it has ${known.join(', ') || 'none'}${
        guess === undefined ? '' : `; did you mean "${guess}"?`
      }`,
      { details: { file: path, column: name } },
    );
  });
}

/** Features of the selected columns the fast reader does not handle, grouped by problem. */
function fastReaderProblems(
  meta: FileMetaData,
  leaves: readonly Leaf[],
  selected: readonly Leaf[],
): string[] {
  const byProblem = new Map<string, Set<string>>();
  const note = (problem: string, column: string): void => {
    const columns = byProblem.get(problem) ?? new Set<string>();
    columns.add(column);
    byProblem.set(problem, columns);
  };
  for (const leaf of selected) {
    const { info } = leaf;
    if (leaf.nested) note('nested (a group column)', info.name);
    if (info.repetition !== 'REQUIRED')
      note(`${info.repetition} (nullable or repeated)`, info.name);
    if (info.type === undefined) {
      const annotation = info.annotation === undefined ? '' : ` ${info.annotation}`;
      note(`of type ${info.physicalType}${annotation}`, info.name);
    }
  }
  for (const group of meta.rowGroups) {
    if (group.columns.length !== leaves.length) {
      note(`in a row group with ${group.columns.length} of ${leaves.length} columns`, '*');
      continue;
    }
    for (const leaf of selected) {
      const chunk = group.columns[leaf.index];
      const m = chunk?.metaData;
      const name = leaf.info.name;
      if (chunk?.encrypted === true) note('encrypted', name);
      if (chunk?.filePath !== undefined) note('stored in another file', name);
      if (m === undefined) {
        note('without column metadata in the footer', name);
        continue;
      }
      if (m.codec !== 'UNCOMPRESSED') note(`compressed with ${m.codec}`, name);
      if (m.dictionaryPageOffset !== undefined && m.dictionaryPageOffset > 0) {
        note('dictionary-encoded', name);
      }
      for (const encoding of m.encodings) {
        if (encoding === 'PLAIN' || LEVEL_ENCODINGS.includes(encoding)) continue;
        note(
          encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY'
            ? 'dictionary-encoded'
            : `encoded with ${encoding}`,
          name,
        );
      }
      if (m.numValues !== group.numRows) note('holding a different value count than rows', name);
    }
  }
  const rowSum = meta.rowGroups.reduce((sum, g) => sum + g.numRows, 0);
  if (rowSum !== meta.numRows)
    note(`with row groups summing to ${rowSum}, not ${meta.numRows}`, '*');
  return [...byProblem].map(([problem, columns]) => {
    const list = [...columns];
    const who = list.includes('*')
      ? 'the file'
      : `column${list.length > 1 ? 's' : ''} ${list.map((c) => `"${c}"`).join(', ')}`;
    return `${who}: ${problem}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Data

async function readChunk(
  handle: FileHandle,
  path: string,
  info: ParquetColumnInfo,
  chunk: ColumnChunk,
  groupRows: number,
  output: Float64Array | Float32Array,
  rowOffset: number,
): Promise<void> {
  const meta = chunk.metaData;
  if (meta === undefined) throw corrupt(path, `column "${info.name}" has no metadata`);
  const width = output.BYTES_PER_ELEMENT;
  const end = meta.dataPageOffset + meta.totalCompressedSize;
  let position = meta.dataPageOffset;
  let rows = 0;
  while (rows < groupRows) {
    if (position >= end) {
      throw corrupt(path, `column "${info.name}" ends after ${rows} of ${groupRows} rows`);
    }
    const { header, length } = await readPageHeader(handle, path, position, end);
    const data = header.dataPageHeader;
    if (header.type !== 'DATA_PAGE' || data === undefined) {
      const what =
        header.type === 'DICTIONARY_PAGE' ? 'dictionary-encoded' : `has a ${header.type} page`;
      throw unsupported(path, [`column "${info.name}": ${what}`]);
    }
    if (data.encoding !== 'PLAIN') {
      throw unsupported(path, [`column "${info.name}": encoded with ${data.encoding}`]);
    }
    const count = data.numValues;
    const bytes = count * width;
    if (header.compressedPageSize !== bytes || header.uncompressedPageSize !== bytes) {
      throw corrupt(
        path,
        `column "${info.name}" page at byte ${position} holds ${header.compressedPageSize} bytes for ${count} values`,
      );
    }
    if (rows + count > groupRows) {
      throw corrupt(
        path,
        `column "${info.name}" has more values than its row group's ${groupRows} rows`,
      );
    }
    const start = rowOffset + rows;
    const target = new Uint8Array(output.buffer, output.byteOffset + start * width, bytes);
    await readInto(handle, path, target, position + length);
    if (info.type === 'timestamp-ms' || info.type === 'int64') {
      int64ToNumbersInPlace(output as Float64Array, start, count);
    }
    rows += count;
    position += length + bytes;
  }
}

/** Rewrites little-endian int64s stored in `values[start..start+count)` as numbers. */
function int64ToNumbersInPlace(values: Float64Array, start: number, count: number): void {
  const byteOffset = values.byteOffset + start * 8;
  const words = new Int32Array(values.buffer, byteOffset, count * 2);
  const low = new Uint32Array(values.buffer, byteOffset, count * 2);
  for (let i = 0; i < count; i++) {
    // Both words are read before the slot they came from is overwritten.
    values[start + i] = (words[2 * i + 1] ?? 0) * TWO_POW_32 + (low[2 * i] ?? 0);
  }
}

/** Runs `tasks` with at most `limit` at a time; waits for all, then throws the first failure. */
async function runConcurrently(
  tasks: readonly (() => Promise<void>)[],
  limit: number,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let task = tasks[next++]; task !== undefined; task = tasks[next++]) {
      try {
        await task();
      } catch (error) {
        next = tasks.length; // stop the other workers early
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(limit, tasks.length) }, worker),
  );
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

async function readPageHeader(
  handle: FileHandle,
  path: string,
  position: number,
  end: number,
): Promise<ReturnType<typeof decodePageHeader>> {
  let size = Math.min(PAGE_HEADER_GUESS, end - position);
  for (;;) {
    const bytes = await readAt(handle, path, position, size);
    try {
      return decodePageHeader(bytes);
    } catch (error) {
      if (!isThriftTruncated(error) || size >= end - position) {
        throw corrupt(path, `page header at byte ${position}: ${(error as Error).message}`, error);
      }
      size = Math.min(size * 16, end - position);
    }
  }
}

async function readAt(
  handle: FileHandle,
  path: string,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  await readInto(handle, path, bytes, position);
  return bytes;
}

async function readInto(
  handle: FileHandle,
  path: string,
  target: Uint8Array,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < target.byteLength) {
    const { bytesRead } = await handle.read(
      target,
      done,
      target.byteLength - done,
      position + done,
    );
    if (bytesRead === 0) {
      throw corrupt(path, `the file ends at byte ${position + done}, inside data it promises`);
    }
    done += bytesRead;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function chunkInfo(chunk: ColumnChunk, leaf: Leaf | undefined): ParquetChunkInfo {
  const m = chunk.metaData;
  const info: ParquetChunkInfo = {
    column: leaf?.info.name ?? m?.pathInSchema.join('.') ?? '?',
    codec: m?.codec ?? 'UNCOMPRESSED',
    encodings: m?.encodings ?? [],
    compressedBytes: m?.totalCompressedSize ?? 0,
  };
  const stats = m?.statistics;
  if (m === undefined || stats === undefined) return info;
  const min = decodeBound(m.type, stats.minValue ?? stats.min);
  const max = decodeBound(m.type, stats.maxValue ?? stats.max);
  if (min !== undefined) info.min = min;
  if (max !== undefined) info.max = max;
  if (stats.nullCount !== undefined) info.nullCount = stats.nullCount;
  if (stats.nanCount !== undefined) info.nanCount = stats.nanCount;
  return info;
}

function decodeBound(type: PhysicalType, bytes: Statistics['min']): number | undefined {
  if (bytes === undefined) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'DOUBLE' && bytes.byteLength === 8) return view.getFloat64(0, true);
  if (type === 'FLOAT' && bytes.byteLength === 4) return view.getFloat32(0, true);
  if (type === 'INT64' && bytes.byteLength === 8) return Number(view.getBigInt64(0, true));
  if (type === 'INT32' && bytes.byteLength === 4) return view.getInt32(0, true);
  return undefined;
}

function keyValueRecord(meta: FileMetaData): Record<string, string> {
  return Object.fromEntries((meta.keyValueMetadata ?? []).map((kv) => [kv.key, kv.value ?? '']));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function unsupported(path: string, problems: readonly string[]): TradelabError {
  return new TradelabError(
    'FORMAT_UNSUPPORTED',
    `Parquet file "${path}" uses features the fast reader does not support (it reads flat, PLAIN, uncompressed, REQUIRED numeric columns): ${problems.join('; ')}`,
    {
      hint: 'read it with readParquetWithDuckDb() instead',
      details: { file: path, unsupported: [...problems] },
    },
  );
}

function corrupt(path: string, message: string, cause?: unknown): TradelabError {
  return new TradelabError('DATA_INVALID', `"${path}" is not a valid Parquet file: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
    hint: 'the file may be truncated or not Parquet at all; re-create or re-export it',
    details: { file: path, corrupt: true },
  });
}

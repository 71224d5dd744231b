/**
 * A minimal, fast Parquet writer for tradelab's own files: flat numeric columns, PLAIN encoding,
 * no compression, REQUIRED (no nulls), min/max statistics per column chunk. The output is standard
 * Parquet that DuckDB, Arrow and Spark read.
 *
 * Doubles and floats are written straight from the caller's typed array (no copy); int64 columns
 * are converted into two alternating scratch buffers, page by page. One write runs on the libuv
 * thread pool while the next page's statistics and conversion are computed. Writes are atomic: a
 * temp file in the same directory, fsync, rename.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TradelabError } from '../../core/index.js';
import {
  PARQUET_MAGIC,
  assertLittleEndian,
  encodeFileMetaData,
  encodePageHeader,
  type ColumnChunk,
  type KeyValue,
  type PhysicalType,
  type RowGroup,
  type SchemaElement,
  type Statistics,
} from './parquet-format.js';
import {
  PARQUET_COLUMN_TYPES,
  type ParquetColumnType,
  type ParquetTableInput,
} from './parquet-table.js';

/** Options for {@link writeParquetFile}. */
export interface WriteParquetOptions {
  /** Rows per row group (the unit DuckDB prunes and parallelises on). Default 1_048_576. */
  rowsPerGroup?: number;
  /** Rows per data page; a page never spans row groups. Default 1_048_576, at most 2^27. */
  rowsPerPage?: number;
  /** fsync the file before the rename and the directory after it. Default true. */
  fsync?: boolean;
}

/** What {@link writeParquetFile} wrote. */
export interface WriteParquetResult {
  /** The final path. */
  path: string;
  numRows: number;
  rowGroups: number;
  /** File size in bytes. */
  bytes: number;
}

/** The `created_by` string in every file tradelab writes. */
export const PARQUET_CREATED_BY = 'tradelab';

const DEFAULT_ROWS_PER_GROUP = 1 << 20;
const DEFAULT_ROWS_PER_PAGE = 1 << 20;
// A page's byte size is an i32; 2^27 rows of 8 bytes keeps it well inside.
const MAX_ROWS_PER_PAGE = 1 << 27;
const TWO_POW_32 = 4294967296;
const TWO_POW_63 = 9223372036854775808;

/** A column after validation: values in the array type its physical type stores. */
interface PreparedColumn {
  name: string;
  type: ParquetColumnType;
  physical: PhysicalType;
  values: Float64Array | Float32Array;
  width: 4 | 8;
}

/**
 * Writes `table` to `path` as a Parquet file, atomically: on any error the temp file is removed and
 * a file already at `path` is left untouched.
 */
export async function writeParquetFile(
  path: string,
  table: ParquetTableInput,
  options: WriteParquetOptions = {},
): Promise<WriteParquetResult> {
  assertLittleEndian();
  const { columns, numRows } = prepareColumns(path, table);
  const rowsPerGroup = positiveInt(
    path,
    'rowsPerGroup',
    options.rowsPerGroup,
    DEFAULT_ROWS_PER_GROUP,
  );
  const rowsPerPage = Math.min(
    positiveInt(path, 'rowsPerPage', options.rowsPerPage, DEFAULT_ROWS_PER_PAGE),
    rowsPerGroup,
  );
  if (rowsPerPage > MAX_ROWS_PER_PAGE) {
    throw invalid(path, `rowsPerPage ${rowsPerPage} is above the limit ${MAX_ROWS_PER_PAGE}`);
  }
  const keyValues = metadataPairs(path, table.metadata);

  const tempPath = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`);
  let handle: FileHandle | undefined = await open(tempPath, 'wx');
  try {
    const bytes = await writeContents(
      handle,
      columns,
      numRows,
      keyValues,
      rowsPerGroup,
      rowsPerPage,
    );
    if (options.fsync ?? true) await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tempPath, path);
    if (options.fsync ?? true) await syncDirectory(dirname(path));
    return { path, numRows, rowGroups: Math.ceil(numRows / rowsPerGroup), bytes };
  } catch (error) {
    // The write error is the one to report; a close failure after it adds nothing.
    if (handle !== undefined) await handle.close().catch(() => undefined);
    await removeTemp(path, tempPath, error);
    throw error;
  }
}

async function writeContents(
  handle: FileHandle,
  columns: readonly PreparedColumn[],
  numRows: number,
  keyValues: KeyValue[],
  rowsPerGroup: number,
  rowsPerPage: number,
): Promise<number> {
  const out = new PipelinedWriter(handle);
  try {
    return await writeParts(out, columns, numRows, keyValues, rowsPerGroup, rowsPerPage);
  } catch (error) {
    // Let the write in flight finish before the caller closes and removes the file.
    await out.settle();
    throw error;
  }
}

async function writeParts(
  out: PipelinedWriter,
  columns: readonly PreparedColumn[],
  numRows: number,
  keyValues: KeyValue[],
  rowsPerGroup: number,
  rowsPerPage: number,
): Promise<number> {
  await out.append([new TextEncoder().encode(PARQUET_MAGIC)]);

  // Two buffers: one may still be in flight while the next int64 page is converted into the other.
  const needsScratch = columns.some((c) => c.physical === 'INT64');
  const scratchRows = needsScratch ? Math.min(rowsPerPage, numRows) : 0;
  const scratch = [new Int32Array(scratchRows * 2), new Int32Array(scratchRows * 2)] as const;
  let scratchTurn = 0;
  const rowGroups: RowGroup[] = [];
  for (let groupStart = 0; groupStart < numRows; groupStart += rowsPerGroup) {
    const groupRows = Math.min(rowsPerGroup, numRows - groupStart);
    const groupOffset = out.position;
    const chunks: ColumnChunk[] = [];
    let groupBytes = 0;
    for (const column of columns) {
      const chunkOffset = out.position;
      const stats = new ChunkStats(column.type);
      for (let pageStart = 0; pageStart < groupRows; pageStart += rowsPerPage) {
        const rows = Math.min(rowsPerPage, groupRows - pageStart);
        const buffer = column.physical === 'INT64' ? scratch[scratchTurn++ % 2] : undefined;
        const data = pageData(column, groupStart + pageStart, rows, stats, buffer);
        const header = encodePageHeader({
          type: 'DATA_PAGE',
          uncompressedPageSize: data.byteLength,
          compressedPageSize: data.byteLength,
          dataPageHeader: {
            numValues: rows,
            encoding: 'PLAIN',
            // REQUIRED top-level columns have no levels; RLE is the conventional placeholder.
            definitionLevelEncoding: 'RLE',
            repetitionLevelEncoding: 'RLE',
          },
        });
        await out.append([header, data]);
      }
      const chunkBytes = out.position - chunkOffset;
      groupBytes += chunkBytes;
      chunks.push({
        fileOffset: 0,
        metaData: {
          type: column.physical,
          encodings: ['PLAIN'],
          pathInSchema: [column.name],
          codec: 'UNCOMPRESSED',
          numValues: groupRows,
          totalUncompressedSize: chunkBytes,
          totalCompressedSize: chunkBytes,
          dataPageOffset: chunkOffset,
          statistics: stats.toStatistics(column.physical),
        },
      });
    }
    const group: RowGroup = {
      columns: chunks,
      totalByteSize: groupBytes,
      numRows: groupRows,
      fileOffset: groupOffset,
      totalCompressedSize: groupBytes,
    };
    if (rowGroups.length <= 0x7fff) group.ordinal = rowGroups.length;
    rowGroups.push(group);
  }

  const footer = encodeFileMetaData({
    version: 1,
    schema: schemaElements(columns),
    numRows,
    rowGroups,
    ...(keyValues.length > 0 ? { keyValueMetadata: keyValues } : {}),
    createdBy: PARQUET_CREATED_BY,
    columnOrders: columns.map(() => 'TYPE_ORDER' as const),
  });
  const tail = new Uint8Array(8);
  new DataView(tail.buffer).setUint32(0, footer.byteLength, true);
  tail.set(new TextEncoder().encode(PARQUET_MAGIC), 4);
  await out.append([footer, tail]);
  await out.flush();
  return out.position;
}

/** The PLAIN bytes of one page: a view of the caller's array, or int64s in `scratch`. */
function pageData(
  column: PreparedColumn,
  start: number,
  rows: number,
  stats: ChunkStats,
  scratch: Int32Array | undefined,
): Uint8Array {
  const { values } = column;
  if (column.physical !== 'INT64') {
    stats.addFloats(values, start, rows);
    return new Uint8Array(
      values.buffer,
      values.byteOffset + start * column.width,
      rows * column.width,
    );
  }
  if (scratch === undefined) throw new TradelabError('INTERNAL', 'int64 scratch buffer missing');
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < rows; i++) {
    const v = values[start + i] ?? NaN;
    // The range test also rejects NaN; the floor test rejects fractions and ±Infinity.
    if (!(v >= -TWO_POW_63 && v < TWO_POW_63) || Math.floor(v) !== v) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `column "${column.name}" (${column.type}) row ${start + i}: ${v} is not an integer in the int64 range`,
        { hint: 'int64 and timestamp-ms columns take whole numbers (timestamps in ms)' },
      );
    }
    min = v < min ? v : min;
    max = v > max ? v : max;
    // Split into 32-bit words arithmetically: exact for every integer below 2^63, negatives too.
    const hi = Math.floor(v / TWO_POW_32);
    scratch[2 * i] = v - hi * TWO_POW_32;
    scratch[2 * i + 1] = hi;
  }
  stats.addIntRange(min, max, rows);
  return new Uint8Array(scratch.buffer, 0, rows * 8);
}

/** Min/max/NaN count of one column chunk, built page by page. */
class ChunkStats {
  private min = Infinity;
  private max = -Infinity;
  private nanCount = 0;
  private count = 0;

  constructor(private readonly type: ParquetColumnType) {}

  addFloats(values: Float64Array | Float32Array, start: number, rows: number): void {
    let min = this.min;
    let max = this.max;
    // NaN fails both comparisons, so it never becomes a bound. `v - v` is NaN only for NaN and
    // ±Infinity: one branch-free sum tells whether a second pass must count NaNs.
    let probe = 0;
    const end = start + rows;
    for (let i = start; i < end; i++) {
      const v = values[i] ?? 0;
      probe += v - v;
      // Conditional expressions compile to selects; if-statements branch and mispredict.
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
    if (probe !== probe) {
      for (let i = start; i < end; i++) {
        const v = values[i] ?? 0;
        if (v !== v) this.nanCount++;
      }
    }
    this.min = min;
    this.max = max;
    this.count += rows;
  }

  addIntRange(min: number, max: number, rows: number): void {
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
    this.count += rows;
  }

  toStatistics(physical: PhysicalType): Statistics {
    const floating = this.type === 'double' || this.type === 'float';
    const stats: Statistics = { nullCount: 0 };
    if (floating) stats.nanCount = this.nanCount;
    // No bounds for a chunk holding NaN. The spec allows bounds over the non-NaN values, but
    // DuckDB orders NaN above +Infinity and ignores nan_count, so it would prune `x > 100` or
    // `isnan`-free equality scans wrongly; DuckDB's own writer leaves them out for the same reason.
    if (this.count > 0 && this.nanCount === 0) {
      // Parquet's rule for zeros: min is written as -0 and max as +0, whatever the data held.
      const min = floating && this.min === 0 ? -0 : this.min;
      const max = floating && this.max === 0 ? 0 : this.max;
      const minBytes = plainValue(physical, min);
      const maxBytes = plainValue(physical, max);
      stats.minValue = minBytes;
      stats.maxValue = maxBytes;
      // The deprecated fields use signed order, which matches for numbers; older readers need them.
      stats.min = minBytes;
      stats.max = maxBytes;
      stats.isMinValueExact = true;
      stats.isMaxValueExact = true;
    }
    return stats;
  }
}

function plainValue(physical: PhysicalType, value: number): Uint8Array {
  const bytes = new Uint8Array(physical === 'FLOAT' ? 4 : 8);
  const view = new DataView(bytes.buffer);
  if (physical === 'FLOAT') view.setFloat32(0, value, true);
  else if (physical === 'DOUBLE') view.setFloat64(0, value, true);
  else view.setBigInt64(0, BigInt(value), true);
  return bytes;
}

function schemaElements(columns: readonly PreparedColumn[]): SchemaElement[] {
  const root: SchemaElement = { name: 'schema', numChildren: columns.length };
  return [
    root,
    ...columns.map((c): SchemaElement => {
      const element: SchemaElement = { type: c.physical, repetition: 'REQUIRED', name: c.name };
      if (c.type === 'timestamp-ms') {
        element.convertedType = 'TIMESTAMP_MILLIS';
        element.logicalType = { kind: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' };
      }
      return element;
    }),
  ];
}

function prepareColumns(
  path: string,
  table: ParquetTableInput,
): { columns: PreparedColumn[]; numRows: number } {
  if (table.columns.length === 0) throw invalid(path, 'the table has no columns');
  const seen = new Set<string>();
  const first = table.columns[0];
  const numRows = first?.values.length ?? 0;
  const columns = table.columns.map((c): PreparedColumn => {
    if (typeof c.name !== 'string' || c.name === '') throw invalid(path, 'a column has no name');
    if (seen.has(c.name)) throw invalid(path, `column name "${c.name}" appears twice`);
    seen.add(c.name);
    if (!PARQUET_COLUMN_TYPES.includes(c.type)) {
      throw invalid(
        path,
        `column "${c.name}" has type "${c.type}"; expected one of ${PARQUET_COLUMN_TYPES.join(', ')}`,
      );
    }
    if (!(c.values instanceof Float64Array) && !(c.values instanceof Float32Array)) {
      throw invalid(path, `column "${c.name}" values must be a Float64Array or Float32Array`);
    }
    if (c.values.length !== numRows) {
      throw invalid(
        path,
        `column "${c.name}" has ${c.values.length} values but "${first?.name ?? ''}" has ${numRows}`,
        'all columns must have the same length',
      );
    }
    if (c.type === 'float') {
      const values = c.values instanceof Float32Array ? c.values : new Float32Array(c.values);
      return { name: c.name, type: c.type, physical: 'FLOAT', values, width: 4 };
    }
    const values = c.values instanceof Float64Array ? c.values : new Float64Array(c.values);
    const physical = c.type === 'double' ? 'DOUBLE' : 'INT64';
    return { name: c.name, type: c.type, physical, values, width: 8 };
  });
  return { columns, numRows };
}

function metadataPairs(
  path: string,
  metadata: Readonly<Record<string, string>> | undefined,
): KeyValue[] {
  if (metadata === undefined) return [];
  return Object.entries(metadata).map(([key, value]) => {
    if (typeof value !== 'string') {
      throw invalid(path, `metadata "${key}" must be a string, got ${typeof value}`);
    }
    return { key, value };
  });
}

function positiveInt(
  path: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw invalid(path, `${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function invalid(path: string, message: string, hint?: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `cannot write Parquet file "${path}": ${message}`, {
    ...(hint === undefined ? {} : { hint }),
    details: { file: path },
  });
}

/**
 * Appends buffers at a tracked position with one write in flight: {@link append} waits for the
 * previous write, then starts this one and returns, so the caller prepares the next page meanwhile.
 * Buffers passed to `append` must stay unchanged until the following `append` or `flush` returns.
 */
class PipelinedWriter {
  /** The file size once everything appended so far is written. */
  position = 0;
  private pending: Promise<void> | undefined;

  constructor(private readonly handle: FileHandle) {}

  async append(buffers: Uint8Array[]): Promise<void> {
    const start = this.position;
    for (const b of buffers) this.position += b.byteLength;
    await this.flush();
    this.pending = writeFully(this.handle, buffers, start);
  }

  /** Waits for the write in flight. */
  async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    await pending;
  }

  /** Waits for the write in flight after another error; that error is the one to report. */
  async settle(): Promise<void> {
    await this.flush().catch(() => undefined);
  }
}

/** Writes `buffers` back to back at `position`, finishing partial writes. */
async function writeFully(
  handle: FileHandle,
  buffers: Uint8Array[],
  position: number,
): Promise<void> {
  let pending = buffers.filter((b) => b.byteLength > 0);
  let at = position;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending, at);
    if (bytesWritten === 0) {
      throw new TradelabError('FILE_ACCESS', 'the file system accepted no bytes (disk full?)');
    }
    at += bytesWritten;
    let skip = bytesWritten;
    const rest: Uint8Array[] = [];
    for (const b of pending) {
      if (skip >= b.byteLength) skip -= b.byteLength;
      else {
        rest.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    pending = rest;
  }
}

/** Removes the temp file after a failed write; ENOENT means the rename already happened. */
async function removeTemp(path: string, tempPath: string, writeError: unknown): Promise<void> {
  try {
    await unlink(tempPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new TradelabError(
      'FILE_ACCESS',
      `writing "${path}" failed and its temp file "${tempPath}" could not be removed`,
      {
        cause: writeError,
        details: { file: path, tempFile: tempPath, removeError: String(error) },
      },
    );
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; the rename is still atomic there.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

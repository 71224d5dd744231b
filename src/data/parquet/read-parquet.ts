/**
 * Reads Parquet files with hyparquet (pure JavaScript; every encoding, dictionary pages, nulls) and
 * hyparquet-compressors (Snappy, zstd, gzip, Brotli, LZ4): tradelab's own files and other people's
 * alike, into one typed array per numeric column.
 *
 * Why hyparquet: it was the fastest reader we measured on the store's bars, 2 to 4× parquet-wasm
 * and DuckDB, because a PLAIN page becomes a typed array over the decompressed bytes with no
 * per-value work (bench/results/2026-11-24-parquet-libraries.txt). The one per-value step it would
 * add is turning int64 timestamps into `Date`s (or whatever a parser returns) through a plain
 * array, which cost more than the rest of the read together; so timestamp and date columns are
 * read as their raw integers (their annotations are dropped from the schema handed to hyparquet)
 * and converted to epoch milliseconds here, in bulk. DECIMAL columns are read raw too: hyparquet
 * multiplies by 10^-scale, which is off by an ulp for most prices (1.13 became 1.1300000000000001);
 * dividing by 10^scale gives the double nearest the decimal, as DuckDB and Arrow do.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import {
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
  type AsyncBuffer,
  type FileMetaData,
  type SchemaElement,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { TradelabError, closestMatch } from '../../core/index.js';
import type { ParquetTable } from './parquet-table.js';

/** Options for {@link readParquetFile}. */
export interface ReadParquetOptions {
  /**
   * Columns to read, in this order; naming a missing or non-numeric one is an error. Default:
   * every numeric column, in file order (the others are listed in `skippedColumns`).
   */
  columns?: readonly string[];
  /**
   * The file's CRC-32 as recorded when it was written (`zlib.crc32` of its bytes). When given, the
   * file is read whole and checked before anything is decoded; a mismatch is a corrupt-file error
   * (`details.corrupt`, `details.checksum`). Damage inside a page can decode to plausible numbers
   * (an open of 1.78e+127), which nothing else would notice. Default: not checked.
   */
  crc32?: number;
}

/** A table read back, plus the columns left out for not being numeric. */
export interface ReadParquetResult extends ParquetTable {
  /** Non-numeric columns (strings, booleans, nested…) skipped because none were asked for. */
  skippedColumns: string[];
  /**
   * Columns the file types as TIMESTAMP, DATE or INT96 (read as epoch ms): their unit is the file's word.
   * A time in any other column is a plain number whose unit is not known.
   */
  timeColumns: string[];
}

/** How a column's decoded values become numbers. */
type Conversion =
  | { kind: 'float64' }
  | { kind: 'float32' }
  /** Integers: ms = ⌊value / divisor⌋ × multiplier (µs: 1000 × 1, ns: 1e6 × 1, days: 1 × 86.4e6). */
  | { kind: 'time'; divisor: bigint; multiplier: number }
  /** Unscaled integers (int32, int64 or big-endian bytes): value / 10^scale. */
  | { kind: 'decimal'; scale: number };

const MS_PER_DAY = 86_400_000;
const TWO_POW_32 = 4294967296;

/**
 * Reads a Parquet file's numeric columns. Timestamps and dates become ms since the epoch UTC
 * (floored), integers and decimals become doubles, FLOAT stays Float32Array; NULLs become NaN.
 * A file that is missing, not Parquet or damaged gives a {@link TradelabError} naming the path.
 */
export async function readParquetFile(
  path: string,
  options: ReadParquetOptions = {},
): Promise<ReadParquetResult> {
  let handle: FileHandle;
  let size: number;
  const unreadable = (why: string, cause?: unknown): TradelabError =>
    new TradelabError('FILE_ACCESS', `cannot read Parquet file "${path}": ${why}`, {
      ...(cause === undefined ? {} : { cause }),
      details: { file: path },
    });
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new TradelabError(
        'FILE_NOT_FOUND',
        `cannot read Parquet file "${path}": no such file`,
        {
          cause,
          hint: 'check the path (relative paths are relative to the working directory)',
          details: { file: path },
        },
      );
    throw unreadable(String(cause), cause);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw unreadable('not a file');
    size = stats.size;
  } catch (error) {
    await handle.close();
    throw error instanceof TradelabError ? error : unreadable(String(error), error);
  }
  try {
    if (options.crc32 !== undefined) await checkCrc32(path, handle, size, options.crc32);
    return await decode(path, rangeReader(handle, size), options.columns);
  } catch (error) {
    if (error instanceof TradelabError) throw error;
    throw new TradelabError(
      'DATA_INVALID',
      `"${path}" is not a valid Parquet file: ${(error as Error).message}`,
      {
        cause: error,
        hint: 'the file may be truncated or not Parquet at all; re-create or re-export it',
        details: { file: path, corrupt: true },
      },
    );
  } finally {
    await handle.close();
  }
}

/**
 * The file as hyparquet's AsyncBuffer: each range it asks for (the footer, then a row group's
 * column chunks) is read from disk into its own buffer, one copy, instead of reading the whole
 * file and copying slices out of it.
 */
function rangeReader(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end = size): Promise<ArrayBuffer> {
      const buffer = new ArrayBuffer(Math.max(0, end - start));
      const bytes = new Uint8Array(buffer);
      let done = 0;
      while (done < bytes.length) {
        const { bytesRead } = await handle.read(bytes, done, bytes.length - done, start + done);
        if (bytesRead === 0) throw new Error(`the file ends at byte ${start + done} of ${size}`);
        done += bytesRead;
      }
      return buffer;
    },
  };
}

/** Bytes read per step of {@link checkCrc32}: small enough to stay in the CPU's cache. */
const CRC_CHUNK = 1 << 20;

/**
 * Checks the file's CRC-32 (zlib's, several GB/s) in one pass through a small reused buffer,
 * before anything is decoded. Not SHA-256: it guards against damage, not an adversary, and a
 * load must stay about as fast as it was. Not a copy of the whole file for the decoder to slice:
 * fresh memory for it cost more than this second read of pages the first one left in the cache
 * (docs/data.md has the figures).
 */
async function checkCrc32(
  path: string,
  handle: FileHandle,
  size: number,
  expected: number,
): Promise<void> {
  const chunk = Buffer.allocUnsafe(Math.min(CRC_CHUNK, Math.max(size, 1)));
  let actual = 0;
  for (let done = 0; done < size;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - done), done);
    if (bytesRead === 0) throw new Error(`the file ends at byte ${done} of ${size}`);
    actual = crc32(chunk.subarray(0, bytesRead), actual);
    done += bytesRead;
  }
  if (actual === expected) return;
  const hex = (n: number): string => n.toString(16).padStart(8, '0');
  throw new TradelabError(
    'DATA_INVALID',
    `"${path}" is damaged: its CRC-32 is ${hex(actual)}, not the ${hex(expected)} it was written with`,
    {
      hint: 'the file changed on disk after it was written (a disk error, a copy cut short, an edit); restore it or write it again',
      details: { file: path, corrupt: true, checksum: { expected, actual } },
    },
  );
}

async function decode(
  path: string,
  file: AsyncBuffer,
  requested: readonly string[] | undefined,
): Promise<ReadParquetResult> {
  const metadata = await parquetMetadataAsync(file);
  const leaves = parquetSchema(metadata).children;
  const names = leaves.map((leaf) => leaf.element.name);
  const plans = new Map<string, Conversion>();
  const skippedColumns: string[] = [];
  const timeColumns: string[] = [];
  for (const name of requested ?? names) {
    const leaf = leaves.find((l) => l.element.name === name);
    if (leaf === undefined) {
      const guess = closestMatch(name, names);
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `Parquet file "${path}" has no column "${name}"; it has ${names.join(', ') || 'none'}${
          guess === undefined ? '' : `; did you mean "${guess}"?`
        }`,
        { details: { file: path, column: name } },
      );
    }
    const conversion = leaf.children.length === 0 ? conversionOf(leaf.element) : undefined;
    if (conversion !== undefined) {
      plans.set(name, conversion);
      // INT96 is always a timestamp (old Spark and Impala files), read as ms by hyparquet's parser.
      if (conversion.kind === 'time' || leaf.element.type === 'INT96') timeColumns.push(name);
    } else if (requested === undefined) skippedColumns.push(name);
    else {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `column "${name}" of Parquet file "${path}" has type ${describe(leaf.element)}, which is not numeric`,
        {
          hint: 'ask only for numeric or timestamp columns',
          details: { file: path, column: name },
        },
      );
    }
  }

  const numRows = Number(metadata.num_rows);
  const columns: Record<string, Float64Array | Float32Array> = {};
  const allocate = (plan: Conversion): Float64Array | Float32Array =>
    plan.kind === 'float32' ? new Float32Array(numRows) : new Float64Array(numRows);
  if (plans.size > 0) {
    await parquetRead({
      file,
      metadata: withRawValues(metadata, plans),
      // Unannotated byte arrays stay bytes (raw decimals), not text.
      utf8: false,
      columns: [...plans.keys()],
      compressors,
      // INT96 timestamps (old Spark/Impala files) are converted by hyparquet whatever the schema says.
      parsers: { timestampFromNanoseconds: (ns: bigint) => floorDiv(ns, 1_000_000n) },
      onChunk: ({ columnName, columnData, rowStart }) => {
        const plan = plans.get(columnName);
        if (plan === undefined) return;
        // One chunk holding the whole column in the right array type (a single row group): keep it.
        if (
          rowStart === 0 &&
          columnData.length === numRows &&
          ((plan.kind === 'float64' && columnData instanceof Float64Array) ||
            (plan.kind === 'float32' && columnData instanceof Float32Array))
        ) {
          columns[columnName] = columnData;
          return;
        }
        convertInto((columns[columnName] ??= allocate(plan)), rowStart, columnData, plan);
      },
    });
  }
  // In plan order (the order asked for); a table with no rows has had no chunks.
  const ordered: Record<string, Float64Array | Float32Array> = {};
  for (const [name, plan] of plans) ordered[name] = columns[name] ?? allocate(plan);
  return {
    numRows,
    columns: ordered,
    metadata: Object.fromEntries(
      (metadata.key_value_metadata ?? []).map((kv) => [kv.key, kv.value ?? '']),
    ),
    skippedColumns,
    timeColumns,
  };
}

/** How a leaf column becomes numbers, or undefined when it is not numeric. */
function conversionOf(element: SchemaElement): Conversion | undefined {
  const { type, converted_type: converted, logical_type: logical } = element;
  if (logical?.type === 'TIMESTAMP') {
    return time(logical.unit === 'MILLIS' ? 1n : logical.unit === 'MICROS' ? 1_000n : 1_000_000n);
  }
  if (converted === 'TIMESTAMP_MILLIS') return time(1n);
  if (converted === 'TIMESTAMP_MICROS') return time(1_000n);
  if (logical?.type === 'DATE' || converted === 'DATE') {
    return { kind: 'time', divisor: 1n, multiplier: MS_PER_DAY };
  }
  if (logical?.type === 'DECIMAL') return { kind: 'decimal', scale: logical.scale };
  if (converted === 'DECIMAL') return { kind: 'decimal', scale: element.scale ?? 0 };
  // Times of day, intervals, strings, UUIDs and the like are not prices or counts.
  if (converted === 'TIME_MILLIS' || converted === 'TIME_MICROS' || converted === 'INTERVAL')
    return undefined;
  if (logical?.type === 'TIME' || logical?.type === 'INTERVAL') return undefined;
  switch (type) {
    case 'FLOAT':
      return { kind: 'float32' };
    case 'DOUBLE':
    case 'INT32':
    case 'INT64':
    case 'INT96':
      return { kind: 'float64' };
    case 'FIXED_LEN_BYTE_ARRAY':
      // hyparquet decodes FLOAT16 to numbers; other byte arrays are text, UUIDs or blobs.
      return logical?.type === 'FLOAT16' ? { kind: 'float64' } : undefined;
    default:
      return undefined;
  }
}

function time(divisor: bigint): Conversion {
  return { kind: 'time', divisor, multiplier: 1 };
}

/** A copy of the metadata whose time and decimal columns carry no annotation (see the top). */
function withRawValues(
  metadata: FileMetaData,
  plans: ReadonlyMap<string, Conversion>,
): FileMetaData {
  const schema = metadata.schema.map((element, i): SchemaElement => {
    const kind = plans.get(element.name)?.kind;
    // Element 0 is the root; top-level leaves follow (nested columns are never planned).
    if (i === 0 || (kind !== 'time' && kind !== 'decimal') || element.num_children) return element;
    const { converted_type: _converted, logical_type: _logical, ...raw } = element;
    return raw;
  });
  return { ...metadata, schema };
}

/** Writes one chunk of decoded values into `output` from `start`, as numbers (NULL → NaN). */
function convertInto(
  output: Float64Array | Float32Array,
  start: number,
  data: ArrayLike<unknown>,
  plan: Conversion,
): void {
  if (
    (plan.kind === 'float64' || plan.kind === 'float32') &&
    (data instanceof Float64Array || data instanceof Float32Array)
  ) {
    output.set(data, start);
    return;
  }
  if (plan.kind === 'time' && data instanceof BigInt64Array && plan.divisor === 1n) {
    // Epoch ms (or days) from the two 32-bit words of each value: exact below 2^53, no BigInts.
    const words = new Int32Array(data.buffer, data.byteOffset, data.length * 2);
    for (let i = 0; i < data.length; i++) {
      output[start + i] =
        ((words[2 * i + 1] ?? 0) * TWO_POW_32 + ((words[2 * i] ?? 0) >>> 0)) * plan.multiplier;
    }
    return;
  }
  if (plan.kind === 'time' && data instanceof Int32Array) {
    for (let i = 0; i < data.length; i++) output[start + i] = (data[i] ?? 0) * plan.multiplier;
    return;
  }
  for (let i = 0; i < data.length; i++) output[start + i] = toNumber(data[i], plan);
}

function toNumber(value: unknown, plan: Conversion): number {
  if (plan.kind === 'decimal') {
    const unscaled =
      typeof value === 'number' || typeof value === 'bigint'
        ? Number(value)
        : value instanceof Uint8Array
          ? Number(bigEndianSigned(value))
          : NaN;
    return unscaled / 10 ** plan.scale;
  }
  if (typeof value === 'number') return plan.kind === 'time' ? value * plan.multiplier : value;
  if (typeof value === 'bigint') {
    return plan.kind === 'time' ? floorDiv(value, plan.divisor) * plan.multiplier : Number(value);
  }
  return NaN;
}

/** A big-endian two's-complement integer (a DECIMAL stored as bytes). */
function bigEndianSigned(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  const negative = bytes.length > 0 && ((bytes[0] ?? 0) & 0x80) !== 0;
  return negative ? value - (1n << BigInt(bytes.length * 8)) : value;
}

/** ⌊a / b⌋ as a number: BigInt division truncates toward zero, timestamps floor (pre-1970 too). */
function floorDiv(a: bigint, b: bigint): number {
  const q = a / b;
  return Number(a % b < 0n ? q - 1n : q);
}

function describe(element: SchemaElement): string {
  const annotation = element.logical_type?.type ?? element.converted_type;
  const type = element.type ?? (element.num_children ? 'group' : 'unknown');
  return annotation === undefined ? type : `${type} (${annotation})`;
}

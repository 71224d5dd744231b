/**
 * Reads Parquet files tradelab did not write (compressed, dictionary-encoded, nullable…) through
 * DuckDB, into the same shape {@link readParquetFile} returns. `@duckdb/node-api` is imported on
 * first use only, so commands that never meet a foreign file never load the native module.
 */
import { existsSync } from 'node:fs';
import type { DuckDBConnection, DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import { TradelabError, closestMatch } from '../../core/index.js';
import type { ParquetTable } from './parquet-table.js';

/** Options for {@link readParquetWithDuckDb}. */
export interface ReadForeignParquetOptions {
  /** DuckDB worker threads. Default 1 (reads stay on one core, like the rest of import). */
  threads?: number;
}

/** A foreign table: as {@link ParquetTable}, plus the columns left out for not being numeric. */
export interface ForeignParquetTable extends ParquetTable {
  /** Non-numeric columns (strings, booleans, nested…) skipped because none were asked for. */
  skippedColumns: string[];
}

const textDecoder = new TextDecoder();

type DuckDbModule = typeof import('@duckdb/node-api');

/** How one column is fetched: the SQL expression and the array it lands in. */
interface ColumnPlan {
  name: string;
  expression: string;
  output: 'float64' | 'float32';
}

/**
 * Reads numeric columns of any Parquet file with DuckDB. Timestamps and dates become ms since the
 * epoch UTC (floored), integers and decimals become doubles, FLOAT stays Float32Array; NULLs
 * become NaN. `columns` picks columns (default: every numeric one); naming a non-numeric one is an
 * error. The path is passed to DuckDB as is, so glob characters (`*`, `?`, `[`) in it expand.
 */
export async function readParquetWithDuckDb(
  path: string,
  columns?: readonly string[],
  options: ReadForeignParquetOptions = {},
): Promise<ForeignParquetTable> {
  const threads = options.threads ?? 1;
  if (!Number.isSafeInteger(threads) || threads < 1) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `threads must be a positive integer, got ${threads}`,
    );
  }
  const duckdb = await import('@duckdb/node-api');
  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: String(threads) });
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    return await readWith(duckdb, connection, path, columns);
  } catch (error) {
    if (error instanceof TradelabError) throw error;
    // A missing path is the caller's mistake; a file DuckDB cannot read is bad data.
    throw new TradelabError(
      existsSync(path) ? 'DATA_INVALID' : 'FILE_NOT_FOUND',
      `DuckDB could not read Parquet file "${path}": ${(error as Error).message}`,
      { cause: error, details: { file: path } },
    );
  } finally {
    connection?.closeSync();
    instance.closeSync();
  }
}

async function readWith(
  duckdb: DuckDbModule,
  connection: DuckDBConnection,
  path: string,
  requested: readonly string[] | undefined,
): Promise<ForeignParquetTable> {
  const probe = await connection.run('SELECT * FROM read_parquet($1) LIMIT 0', [path]);
  const names = probe.columnNames();
  const types = probe.columnTypes();
  const plans: ColumnPlan[] = [];
  const skippedColumns: string[] = [];
  const wanted = requested ?? names;
  for (const name of wanted) {
    const index = names.indexOf(name);
    const type = types[index];
    if (index < 0 || type === undefined) {
      const guess = closestMatch(name, names);
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `Parquet file "${path}" has no column "${name}"; it has ${names.join(', ')}${
          guess === undefined ? '' : `; did you mean "${guess}"?`
        }`,
        { details: { file: path, column: name } },
      );
    }
    const plan = planColumn(duckdb.DuckDBTypeId, name, type);
    if (plan !== undefined) plans.push(plan);
    else if (requested === undefined) skippedColumns.push(name);
    else {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `column "${name}" of Parquet file "${path}" has type ${type.toString()}, which is not numeric`,
        {
          hint: 'ask only for numeric or timestamp columns',
          details: { file: path, column: name },
        },
      );
    }
  }

  const outputs: (Float64Array | Float32Array)[] = [];
  let numRows: number;
  if (plans.length > 0) {
    const select = plans.map((p) => `${p.expression} AS ${quoteIdentifier(p.name)}`).join(', ');
    const result = await connection.run(`SELECT ${select} FROM read_parquet($1)`, [path]);
    numRows = result.rowCount;
    for (const plan of plans) {
      outputs.push(
        plan.output === 'float32' ? new Float32Array(numRows) : new Float64Array(numRows),
      );
    }
    let row = 0;
    for (let c = 0; c < result.chunkCount; c++) {
      const chunk = result.getChunk(c);
      const count = chunk.rowCount;
      for (let k = 0; k < plans.length; k++) {
        const vector = chunk.getColumnVector(k);
        const output = outputs[k];
        if (output === undefined) continue;
        for (let i = 0; i < count; i++) {
          const value = vector.getItem(i);
          output[row + i] = typeof value === 'number' ? value : NaN;
        }
      }
      row += count;
    }
  } else {
    const count = await connection.run('SELECT count(*)::DOUBLE FROM read_parquet($1)', [path]);
    const value = count.getChunk(0).getColumnVector(0).getItem(0);
    numRows = typeof value === 'number' ? value : 0;
  }

  return {
    numRows,
    columns: Object.fromEntries(plans.map((p, k) => [p.name, outputs[k]])) as Record<
      string,
      Float64Array | Float32Array
    >,
    metadata: await keyValueMetadata(connection, path),
    skippedColumns,
  };
}

function planColumn(
  ids: typeof DuckDBTypeId,
  name: string,
  type: DuckDBType,
): ColumnPlan | undefined {
  const column = quoteIdentifier(name);
  switch (type.typeId) {
    case ids.TIMESTAMP:
    case ids.TIMESTAMP_TZ:
    case ids.TIMESTAMP_S:
    case ids.TIMESTAMP_MS:
    case ids.TIMESTAMP_NS:
      // epoch_us counts the instant (no time-zone conversion); floor keeps pre-1970 sub-ms values
      // on the earlier millisecond, as integer-ms timestamps everywhere else do.
      return { name, expression: `floor(epoch_us(${column}) / 1000)`, output: 'float64' };
    case ids.DATE:
      return {
        name,
        expression: `floor(epoch_us(CAST(${column} AS TIMESTAMP)) / 1000)`,
        output: 'float64',
      };
    case ids.FLOAT:
      return { name, expression: column, output: 'float32' };
    case ids.DOUBLE:
    case ids.TINYINT:
    case ids.SMALLINT:
    case ids.INTEGER:
    case ids.BIGINT:
    case ids.HUGEINT:
    case ids.UTINYINT:
    case ids.USMALLINT:
    case ids.UINTEGER:
    case ids.UBIGINT:
    case ids.UHUGEINT:
    case ids.DECIMAL:
      return { name, expression: `CAST(${column} AS DOUBLE)`, output: 'float64' };
    default:
      return undefined;
  }
}

async function keyValueMetadata(
  connection: DuckDBConnection,
  path: string,
): Promise<Record<string, string>> {
  const result = await connection.run('SELECT key, value FROM parquet_kv_metadata($1)', [path]);
  const pairs: [string, string][] = [];
  for (let c = 0; c < result.chunkCount; c++) {
    const chunk = result.getChunk(c);
    const keys = chunk.getColumnVector(0);
    const values = chunk.getColumnVector(1);
    for (let i = 0; i < chunk.rowCount; i++) {
      pairs.push([blobText(keys.getItem(i)), blobText(values.getItem(i))]);
    }
  }
  return Object.fromEntries(pairs);
}

/** A BLOB (or VARCHAR) value as text; NULL as "". */
function blobText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'bytes' in value) {
    const { bytes } = value;
    if (bytes instanceof Uint8Array) return textDecoder.decode(bytes);
  }
  return '';
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

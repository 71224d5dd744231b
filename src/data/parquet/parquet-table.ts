/**
 * The in-memory shape of a Parquet table as tradelab writes and reads it: flat, numeric columns,
 * one typed array each, no nulls.
 */

/**
 * How a column is stored. `double` → DOUBLE, `float` → FLOAT, `int64` → INT64,
 * `timestamp-ms` → INT64 annotated TIMESTAMP(isAdjustedToUTC=true, MILLIS), values in ms UTC.
 */
export type ParquetColumnType = 'double' | 'timestamp-ms' | 'int64' | 'float';

/** The column types, in the order they are documented. */
export const PARQUET_COLUMN_TYPES: readonly ParquetColumnType[] = [
  'double',
  'timestamp-ms',
  'int64',
  'float',
];

/** One column to write. `int64` and `timestamp-ms` values must be integers (they are checked). */
export interface ParquetColumnInput {
  name: string;
  type: ParquetColumnType;
  values: Float64Array | Float32Array;
}

/** A table to write: columns of equal length, and optional key-value metadata for the footer. */
export interface ParquetTableInput {
  columns: readonly ParquetColumnInput[];
  metadata?: Readonly<Record<string, string>>;
}

/**
 * A table read back: `float` columns as Float32Array, every other type as Float64Array (int64 and
 * timestamps converted to numbers; exact up to 2^53).
 */
export interface ParquetTable {
  numRows: number;
  columns: Record<string, Float64Array | Float32Array>;
  metadata: Record<string, string>;
}

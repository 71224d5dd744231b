export {
  PARQUET_COLUMN_TYPES,
  type ParquetColumnInput,
  type ParquetColumnType,
  type ParquetTable,
  type ParquetTableInput,
} from './parquet-table.js';
export {
  writeParquetFile,
  type ParquetCompression,
  type WriteParquetOptions,
  type WriteParquetResult,
} from './write-parquet.js';
export {
  readParquetFile,
  type ReadParquetOptions,
  type ReadParquetResult,
} from './read-parquet.js';
export {
  benchmarkParquet,
  type BenchmarkTiming,
  type ParquetBenchmarkOptions,
  type ParquetBenchmarkResult,
} from './parquet-benchmark.js';

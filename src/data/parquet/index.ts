export {
  PARQUET_COLUMN_TYPES,
  type ParquetColumnInput,
  type ParquetColumnType,
  type ParquetTable,
  type ParquetTableInput,
} from './parquet-table.js';
export {
  PARQUET_CREATED_BY,
  writeParquetFile,
  type WriteParquetOptions,
  type WriteParquetResult,
} from './write-parquet.js';
export {
  readParquetFile,
  readParquetMetadata,
  type ParquetChunkInfo,
  type ParquetColumnInfo,
  type ParquetFileInfo,
  type ParquetRowGroupInfo,
  type ReadParquetOptions,
} from './read-parquet.js';
export {
  readParquetWithDuckDb,
  type ForeignParquetTable,
  type ReadForeignParquetOptions,
} from './read-foreign-parquet.js';
export {
  benchmarkParquet,
  type BenchmarkTiming,
  type ParquetBenchmarkOptions,
  type ParquetBenchmarkResult,
} from './parquet-benchmark.js';

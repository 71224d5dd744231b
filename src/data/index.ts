export {
  adjustedBars,
  allocateBars,
  BAR_FIELDS,
  barCount,
  mapBarColumns,
  selectBars,
  sliceBars,
  truncateBars,
  type BarField,
  type Bars,
} from './bars.js';
export {
  calendarFor,
  CALENDARS,
  missingBarsBetween,
  newYorkOffsetMs,
  nyseSpecialDays,
  parseCalendar,
  type Calendar,
  type CalendarName,
} from './calendar.js';
export * from './features/index.js';
export { describeBarRange, parseBarRange, type BarRange } from './bar-range.js';
export { digestMarketData } from './market-digest.js';
export {
  BAD_ROW_POLICIES,
  cleanBars,
  findGaps,
  type BadRowPolicy,
  type CleanOptions,
  type CleanReport,
  type GapReport,
  type ValueProblemKind,
} from './import/clean-bars.js';
export {
  importFiles,
  type ImportedFile,
  type ImportOptions,
  type ImportResult,
} from './import/import-files.js';
export {
  IMPORT_FORMATS,
  parseBarsCsv,
  sniffCsvFormat,
  type CsvFormat,
  type FieldProblem,
  type ImportFormat,
  type ParsedRows,
} from './import/parse-bars-csv.js';
export { expandInputs, readSource, type SourceFile } from './import/source-files.js';
export {
  innerJoin,
  loadMarketData,
  type LoadMarketDataOptions,
  type MarketData,
} from './load-market-data.js';
export {
  resampleBars,
  type DailyBoundary,
  type ResampleOptions,
  type Resampled,
} from './resample.js';
export {
  CATALOG_FILE,
  readCatalog,
  type CatalogFile,
  type DatasetEntry,
  type DatasetSource,
} from './store/catalog.js';
export {
  formatDatasetKey,
  parseDatasetKey,
  parseDatasetKeys,
  parseSymbol,
  type DatasetKey,
} from './store/dataset-key.js';
export {
  openDatasetStore,
  repairHint,
  type DatasetFileStatus,
  type DatasetStore,
  type DatasetWrite,
  type LockedWrite,
  type WriteOptions,
} from './store/dataset-store.js';
export { checkReplace } from './store/dataset-origin.js';
export {
  DAY_MS,
  isTimeframe,
  parseTimeframe,
  TIMEFRAMES,
  timeframeMs,
  timeframeOfMs,
  type Timeframe,
} from './timeframe.js';
export { barsToCsv, exportBars } from './export-bars.js';
export {
  annualizedVolatility,
  dailyRealizedVariance,
  DEFAULT_FORWARD_HORIZON,
  DEFAULT_SAMPLING_MS,
  forwardRealizedVariance,
  type DailyRealizedVariance,
  type RealizedVarianceOptions,
} from './realized-vol.js';
export {
  fitHar,
  fitOls,
  HAR_FEATURE_NAMES,
  harFeatures,
  harRows,
  predictHar,
  type HarFeatures,
  type HarModel,
  type HarRows,
} from './har-features.js';
export * from './synth/index.js';
export * from './parquet/index.js';

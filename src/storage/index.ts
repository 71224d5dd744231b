export type {
  Attributes,
  CategoricalDistribution,
  Distribution,
  FloatDistribution,
  IntDistribution,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from './records.js';
export { FINISHED_STATES, trialRecord } from './records.js';
export type {
  ClaimTarget,
  NewStudy,
  NewWaitingTrial,
  RetryPolicy,
  StaleResult,
  StudyStorage,
  TrialOutcome,
} from './study-storage.js';
export { DEFAULT_STORAGE_URL, openStorage, type OpenStorageOptions } from './open-storage.js';
export { openMemoryStorage } from './memory-storage.js';
export { openSqliteStorage, SQLITE_SCHEMA_VERSION } from './sqlite-storage.js';
export { isBusy, retryBusy } from './sqlite-busy.js';
export { maskPostgresUrl } from './postgres-url.js';
export { DEFAULT_MAX_INLINE_ARTIFACT_BYTES, type StorageOptions } from './storage-options.js';

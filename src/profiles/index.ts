export { AMBIGUOUS_ALIASES, BUILTIN_PROFILES } from './builtin-profiles.js';
export {
  chooseProfile,
  type ProfileChoice,
  type ProfileSourceKind,
  type RequestedProfile,
} from './choose-profile.js';
export {
  DETECTION_TOOLS,
  freeMemoryBytes,
  type DetectedGpu,
  type DetectionTool,
  type ParsedToolOutput,
} from './detect/detected-gpu.js';
export {
  detectGpus,
  type Detection,
  type DetectOptions,
  type ToolReport,
  type ToolStatus,
} from './detect/detect-gpus.js';
export { parseAmdSmiStatic } from './detect/parse-amd-smi.js';
export { parseNvidiaSmiCsv } from './detect/parse-nvidia-smi.js';
export { parseRocmSmiJson } from './detect/parse-rocm-smi.js';
export { readSysfsDrm } from './detect/read-sysfs-drm.js';
export {
  deriveProfile,
  matchDetectedGpu,
  VRAM_TOLERANCE,
  type MatchedGpu,
} from './match-detected.js';
export { formatBytes, formatCount, GIB, MIB } from './planner/format-bytes.js';
export {
  mlpParamCount,
  mlpTrainingElementsPerSample,
  mlpUnitsPerSample,
  type MlpShape,
} from './planner/mlp-size.js';
export {
  SEED_TCN_SHAPE,
  TCN_ENGINE_TRANSIENT_BYTES_PER_PARAM,
  tcnElementsPerBar,
  tcnEngineElementsPerBar,
  tcnEngineElementsPerChunk,
  tcnEngineStepBytes,
  tcnParamCount,
  tcnParamRows,
  type TcnParamRow,
  type TcnParamShape,
  tcnStepBytes,
  tcnTransientBytesPerParam,
  type TcnShape,
} from './planner/tcn-size.js';
export { computeDevice, type ComputeDevice, type PlanBackend } from './planner/compute-device.js';
export {
  CONTEXT_BYTES,
  DTYPE_BYTES,
  planWorkers,
  SEED_TCN_MODEL,
  WASM32_LIMIT_BYTES,
  type DatasetShape,
  type LimitKind,
  type MeasuredMemory,
  type MemoryBudget,
  type MlpModel,
  type PlanDtype,
  type PlanInput,
  type SizedModel,
  type TcnModel,
  type Term,
  type WorkerLimit,
  type WorkerPlan,
} from './planner/plan-workers.js';
export {
  createProfileRegistry,
  normalizeProfileName,
  type CustomProfileDefinition,
  type ProfileRegistry,
} from './profile-registry.js';
export {
  CustomProfileSchema,
  CustomProfilesSchema,
  FORECAST_TIMEFRAMES,
  ProfileSpecSchema,
  VENDORS,
  WORKLOADS,
  type CustomProfileInput,
  type ForecastTimeframe,
  type GpuProfile,
  type ProfileOrigin,
  type ProfileSpec,
  type Workload,
} from './profile-schema.js';
export { forecastSettingsAt, type ForecastSettingsAt } from './forecast-settings.js';

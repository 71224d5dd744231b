export { openProject, type OpenProjectOptions, type Project } from './open-project.js';
export { tradelabVersion } from './version.js';
export { openProjectStorage } from './project-storage.js';
export {
  DEFAULT_DATASET,
  planHere,
  resolvePlanBackend,
  type PlanHere,
  type PlanRequest,
} from './plan-here.js';
export {
  forecastModelDefaults,
  forecastPlanModel,
  type ForecastModelShape,
} from './forecast-plan-model.js';
export { startBackend } from './start-backend.js';
export { machineBudget, type MachineBudget } from './plan-here.js';
export { registerBuiltinObjectives } from './builtin-objectives.js';
export {
  drlSpecOf,
  oversubscription,
  planStudyWorkers,
  workerSettings,
  type StudyPlan,
} from './study-workers.js';
export {
  campaignRunWorkers,
  campaignWorkers,
  chooseTrialWorkers,
  parseWorkersRequest,
  studyRunWorkers,
  type SizedStudy,
  type TrialWorkers,
  type WorkersRequest,
} from './trial-workers.js';
export { refuseChangedResumeFlags, type ResumeFlag } from './resume-changes.js';
export {
  markRunInterrupted,
  resumeCommandOf,
  trainPpo,
  type TrainPpoEvents,
  type TrainPpoOptions,
  type TrainPpoOutcome,
  type TrainPpoStart,
} from './train-ppo.js';
export {
  planPretrain,
  pretrainTcnRun,
  type PretrainPlan,
  type PretrainSettingsAsked,
  type PretrainTcnEvents,
  type PretrainTcnOptions,
  type PretrainTcnStart,
} from './pretrain-tcn.js';
export { campaignReport, holdoutOfBest, type StudyHoldout } from './study-holdout.js';
export {
  runCampaign,
  withCampaignProfile,
  type CampaignOutcome,
  type CampaignStart,
  type RunCampaignEvents,
  type RunCampaignOptions,
} from './campaign-run.js';
export {
  bestBefore,
  runStudy,
  type RunStudyEvents,
  type RunStudyOptions,
  type StudyRunOutcome,
  type StudyRunStart,
} from './study-run.js';
export {
  runBacktest,
  type BacktestEvents,
  type BacktestOptions,
  type BacktestOutcome,
} from './backtest.js';
export {
  planForecastSet,
  trainForecastSet,
  type ForecastSetEvents,
  type ForecastSetOptions,
  type ForecastSetPlan,
} from './forecast-set.js';

export {
  campaignStudyName,
  describeRun,
  CampaignFileSchema,
  readCampaignFile,
  type CampaignFile,
  type CampaignFileOptions,
  type CampaignPlan,
  type CampaignRunRecord,
  type CampaignStudyPlan,
} from './campaign-file.js';
export { CampaignScheduler, type ScheduledStudy } from './campaign-scheduler.js';
export {
  CAMPAIGN_ATTR,
  CAMPAIGN_PLAN_ATTR,
  membershipOf,
  campaignStudySpecs,
  campaignTrialsLeft,
  openCampaignStudies,
  readCampaign,
  writeCampaignPlan,
  type CampaignMembership,
  type StoredCampaign,
} from './campaign-studies.js';
export { etaHours } from './study-eta.js';
export {
  buildCampaignReport,
  diagnose,
  reportTrial,
  totalOf,
  type CampaignReport,
  type PhaseSplit,
  type ReportHoldout,
  type ReportStudy,
  type ReportTrial,
} from './campaign-report.js';
export {
  projectCampaign,
  type CampaignProjection,
  type FactorSource,
  type ProjectionFactor,
  type TargetHost,
} from './campaign-projection.js';
export { loadCampaignReport, type HoldoutOfBest } from './load-campaign-report.js';
export { renderCampaignHtml, type CampaignChartKind } from './campaign-html.js';
export {
  paramImportance,
  PARAM_IMPORTANCE_METHOD,
  type ImportanceTrial,
  type ParamEncoding,
  type ParamImportance,
  type ParamImportanceOptions,
  type ParamImportanceResult,
} from './param-importance.js';
export { campaignRows, type CampaignRow } from './campaign-rows.js';

import type { components } from './api-schema.js';

/*
 * The API's shapes as the dashboard reads them: the server's own schemas, through the types
 * generated from its OpenAPI document (api-schema.ts, scripts/write-api-types.mjs), so a change of
 * a response shows here as a type error, not as a blank cell.
 */

type Schemas = components['schemas'];

/** `GET /api/studies` rows. */
export type Study = Schemas['Study'];
/** `GET /api/studies/{name}/trials` rows. */
export type Trial = Schemas['Trial'];
/** A parameter's value. */
export type ParamValue = Trial['params'][string];
/** A parameter's search space: a range (on a log scale or not) or a list of choices. */
export type Distribution = Schemas['Distribution'];
/** One finding of a verdict: what an evaluated range shows, and what to try. */
export type Finding = Schemas['Finding'];
/** `GET /api/studies/{name}/trials/{number}/equity`. */
export type TrialEquity = Schemas['TrialEquity'];
/** `GET /api/jobs` rows. */
export type Job = Schemas['Job'];
/** A job's log line. */
export type LogLine = Schemas['JobLogLine'];
/** `GET /api/info`. */
export type Info = Schemas['Info'];
/** A command jobs may run. */
export type JobCommandInfo = Info['commands'][number];
/** `GET /api/campaigns/{name}`. */
export type CampaignReport = Schemas['CampaignReport'];
/** A row of a campaign report's study table. */
export type ReportStudy = CampaignReport['studies'][number];
/** `GET /api/datasets` rows. */
export type Dataset = Schemas['Dataset'];
/** `GET /api/plan`. */
export type Plan = Schemas['Plan'];
/** A memory term of the plan. */
export type Term = Plan['perWorker'][number];
/** `GET /api/profiles` rows. */
export type Profile = Schemas['Profile'];

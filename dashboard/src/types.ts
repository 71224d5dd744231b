/* The API's shapes as the dashboard reads them (GET /openapi.json is the full description). */

/** A parameter's value. */
export type ParamValue = number | string | boolean | null;

/** `GET /api/studies` rows. */
export interface Study {
  name: string;
  direction: 'minimize' | 'maximize';
  createdAt: number;
  campaign: string | null;
  kind: string;
  counts: {
    total: number;
    done: number;
    complete: number;
    pruned: number;
    failed: number;
    retried: number;
    running: number;
    waiting: number;
  };
  best: { number: number; value: number | null } | null;
  perHour: number | null;
  meanDurationMs: number | null;
  completionRate: number | null;
  pruneRate: number | null;
}

/** A parameter's search space: a range (on a log scale or not) or a list of choices. */
export type Distribution =
  | { type: 'float' | 'int'; low: number; high: number; log: boolean; step: number | null }
  | { type: 'categorical'; choices: ParamValue[] };

/** `GET /api/studies/{name}/trials` rows. */
export interface Trial {
  number: number;
  state: 'waiting' | 'running' | 'complete' | 'pruned' | 'fail';
  value: number | null;
  params: Record<string, ParamValue>;
  /** Each parameter's search space. */
  distributions: Record<string, Distribution>;
  intermediate: Record<string, number>;
  userAttrs: Record<string, unknown>;
  startedAt: number | null;
  finishedAt: number | null;
  durationMs: number | null;
  failReason: string | null;
}

/** One finding of a verdict: what an evaluated range shows, and what to try. */
export interface Finding {
  kind: string;
  /** `warning`: something to fix; `info`: how the range compares. */
  severity: 'warning' | 'info';
  text: string;
  advice?: string;
}

/** `GET /api/studies/{name}/trials/{number}/equity`. */
export interface TrialEquity {
  times: number[];
  strategy: number[];
  benchmark: number[];
  findings: Finding[];
}

/** `GET /api/jobs` rows. */
export interface Job {
  id: number;
  request: {
    command: string;
    positionals: string[];
    options: Record<string, string | number | boolean>;
  };
  argv: string[];
  slots: number;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  progress: { percent: number | null; text: string; at: number } | null;
  cancelRequested: boolean;
  exitCode: number | null;
  error: string | null;
  result: unknown[];
  retryOf: number | null;
}

/** A job's log line. */
export interface LogLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  text: string;
  at: number;
}

/** A command jobs may run. */
export interface JobCommandInfo {
  command: string;
  summary: string;
  positionals: { name: string; description: string; required: boolean }[];
  options: { name: string; type: 'string' | 'boolean'; value?: string; description: string }[];
}

/** `GET /api/info`. */
export interface Info {
  version: string;
  root: string;
  storage: string;
  profile: { name: string; displayName: string; vendor: string; vramGb: number; source: string };
  pool: { slots: number; busy: number; workload: string; limitedBy: string };
  commands: JobCommandInfo[];
}

/** A row of a campaign report's study table. */
export interface ReportStudy {
  key: string;
  study: string;
  preset: string;
  direction: 'minimize' | 'maximize';
  target: number;
  state: 'pending' | 'running' | 'done';
  counts: {
    done: number;
    complete: number;
    pruned: number;
    failed: number;
    running: number;
    waiting: number;
    best?: { number: number; value: number | null };
    perHour: number | null;
  };
  splits: number;
  trials: { number: number; state: string; value: number | null }[];
}

/** `GET /api/campaigns/{name}`. */
export interface CampaignReport {
  name: string;
  storage: string;
  generatedAt: number;
  studies: ReportStudy[];
  total: {
    target: number;
    counts: {
      done: number;
      complete: number;
      pruned: number;
      failed: number;
      running: number;
      perHour: number | null;
    };
  };
  phases: { rollout: number; update: number; other: number; trials: number };
  diagnosis: string[];
}

/** `GET /api/datasets` rows. */
export interface Dataset {
  dataset: string;
  symbol: string;
  timeframe: string;
  rows: number;
  firstMs: number;
  lastMs: number;
  derivedFrom: string | null;
  status: string;
}

/** A memory term of the plan. */
export interface Term {
  label: string;
  bytes: number;
  formula: string;
}

/** `GET /api/plan`. */
export interface Plan {
  profile: string;
  source: string;
  workload: string;
  backend: string;
  workers: number;
  limitedBy: string;
  limits: { by: string; workers: number; detail: string }[];
  perWorker: Term[];
  perWorkerBytes: number;
  usable: Term;
  memoryKind: string;
  batchSize: number;
  nEnvs: number;
  paramCount: number | null;
  fits: boolean;
}

/** `GET /api/profiles` rows (every field of the profile; these are the ones shown). */
export interface Profile {
  name: string;
  displayName: string;
  vendor: string;
  vramGb: number;
  origin: string;
  hourlyUsd?: number | null;
}

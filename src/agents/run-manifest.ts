import type { TcnEncoderInfo } from './tcn-encoder.js';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, platform, release, arch, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BarRange } from '../data/bar-range.js';
import { writeFileAtomic } from '../core/index.js';
import type { TradingEnvOptions } from '../env/env-config.js';
import type { TradingMetrics } from '../eval/metrics.js';
import { TradelabError } from '../core/index.js';
import type { PpoConfig } from './ppo-config.js';

/*
 * A training run's manifest (`manifest.json` in the run directory): everything needed to know what
 * was trained and to resume or re-evaluate it — the configs, the data and its digest, the ranges,
 * the seed, the backend and matmul path, the machine and the tradelab version.
 */

export const MANIFEST_FILE = 'manifest.json';

/** Files of a run directory. */
export const RUN_FILES = {
  updates: 'updates.jsonl',
  checkpoint: 'checkpoints/latest',
  model: 'model',
  testEquity: 'test-equity.csv',
  report: 'report.html',
} as const;

const FORMAT = 'tradelab-run';

/** The env options a run trains and evaluates with (nEnvs, ranges, seed and starts are the run's). */
export type RunEnvOptions = Omit<TradingEnvOptions, 'nEnvs' | 'ranges' | 'seed' | 'randomStart'>;

/**
 * Env settings whose default changed, at the values runs and models saved before then ran with.
 * A run or model records its fills since; one that does not was trained at the next bar's close.
 */
const ENV_BEFORE_THE_SETTING: Readonly<RunEnvOptions> = { executionPrice: 'close' };

/** A saved run's or model's env options as they ran (see ENV_BEFORE_THE_SETTING). */
export function savedEnvOptions(env: RunEnvOptions): RunEnvOptions {
  return { ...ENV_BEFORE_THE_SETTING, ...env };
}

/** The env options an evaluation uses: the run's, without the training episode length. */
export function evaluationEnvOptions(env: RunEnvOptions): Omit<RunEnvOptions, 'episodeLength'> {
  // Evaluation episodes run to the end of their range.
  const rest = { ...env };
  delete rest.episodeLength;
  return rest;
}

/** A range as bars and dates. */
export interface ManifestRange {
  bars: BarRange;
  from: string;
  to: string;
}

/** The backend a run computes on: all of it shapes the numbers, so a resume must match it. */
export interface RunBackend {
  name: string;
  /** How matrix products run, e.g. "tradelab sgemm (avx512 kernels, 1 thread)". */
  matmul: string;
  /** Threads of the native GEMM the run asked for (`--threads`, `all` resolved); absent in older runs. */
  threads?: number;
}

/** What `manifest.json` holds. */
export interface RunManifest {
  format: typeof FORMAT;
  version: 1;
  agent: 'ppo';
  status: 'running' | 'interrupted' | 'finished';
  createdAt: string;
  updatedAt: string;
  tradelab: string;
  command: string[];
  data: {
    /** The `SYM[,SYM]:TF` the user gave. */
    spec: string;
    symbols: string[];
    timeframe: string;
    bars: number;
    featureNames: string[];
    /** digestMarketData of the loaded arrays. */
    sha256: string;
    /** A pretrained TCN whose encodings were appended to the features (`--policy tcn:DIR`). */
    encoder?: TcnEncoderInfo;
  };
  ranges: { train: ManifestRange; test: ManifestRange | null };
  ppo: PpoConfig;
  env: RunEnvOptions;
  checkpointEvery: number;
  backend: RunBackend;
  machine: {
    cpu: string;
    cores: number;
    memoryBytes: number;
    os: string;
    node: string;
  };
  progress: { updatesDone: number; totalUpdates: number; envSteps: number; seconds: number };
  evaluation: {
    range: ManifestRange;
    metrics: TradingMetrics;
    benchmarkMetrics: TradingMetrics;
    fees: number;
    ended: string;
  } | null;
}

/** The machine a run is on, for its manifest. */
export function describeMachine(): RunManifest['machine'] {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryBytes: totalmem(),
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
  };
}

/** A range with its first and last bar's times. */
export function manifestRange(range: BarRange, timestamps: Float64Array): ManifestRange {
  const iso = (ms: number | undefined): string =>
    ms === undefined ? '' : new Date(ms).toISOString();
  return { bars: range, from: iso(timestamps[range[0]]), to: iso(timestamps[range[1] - 1]) };
}

/** Writes the manifest atomically, stamping updatedAt. */
export function writeRunManifest(dir: string, manifest: RunManifest): void {
  manifest.updatedAt = new Date().toISOString();
  writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Reads a run's manifest, or says clearly why it cannot. */
export function readRunManifest(dir: string): RunManifest {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path))
    throw new TradelabError(
      'MODEL_NOT_FOUND',
      `no training run at ${dir}: ${path} does not exist`,
      {
        hint: 'pass the --out directory of a `tradelab train ppo` run',
      },
    );
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new TradelabError(
      'MODEL_INVALID',
      `${path} is not valid JSON: ${(error as Error).message}`,
      {
        hint: 'the run directory is damaged; train again into a new --out',
      },
    );
  }
  if (raw.format !== FORMAT || raw.version !== 1)
    throw new TradelabError(
      'MODEL_INVALID',
      `${path} is not a tradelab run manifest (format ${JSON.stringify(raw.format)}, version ${JSON.stringify(raw.version)})`,
      { hint: 'pass the --out directory of a `tradelab train ppo` run' },
    );
  return raw as unknown as RunManifest;
}

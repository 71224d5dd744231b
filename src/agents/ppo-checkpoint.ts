import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as tf from '../compute/tfjs.js';
import { Normalizer, type NormalizerJson } from '../data/features/normalizer.js';
import { TradelabError } from '../core/index.js';
import {
  assignNamed,
  encodeTensors,
  readWeights,
  refuseNonFinite,
  sha256,
  weightsManifest,
  writeDirectoryAtomic,
  type WeightsFiles,
} from '../models/index.js';
import { resolveSavedPpoConfig, type PpoConfig } from './ppo-config.js';
import type { ReturnStatistics } from './return-normalizer.js';
import {
  createPpoNetworks,
  disposePpoNetworks,
  ppoOptimizer,
  type PpoNetworkConfig,
  type PpoNetworks,
} from './ppo-update.js';

/*
 * Saving and loading a PPO model: a directory with `model.json` (the network and PPO configs, the
 * feature normalization, whatever the caller adds, and a TensorFlow.js weights manifest) beside
 * `weights.bin` (tfjs's binary weights format). A checkpoint adds `optimizer.bin` (Adam's state)
 * and the training counters, so training resumes exactly. A directory is written under a
 * temporary name and renamed into place: a crash never leaves a half-written model.
 *
 * model.json records a SHA-256 of weights.bin (and of optimizer.bin), written with them in the same
 * directory rename; every load checks it, so a file damaged or changed after it was saved is
 * refused instead of giving other numbers. Non-finite weights are refused both ways: a diverged
 * training run saves nothing, and a model that holds NaN never backtests to "return 0.00 %".
 */

const FORMAT = 'tradelab-ppo';
const VERSION = 1;

/** Training counters stored with a checkpoint. */
export interface PpoTrainingCounters {
  updatesDone: number;
  envSteps: number;
  /** The reward scaling's running statistics (normalizeRewards). */
  returnStatistics?: ReturnStatistics;
}

/** What `model.json` holds. */
export interface PpoModelJson {
  format: typeof FORMAT;
  version: number;
  network: PpoNetworkConfig;
  ppo: PpoConfig;
  normalizer: NormalizerJson | null;
  /** The caller's own description (data, env options…). */
  meta: Record<string, unknown>;
  weightsManifest: tf.io.WeightsManifestConfig;
  /** SHA-256 (hex) of weights.bin; absent in models of older tradelabs. */
  weightsSha256?: string;
  /** Present in checkpoints; optimizerSha256 is optimizer.bin's SHA-256 (absent in older ones). */
  training?: PpoTrainingCounters & {
    optimizerManifest: tf.io.WeightsManifestConfig;
    optimizerSha256?: string;
  };
}

/** A loaded model. Dispose `nets` (and `optimizer`) when done. */
export interface LoadedPpoModel {
  nets: PpoNetworks;
  ppo: PpoConfig;
  normalizer: Normalizer | undefined;
  meta: Record<string, unknown>;
  /** Present when the directory is a checkpoint. */
  optimizer?: tf.Optimizer;
  training?: PpoTrainingCounters;
  /** What the caller should tell the user: the model loaded, but not everything could be checked or restored. */
  warnings: string[];
}

/** Stable names of the networks' variables, in {@link networkTensors} order. */
function networkTensors(nets: PpoNetworks): Record<string, tf.Variable> {
  const named: Record<string, tf.Variable> = {};
  for (const [name, v] of Object.entries(nets.actor.namedVariables())) named[`actor/${name}`] = v;
  named['actor/logStd'] = nets.logStd;
  for (const [name, v] of Object.entries(nets.critic.namedVariables())) named[`critic/${name}`] = v;
  return named;
}

/** Options of {@link savePpoModel}. */
export interface SavePpoOptions {
  ppo: PpoConfig;
  normalizer?: Normalizer | undefined;
  meta?: Record<string, unknown>;
  /** Include the optimizer's state and these counters (a checkpoint to resume from). */
  checkpoint?: { optimizer: tf.Optimizer; counters: PpoTrainingCounters };
}

/** Writes a model (or checkpoint) directory at `dir`, replacing one that is there. */
export async function savePpoModel(
  dir: string,
  nets: PpoNetworks,
  options: SavePpoOptions,
): Promise<void> {
  const weights = await encodeTensors(networkTensors(nets));
  const weightBytes = weights.bytes;
  refuseNonFinite(dir, "the networks' weights", weightBytes, weights.specs, DIVERGED_HINT);
  const json: PpoModelJson = {
    format: FORMAT,
    version: VERSION,
    network: { ...nets.config },
    ppo: options.ppo,
    normalizer: options.normalizer?.toJSON() ?? null,
    meta: options.meta ?? {},
    weightsManifest: weightsManifest('weights.bin', weights.specs),
    weightsSha256: sha256(weightBytes),
  };
  let optimizerBytes: Uint8Array | undefined;
  if (options.checkpoint !== undefined) {
    const state = await options.checkpoint.optimizer.getWeights();
    const encoded = await encodeTensors(state);
    optimizerBytes = encoded.bytes;
    refuseNonFinite(dir, "Adam's state", optimizerBytes, encoded.specs, DIVERGED_HINT);
    json.training = {
      ...options.checkpoint.counters,
      optimizerManifest: weightsManifest('optimizer.bin', encoded.specs),
      optimizerSha256: sha256(optimizerBytes),
    };
  }
  const files: [string, Uint8Array | string][] = [['weights.bin', weightBytes]];
  if (optimizerBytes !== undefined) files.push(['optimizer.bin', optimizerBytes]);
  files.push(['model.json', `${JSON.stringify(json, null, 2)}\n`]);
  writeDirectoryAtomic(dir, files);
}

const DIVERGED_HINT =
  'train again with a lower learning rate (--lr) or a smaller --ratio-clip; a run keeps its last good checkpoint';

function invalidModel(path: string, message: string, hint?: string): TradelabError {
  return new TradelabError('MODEL_INVALID', `${path}: ${message}`, {
    hint:
      hint ??
      'point at a directory written by `tradelab train ppo` (it holds model.json and weights.bin)',
  });
}

/** What to do about a model or checkpoint whose files changed after they were saved. */
function damagedHint(checkpoint: boolean): string {
  return checkpoint
    ? 'the checkpoint changed after it was saved (a disk or copy error, or an edit) and cannot be resumed: restore the run directory from a backup, or start a new run with another --out'
    : 'the model changed after it was saved (a disk or copy error, or an edit): restore its directory from a backup, or train again';
}

function validReturnStatistics(value: unknown): value is ReturnStatistics {
  if (typeof value !== 'object' || value === null) return false;
  const { count, mean, variance } = value as Record<string, unknown>;
  return (
    typeof count === 'number' &&
    typeof mean === 'number' &&
    typeof variance === 'number' &&
    Number.isFinite(count) &&
    Number.isFinite(mean) &&
    Number.isFinite(variance) &&
    count > 0 &&
    variance >= 0
  );
}

/** Options of {@link loadPpoModel}. */
export interface LoadPpoOptions {
  /**
   * How messages name the model's files (`weights.bin of LABEL`); default their paths. For files
   * copied out of somewhere else (a trial's artifacts in a temp dir), whose paths mean nothing.
   */
  label?: string;
  /** What to do about files that are damaged or inconsistent; default: restore or train again. */
  damagedHint?: string;
}

/**
 * Reads a model directory written by {@link savePpoModel}, checking its files against the
 * checksums model.json recorded. Every loader of weights (backtests, trial models, resumed runs)
 * comes through here.
 */
export async function loadPpoModel(
  dir: string,
  options: LoadPpoOptions = {},
): Promise<LoadedPpoModel> {
  const label = options.label;
  const jsonPath = join(dir, 'model.json');
  const jsonName = label === undefined ? jsonPath : `model.json of ${label}`;
  const corrupt = (path: string, message: string, hint?: string): TradelabError =>
    invalidModel(path, message, hint ?? options.damagedHint);
  if (!existsSync(jsonPath))
    throw new TradelabError('MODEL_NOT_FOUND', `no model at ${dir}: ${jsonPath} does not exist`, {
      hint: 'train one with `tradelab train ppo --out DIR`, then pass DIR (or DIR/model)',
    });
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw corrupt(jsonName, `is not valid JSON (${(error as Error).message})`);
  }
  if (raw.format !== FORMAT)
    throw corrupt(jsonName, `format is ${JSON.stringify(raw.format)}, not "${FORMAT}"`);
  if (raw.version !== VERSION)
    throw corrupt(
      jsonName,
      `version ${JSON.stringify(raw.version)}; this tradelab reads version ${VERSION}`,
    );
  const json = raw as unknown as PpoModelJson;
  const ppo = resolveSavedPpoConfig(json.ppo);
  const files: WeightsFiles = {
    dir,
    name: (file) => (label === undefined ? join(dir, file) : `${file} of ${label}`),
    corrupt,
    damagedHint: options.damagedHint ?? damagedHint(json.training !== undefined),
    warnings: [],
  };
  const nets = createPpoNetworks(json.network);
  try {
    const saved = readWeights(files, json.weightsManifest, 'weights', json.weightsSha256);
    assignNamed(networkTensors(nets), saved, (message) => corrupt(jsonName, message));
    const normalizer = json.normalizer === null ? undefined : Normalizer.fromJSON(json.normalizer);
    const loaded: LoadedPpoModel = {
      nets,
      ppo,
      normalizer,
      meta: json.meta,
      warnings: files.warnings,
    };
    if (json.training !== undefined) {
      const state = readWeights(
        files,
        json.training.optimizerManifest,
        'optimizer',
        json.training.optimizerSha256,
      );
      // The learning rate is the configured one; an annealing trainer sets each update's own.
      const optimizer = ppoOptimizer(ppo.learningRate, ppo.adamEpsilon);
      await optimizer.setWeights(
        json.training.optimizerManifest[0]?.weights.map((w) => ({
          name: w.name,
          tensor: state[w.name] as tf.Tensor,
        })) ?? [],
      );
      for (const t of Object.values(state)) t.dispose();
      if (!optimizer.restoredExactly)
        loaded.warnings.push(
          `${label ?? dir} was written by an older tradelab, without Adam's bias-correction products: training continues close to, not exactly like, a run that never stopped`,
        );
      loaded.optimizer = optimizer;
      const statistics = json.training.returnStatistics;
      if (statistics !== undefined && !validReturnStatistics(statistics))
        throw corrupt(
          jsonName,
          `training.returnStatistics ${JSON.stringify(statistics)} is not {count > 0, mean, variance ≥ 0} of finite numbers`,
        );
      if (ppo.normalizeRewards && statistics === undefined)
        loaded.warnings.push(
          `${label ?? dir} has no reward-scaling statistics: training continues with fresh ones, close to, not exactly like, a run that never stopped`,
        );
      loaded.training = {
        updatesDone: json.training.updatesDone,
        envSteps: json.training.envSteps,
        ...(json.training.returnStatistics === undefined
          ? {}
          : { returnStatistics: json.training.returnStatistics }),
      };
    }
    return loaded;
  } catch (error) {
    disposePpoNetworks(nets);
    throw error;
  }
}

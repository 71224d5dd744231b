import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as tf from '../compute/tfjs.js';
import { TradelabError } from '../core/index.js';
import { resolveTcnConfig, Tcn, type ResolvedTcnConfig } from './tcn.js';
import {
  assignNamed,
  encodeTensors,
  readWeights,
  refuseNonFinite,
  sha256,
  weightsManifest,
  writeDirectoryAtomic,
  type WeightsFiles,
} from './weights-directory.js';

/*
 * A TCN on disk: `model.json` (the config, the caller's metadata, the weights manifest and its
 * SHA-256) beside `weights.bin`; a checkpoint adds `optimizer.bin` (Adam's state) and the trainer's
 * own state in model.json, so training resumes exactly. Written and checked as every model
 * directory is (weights-directory.ts). DRL policies read a pretraining run's model through here.
 */

const FORMAT = 'tradelab-tcn';
const VERSION = 1;

/** What model.json holds. */
export interface TcnModelJson {
  format: typeof FORMAT;
  version: number;
  config: ResolvedTcnConfig;
  meta: Record<string, unknown>;
  weightsManifest: tf.io.WeightsManifestConfig;
  weightsSha256: string;
  /** Present in checkpoints: the trainer's state and Adam's. */
  training?: {
    state: Record<string, unknown>;
    optimizerManifest: tf.io.WeightsManifestConfig;
    optimizerSha256: string;
  };
}

/** Options of {@link saveTcnModel}. */
export interface SaveTcnOptions {
  meta?: Record<string, unknown>;
  /** A checkpoint: Adam's state and the trainer's. */
  checkpoint?: { optimizer: tf.Optimizer; state: Record<string, unknown> };
}

/** A loaded TCN. Dispose `net` when done. */
export interface LoadedTcnModel {
  net: Tcn;
  meta: Record<string, unknown>;
  /** Checkpoints only: Adam's saved state (dispose the tensors) and the trainer's. */
  training?: { optimizerWeights: tf.NamedTensorMap; state: Record<string, unknown> };
  warnings: string[];
}

const DIVERGED_HINT =
  'train again with a lower --lr; the run keeps its last good checkpoint, so --resume is not the fix';

/** Writes a TCN (or a checkpoint) directory at `dir`, replacing one that is there. */
export async function saveTcnModel(
  dir: string,
  net: Tcn,
  options: SaveTcnOptions = {},
): Promise<void> {
  const weights = await encodeTensors(net.namedVariables());
  refuseNonFinite(dir, "the TCN's weights", weights.bytes, weights.specs, DIVERGED_HINT);
  const json: TcnModelJson = {
    format: FORMAT,
    version: VERSION,
    config: net.config,
    meta: options.meta ?? {},
    weightsManifest: weightsManifest('weights.bin', weights.specs),
    weightsSha256: sha256(weights.bytes),
  };
  const files: [string, Uint8Array | string][] = [['weights.bin', weights.bytes]];
  if (options.checkpoint !== undefined) {
    const state = await encodeTensors(await options.checkpoint.optimizer.getWeights());
    refuseNonFinite(dir, "Adam's state", state.bytes, state.specs, DIVERGED_HINT);
    json.training = {
      state: options.checkpoint.state,
      optimizerManifest: weightsManifest('optimizer.bin', state.specs),
      optimizerSha256: sha256(state.bytes),
    };
    files.push(['optimizer.bin', state.bytes]);
  }
  files.push(['model.json', `${JSON.stringify(json, null, 2)}\n`]);
  writeDirectoryAtomic(dir, files);
}

/** Reads a directory written by {@link saveTcnModel}, checking its files' checksums. */
export function loadTcnModel(dir: string, name = 'tcn'): LoadedTcnModel {
  const jsonPath = join(dir, 'model.json');
  const corrupt = (path: string, message: string, hint?: string): TradelabError =>
    new TradelabError('MODEL_INVALID', `${path}: ${message}`, {
      hint:
        hint ??
        'point at a directory written by `tradelab pretrain tcn` (it holds model.json and weights.bin)',
    });
  if (!existsSync(jsonPath))
    throw new TradelabError('MODEL_NOT_FOUND', `no TCN at ${dir}: ${jsonPath} does not exist`, {
      hint: 'pretrain one with `tradelab pretrain tcn --out DIR`, then pass DIR',
    });
  let json: TcnModelJson;
  try {
    json = JSON.parse(readFileSync(jsonPath, 'utf8')) as TcnModelJson;
  } catch (error) {
    throw corrupt(jsonPath, `is not valid JSON (${(error as Error).message})`);
  }
  if ((json.format as string) !== FORMAT)
    throw corrupt(jsonPath, `format is ${JSON.stringify(json.format)}, not "${FORMAT}"`);
  if (json.version !== VERSION)
    throw corrupt(
      jsonPath,
      `version ${JSON.stringify(json.version)}; this tradelab reads version ${VERSION}`,
    );
  const files: WeightsFiles = {
    dir,
    name: (file) => join(dir, file),
    corrupt,
    damagedHint:
      'the files changed after they were saved (a disk or copy error, or an edit): restore the run directory from a backup, or train again',
    warnings: [],
  };
  const net = new Tcn(resolveTcnConfig(json.config), name);
  try {
    const saved = readWeights(files, json.weightsManifest, 'weights', json.weightsSha256);
    assignNamed(net.namedVariables(), saved, (message) => corrupt(jsonPath, message));
    const loaded: LoadedTcnModel = { net, meta: json.meta, warnings: files.warnings };
    if (json.training !== undefined)
      loaded.training = {
        optimizerWeights: readWeights(
          files,
          json.training.optimizerManifest,
          'optimizer',
          json.training.optimizerSha256,
        ),
        state: json.training.state,
      };
    return loaded;
  } catch (error) {
    net.dispose();
    throw error;
  }
}

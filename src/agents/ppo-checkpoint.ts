import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { Normalizer, type NormalizerJson } from '../data/features/normalizer.js';
import { TradelabError, writeFileAtomic } from '../core/index.js';
import { resolveSavedPpoConfig, type PpoConfig } from './ppo-config.js';
import {
  createPpoNetworks,
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
 */

const FORMAT = 'tradelab-ppo';
const VERSION = 1;

/** Training counters stored with a checkpoint. */
export interface PpoTrainingCounters {
  updatesDone: number;
  envSteps: number;
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
  /** Present in checkpoints. */
  training?: PpoTrainingCounters & { optimizerManifest: tf.io.WeightsManifestConfig };
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

function manifest(path: string, specs: tf.io.WeightsManifestEntry[]): tf.io.WeightsManifestConfig {
  return [{ paths: [path], weights: specs }];
}

function bytes(data: tf.io.WeightData): Uint8Array {
  const buffers = Array.isArray(data) ? data : [data];
  return new Uint8Array(tf.io.CompositeArrayBuffer.join(buffers));
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
  const weights = await tf.io.encodeWeights(networkTensors(nets));
  const json: PpoModelJson = {
    format: FORMAT,
    version: VERSION,
    network: { ...nets.config },
    ppo: options.ppo,
    normalizer: options.normalizer?.toJSON() ?? null,
    meta: options.meta ?? {},
    weightsManifest: manifest('weights.bin', weights.specs),
  };
  let optimizerBytes: Uint8Array | undefined;
  if (options.checkpoint !== undefined) {
    const state = await options.checkpoint.optimizer.getWeights();
    const encoded = await tf.io.encodeWeights(state);
    optimizerBytes = bytes(encoded.data);
    json.training = {
      ...options.checkpoint.counters,
      optimizerManifest: manifest('optimizer.bin', encoded.specs),
    };
  }
  const temp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  mkdirSync(temp, { recursive: true });
  try {
    writeFileAtomic(join(temp, 'weights.bin'), bytes(weights.data));
    if (optimizerBytes !== undefined) writeFileAtomic(join(temp, 'optimizer.bin'), optimizerBytes);
    writeFileAtomic(join(temp, 'model.json'), `${JSON.stringify(json, null, 2)}\n`);
    replaceDirectory(temp, dir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/** Moves `temp` to `dir`; an existing `dir` is moved aside first and removed after. */
function replaceDirectory(temp: string, dir: string): void {
  mkdirSync(dirname(dir), { recursive: true });
  if (!existsSync(dir)) {
    renameSync(temp, dir);
    return;
  }
  const old = `${dir}.old-${process.pid}-${Math.random().toString(36).slice(2)}`;
  renameSync(dir, old);
  renameSync(temp, dir);
  rmSync(old, { recursive: true, force: true });
}

function corrupt(path: string, message: string): TradelabError {
  return new TradelabError('MODEL_INVALID', `${path}: ${message}`, {
    hint: 'point at a directory written by `tradelab train ppo` (it holds model.json and weights.bin)',
  });
}

function readWeights(
  dir: string,
  config: tf.io.WeightsManifestConfig,
  what: string,
): tf.NamedTensorMap {
  const group = config[0];
  const file = group?.paths[0];
  if (group === undefined || file === undefined)
    throw corrupt(join(dir, 'model.json'), `the ${what} manifest lists no file`);
  const path = join(dir, file);
  if (!existsSync(path)) throw corrupt(path, 'is missing');
  const data = readFileSync(path);
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  const expected = group.weights.reduce(
    (sum, w) => sum + w.shape.reduce((p, d) => p * d, 1) * 4,
    0,
  );
  if (buffer.byteLength !== expected)
    throw corrupt(path, `holds ${buffer.byteLength} bytes; the manifest describes ${expected}`);
  return tf.io.decodeWeights(buffer, group.weights);
}

/** Reads a model directory written by {@link savePpoModel}. */
export async function loadPpoModel(dir: string): Promise<LoadedPpoModel> {
  const jsonPath = join(dir, 'model.json');
  if (!existsSync(jsonPath))
    throw new TradelabError('MODEL_NOT_FOUND', `no model at ${dir}: ${jsonPath} does not exist`, {
      hint: 'train one with `tradelab train ppo --out DIR`, then pass DIR (or DIR/model)',
    });
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw corrupt(jsonPath, `is not valid JSON (${(error as Error).message})`);
  }
  if (raw.format !== FORMAT)
    throw corrupt(jsonPath, `format is ${JSON.stringify(raw.format)}, not "${FORMAT}"`);
  if (raw.version !== VERSION)
    throw corrupt(
      jsonPath,
      `version ${JSON.stringify(raw.version)}; this tradelab reads version ${VERSION}`,
    );
  const json = raw as unknown as PpoModelJson;
  const ppo = resolveSavedPpoConfig(json.ppo);
  const nets = createPpoNetworks(json.network);
  try {
    const saved = readWeights(dir, json.weightsManifest, 'weights');
    const targets = networkTensors(nets);
    for (const [name, variable] of Object.entries(targets)) {
      const value = saved[name];
      if (value === undefined) throw corrupt(jsonPath, `weights lack ${name}`);
      if (value.shape.join('x') !== variable.shape.join('x'))
        throw corrupt(
          jsonPath,
          `${name} has shape [${value.shape.join(', ')}], the network [${variable.shape.join(', ')}]`,
        );
      variable.assign(value);
    }
    for (const t of Object.values(saved)) t.dispose();
    const normalizer = json.normalizer === null ? undefined : Normalizer.fromJSON(json.normalizer);
    const loaded: LoadedPpoModel = { nets, ppo, normalizer, meta: json.meta, warnings: [] };
    if (json.training !== undefined) {
      const state = readWeights(dir, json.training.optimizerManifest, 'optimizer');
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
          `${dir} was written by an older tradelab, without Adam's bias-correction products: training continues close to, not exactly like, a run that never stopped`,
        );
      loaded.optimizer = optimizer;
      loaded.training = {
        updatesDone: json.training.updatesDone,
        envSteps: json.training.envSteps,
      };
    }
    return loaded;
  } catch (error) {
    nets.actor.dispose();
    nets.critic.dispose();
    nets.logStd.dispose();
    throw error;
  }
}

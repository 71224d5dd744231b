import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tf from '../compute/tfjs.js';
import {
  fileSystemError,
  isTradelabError,
  makeDirectory,
  TradelabError,
  writeFileAtomic,
} from '../core/index.js';

/*
 * What every model directory of tradelab (PPO models and checkpoints, TCN runs) does with its
 * weights: tfjs's binary weights format with a manifest, a SHA-256 of each file recorded in the
 * directory's JSON and checked at every load, non-finite values refused both ways (a diverged
 * run saves nothing; a damaged file never loads), and the whole directory written under a
 * temporary name and renamed into place, so a crash never leaves half a model.
 */

/** A weights manifest naming one file. */
export function weightsManifest(
  path: string,
  specs: tf.io.WeightsManifestEntry[],
): tf.io.WeightsManifestConfig {
  return [{ paths: [path], weights: specs }];
}

/** Named tensors in tfjs's binary format: the bytes and their manifest entries. */
export async function encodeTensors(
  tensors: tf.NamedTensorMap | { name: string; tensor: tf.Tensor }[],
): Promise<{ bytes: Uint8Array; specs: tf.io.WeightsManifestEntry[] }> {
  const encoded = await tf.io.encodeWeights(tensors);
  const buffers = Array.isArray(encoded.data) ? encoded.data : [encoded.data];
  return { bytes: new Uint8Array(tf.io.CompositeArrayBuffer.join(buffers)), specs: encoded.specs };
}

/** SHA-256 of bytes, hex. */
export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The first non-finite float32 value of encoded weights, as "NAME holds NaN (element i of n)", or
 * undefined when every value is finite. Every tensor here is 4 bytes an element (float32, and
 * Adam's int32 step count, which cannot be non-finite).
 */
export function firstNonFinite(
  data: Uint8Array,
  specs: tf.io.WeightsManifestEntry[],
): string | undefined {
  let offset = data.byteOffset;
  for (const spec of specs) {
    const count = spec.shape.reduce((p, d) => p * d, 1);
    if (spec.dtype === 'float32') {
      const values = new Float32Array(data.buffer.slice(offset, offset + count * 4));
      const at = values.findIndex((v) => !Number.isFinite(v));
      if (at >= 0) return `${spec.name} holds ${String(values[at])} (element ${at} of ${count})`;
    }
    offset += count * 4;
  }
  return undefined;
}

/** A model that is not finite is not saved: the one at `dir`, if any, stays as it was. */
export function refuseNonFinite(
  dir: string,
  what: string,
  data: Uint8Array,
  specs: tf.io.WeightsManifestEntry[],
  hint: string,
): void {
  const bad = firstNonFinite(data, specs);
  if (bad !== undefined)
    throw new TradelabError(
      'TRAINING_DIVERGED',
      `${what} are not finite (${bad}): training diverged, so nothing was saved to ${dir}`,
      { hint },
    );
}

/**
 * Writes `files` (name → bytes or text) as the directory `dir`: into a temporary sibling first,
 * then renamed into place (an existing `dir` is moved aside and removed after).
 */
export function writeDirectoryAtomic(dir: string, files: [string, Uint8Array | string][]): void {
  const temp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  makeDirectory(temp);
  let writing = dir;
  try {
    for (const [name, data] of files) {
      writing = join(dir, name);
      writeFileAtomic(join(temp, name), data);
    }
    makeDirectory(dirname(dir));
    if (!existsSync(dir)) {
      renameSync(temp, dir);
      return;
    }
    const old = `${dir}.old-${process.pid}-${Math.random().toString(36).slice(2)}`;
    renameSync(dir, old);
    renameSync(temp, dir);
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // Named as the file the user knows, not by the temporary folder it was written in.
    const raw = isTradelabError(error, 'FILE_ACCESS') ? error.cause : error;
    throw fileSystemError(raw, writing) ?? error;
  }
}

/** Where a model's files are, how messages name them, and what to say when they are damaged. */
export interface WeightsFiles {
  dir: string;
  name(file: string): string;
  /** The error for a damaged or inconsistent file. */
  corrupt(path: string, message: string, hint?: string): TradelabError;
  /** What to do about a file that changed after it was saved. */
  damagedHint: string;
  /** Things the caller should tell the user (a file without a checksum). */
  warnings: string[];
}

/**
 * Reads and decodes one weights file: its size must match the manifest, its SHA-256 the one
 * recorded (a file without one, from an older tradelab, loads with a warning), and every value
 * must be finite.
 */
export function readWeights(
  files: WeightsFiles,
  config: tf.io.WeightsManifestConfig,
  what: string,
  recordedSha256: string | undefined,
  jsonFile = 'model.json',
): tf.NamedTensorMap {
  const corrupt = files.corrupt.bind(files);
  const group = config[0];
  const file = group?.paths[0];
  if (group === undefined || file === undefined)
    throw corrupt(files.name(jsonFile), `the ${what} manifest lists no file`);
  const path = join(files.dir, file);
  const name = files.name(file);
  if (!existsSync(path)) throw corrupt(name, 'is missing');
  const data = readFileSync(path);
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  const expected = group.weights.reduce(
    (sum, w) => sum + w.shape.reduce((p, d) => p * d, 1) * 4,
    0,
  );
  if (buffer.byteLength !== expected)
    throw corrupt(name, `holds ${buffer.byteLength} bytes; the manifest describes ${expected}`);
  if (recordedSha256 === undefined)
    files.warnings.push(
      `${name} has no checksum (written by an older tradelab), so it cannot be checked for damage`,
    );
  else {
    const actual = sha256(data);
    if (actual !== recordedSha256)
      throw corrupt(
        name,
        `is corrupted: its SHA-256 is ${actual.slice(0, 12)}…, ${jsonFile} recorded ${recordedSha256.slice(0, 12)}… when it was saved`,
        files.damagedHint,
      );
  }
  const bad = firstNonFinite(data, group.weights);
  if (bad !== undefined)
    throw corrupt(name, `${bad}: a model that is not finite cannot be used`, files.damagedHint);
  return tf.io.decodeWeights(buffer, group.weights);
}

/**
 * Assigns `saved` to `targets` by name, checking every target is there with its shape; disposes
 * `saved`.
 */
export function assignNamed(
  targets: Record<string, tf.Variable>,
  saved: tf.NamedTensorMap,
  fail: (message: string) => TradelabError,
): void {
  try {
    for (const [name, variable] of Object.entries(targets)) {
      const value = saved[name];
      if (value === undefined) throw fail(`weights lack ${name}`);
      if (value.shape.join('x') !== variable.shape.join('x'))
        throw fail(
          `${name} has shape [${value.shape.join(', ')}], the network [${variable.shape.join(', ')}]`,
        );
      variable.assign(value);
    }
  } finally {
    for (const t of Object.values(saved)) t.dispose();
  }
}

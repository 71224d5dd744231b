import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TradelabError, writeFileAtomic, makeDirectory } from '../core/index.js';
import { DEFAULT_MAX_INLINE_ARTIFACT_BYTES, type StorageOptions } from './storage-options.js';

/*
 * Artifacts too large for a database row live as files under the configured directory, which
 * every worker (on every machine, for PostgreSQL) must see at the same path.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Throws unless `name` is a safe artifact (and file) name. */
export function checkArtifactName(name: string): void {
  if (!NAME.test(name))
    throw new TradelabError('INVALID_ARGUMENT', `artifact name "${name}" is not allowed`, {
      hint: 'use letters, digits, ".", "_" and "-" (up to 200), starting with a letter or digit',
    });
}

/** Whether `bytes` go to a file; throws when they are too large and no directory is configured. */
export function spillsToFile(bytes: Uint8Array, options: StorageOptions): boolean {
  const limit = options.maxInlineArtifactBytes ?? DEFAULT_MAX_INLINE_ARTIFACT_BYTES;
  if (bytes.byteLength <= limit) return false;
  if (options.artifactDir === undefined)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `artifact of ${bytes.byteLength} bytes is over the ${limit}-byte limit for the database`,
      {
        hint: 'set paths.artifacts (--artifact-dir, TRADELAB_ARTIFACT_DIR) to a directory every worker sees',
      },
    );
  return true;
}

/**
 * Writes an artifact file atomically (temp file + rename) and returns its path. Every write gets
 * a new file (a random prefix): storages sharing the directory, or a study exported with the same
 * ids elsewhere, never overwrite each other's files; the storage deletes the file it replaces.
 */
export function writeArtifactFile(
  dir: string,
  studyId: number,
  trialNumber: number,
  name: string,
  bytes: Uint8Array,
): string {
  const path = join(dir, String(studyId), String(trialNumber), `${randomUUID()}-${name}`);
  makeDirectory(dirname(path));
  // Atomic, and a write that fails (a full disk) removes its temp file rather than leaving it.
  writeFileAtomic(path, bytes);
  return path;
}

/** Reads an artifact file, saying which trial's artifact is missing if it is. */
export function readArtifactFile(path: string, trialId: number, name: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    throw new TradelabError(
      'STORAGE_UNAVAILABLE',
      `artifact "${name}" of trial ${trialId} should be at ${path}, which cannot be read`,
      { hint: 'every worker must see artifactDir at the same path', cause: error },
    );
  }
}

/** Deletes artifact files no row points at any more (missing ones are fine). */
export function removeArtifactFiles(paths: readonly (string | null | undefined)[]): void {
  for (const path of paths) if (path !== null && path !== undefined) rmSync(path, { force: true });
}

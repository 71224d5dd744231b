import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closestMatch, TradelabError } from '../core/index.js';
import { PresetFileSchema, readCheckedFile, type PresetFile } from './study-spec.js';

/*
 * Presets are data: YAML files in the package's presets/ directory (the same from src/ under the
 * tests and from dist/ when installed), each a description and parameters.
 */

/** The directory the presets ship in. */
export function presetDirectory(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'presets');
}

/** The names of the presets, sorted. */
export function listPresets(dir = presetDirectory()): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** Reads preset `name`; an unknown name is an error listing the presets (and the nearest). */
export function loadPreset(name: string, dir = presetDirectory()): PresetFile {
  const names = listPresets(dir);
  if (!names.includes(name)) {
    const near = closestMatch(name, names);
    throw new TradelabError('INVALID_ARGUMENT', `no preset named "${name}"`, {
      hint: `presets: ${names.join(', ')}${near === undefined ? '' : ` (did you mean ${near}?)`}`,
    });
  }
  return readCheckedFile(join(dir, `${name}.yaml`), PresetFileSchema, 'preset').content;
}

import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closestMatch, TradelabError } from '../core/index.js';
import { compiledPath } from '../core/compiled-path.js';
import type { Objective } from './optimize.js';

/*
 * Worker processes cannot receive a closure, so an objective travels as a module: a JavaScript
 * file exporting `objective(trial)` (named or default), loaded by each worker, or the name of one
 * tradelab ships.
 */

/** Objectives tradelab ships, by name. */
export const BUILTIN_OBJECTIVES: Readonly<Record<string, string>> = {
  /** x² over one float: for trying the engine and benchmarking it. */
  quadratic: 'tune/objectives/quadratic.js',
  /** PPO trading agents, cross-validated: the objective of a trading study (`--preset`/`--data`). */
  drl: 'trading/drl-worker-objective.js',
};

/**
 * The module file of objective `spec`: a built-in's compiled module for a bare name (no path
 * separator, no extension), else the path (relative to `baseDir`).
 * @throws TradelabError INVALID_ARGUMENT for an unknown bare name, or a file that does not exist.
 */
export function resolveObjective(spec: string, baseDir = process.cwd()): string {
  if (/^[A-Za-z][\w-]*$/.test(spec)) {
    const builtin = BUILTIN_OBJECTIVES[spec];
    if (builtin !== undefined) return compiledPath(builtin);
    const names = Object.keys(BUILTIN_OBJECTIVES);
    const near = closestMatch(spec, names);
    throw new TradelabError('INVALID_ARGUMENT', `no built-in objective named "${spec}"`, {
      hint: `built-in: ${names.join(', ')}${near === undefined ? '' : ` (did you mean ${near}?)`}; or pass a module path such as ./objective.mjs`,
    });
  }
  const path = isAbsolute(spec) ? spec : resolve(baseDir, spec);
  if (!existsSync(path))
    throw new TradelabError('FILE_NOT_FOUND', `objective module ${path} does not exist`, {
      hint: 'pass a .js/.mjs file that exports `objective(trial)`; a relative path is relative to the working directory',
      details: { path },
    });
  return path;
}

/**
 * Loads the objective of `spec` (see {@link resolveObjective}).
 * @throws TradelabError INVALID_ARGUMENT when the file is missing or exports no objective.
 */
export async function loadObjective(spec: string, baseDir = process.cwd()): Promise<Objective> {
  const path = resolveObjective(spec, baseDir);
  let module: { objective?: unknown; default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new TradelabError(
      'OBJECTIVE_INVALID',
      `objective module ${path} failed to load: ${(error as Error).message}`,
      {
        hint: 'it must be JavaScript Node can import (compile TypeScript first)',
        cause: error,
      },
    );
  }
  const objective = module.objective ?? module.default;
  if (typeof objective !== 'function')
    throw new TradelabError('OBJECTIVE_INVALID', `objective module ${path} exports no objective`, {
      hint: 'export a function: `export function objective(trial) { … return value; }`',
      details: { path },
    });
  return objective as Objective;
}

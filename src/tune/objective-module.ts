import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TradelabError } from '../errors/index.js';
import type { Objective } from './optimize.js';

/*
 * Worker processes cannot receive a closure, so an objective travels as a module: a JavaScript
 * file exporting `objective(trial)` (named or default), loaded by each worker.
 */

/**
 * Loads the objective of module `spec` (a path; a relative one resolves against `baseDir`).
 * @throws TradelabError INVALID_ARGUMENT when the file is missing or exports no objective.
 */
export async function loadObjective(spec: string, baseDir = process.cwd()): Promise<Objective> {
  const path = isAbsolute(spec) ? spec : resolve(baseDir, spec);
  if (!existsSync(path))
    throw new TradelabError('INVALID_ARGUMENT', `objective module ${path} does not exist`, {
      hint: 'pass a .js/.mjs file that exports `objective(trial)`',
      details: { path },
    });
  let module: { objective?: unknown; default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `objective module ${path} failed to load: ${(error as Error).message}`,
      {
        hint: 'it must be JavaScript Node can import (compile TypeScript first)',
        cause: error,
      },
    );
  }
  const objective = module.objective ?? module.default;
  if (typeof objective !== 'function')
    throw new TradelabError('INVALID_ARGUMENT', `objective module ${path} exports no objective`, {
      hint: 'export a function: `export function objective(trial) { … return value; }`',
      details: { path },
    });
  return objective as Objective;
}

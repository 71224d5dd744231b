import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorText } from '../core/error-text.js';
import { closestMatch, compiledPath, isTradelabError, TradelabError } from '../core/index.js';
import type { Objective } from './objective.js';

/*
 * Worker processes cannot receive a closure, so an objective travels as a module: a JavaScript
 * file exporting `objective(trial)`, or `createObjective(setup)` when it needs settings from the
 * process that started the run (they travel in the worker's start message, never in the
 * environment). Applications of the engine register their objectives by name (the trading
 * study's `drl` is registered by the app layer); the engine ships only `quadratic`.
 */

/** What a worker hands an objective module's `createObjective`. */
export interface ObjectiveSetup {
  /** Worker processes sharing this machine (1 when trials run in the calling process). */
  workers: number;
  /** Trials this process runs at once (slots). Default 1. */
  slots?: number;
  /** The settings the run passed for its objective (JSON: they cross a process boundary). */
  options: Readonly<Record<string, unknown>>;
}

/** A named objective module. */
export interface RegisteredObjective {
  /** Absolute path of the module. */
  module: string;
  /** One line for help texts. */
  description: string;
}

const registry = new Map<string, RegisteredObjective>([
  [
    'quadratic',
    {
      module: compiledPath('tune/objectives/quadratic.js'),
      description: 'x² over one float: for trying the engine and benchmarking it',
    },
  ],
]);

/** Makes `name` resolve to `module` (an absolute path) in {@link resolveObjective}. */
export function registerObjective(name: string, objective: RegisteredObjective): void {
  if (!/^[A-Za-z][\w-]*$/.test(name))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `objective name ${JSON.stringify(name)} is not allowed`,
      { hint: 'use letters, digits, - and _, starting with a letter' },
    );
  registry.set(name, objective);
}

/** The objectives registered by name. */
export function registeredObjectives(): ReadonlyMap<string, RegisteredObjective> {
  return registry;
}

/**
 * The module file of objective `spec`: a registered objective's module for a bare name (no path
 * separator, no extension), else the path (relative to `baseDir`).
 * @throws TradelabError OBJECTIVE_NOT_FOUND for an unknown bare name, or a file that does not exist.
 */
export function resolveObjective(spec: string, baseDir = process.cwd()): string {
  if (/^[A-Za-z][\w-]*$/.test(spec)) {
    const registered = registry.get(spec);
    if (registered !== undefined) return registered.module;
    const names = [...registry.keys()];
    const near = closestMatch(spec, names);
    throw new TradelabError('OBJECTIVE_NOT_FOUND', `no objective named "${spec}"`, {
      hint: `known: ${names.join(', ')}${near === undefined ? '' : ` (did you mean ${near}?)`}; or pass a module path such as ./objective.mjs`,
    });
  }
  const path = isAbsolute(spec) ? spec : resolve(baseDir, spec);
  if (!existsSync(path))
    throw new TradelabError('OBJECTIVE_NOT_FOUND', `objective module ${path} does not exist`, {
      hint: 'pass a .js/.mjs file that exports `objective(trial)`; a relative path is relative to the working directory',
      details: { path },
    });
  return path;
}

/**
 * Loads the objective of `spec` (see {@link resolveObjective}): its `createObjective(setup)`'s
 * result, else its `objective` (or default) export.
 * @throws TradelabError OBJECTIVE_INVALID when the module fails to load or exports no objective.
 */
export async function loadObjective(
  spec: string,
  setup: ObjectiveSetup = { workers: 1, options: {} },
  baseDir = process.cwd(),
): Promise<Objective> {
  const path = resolveObjective(spec, baseDir);
  let module: { objective?: unknown; createObjective?: unknown; default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new TradelabError(
      'OBJECTIVE_INVALID',
      `objective module ${path} failed to load: ${errorText(error)}`,
      {
        hint: 'it must be JavaScript Node can import (compile TypeScript first) that does not throw as it loads',
        cause: error,
      },
    );
  }
  if (typeof module.createObjective === 'function') {
    let created: unknown;
    try {
      created = await (module.createObjective as (setup: ObjectiveSetup) => Promise<unknown>)(
        setup,
      );
    } catch (error) {
      // Ours (a built-in objective's settings) say what to do; a user's module is named.
      if (isTradelabError(error)) throw error;
      throw new TradelabError(
        'OBJECTIVE_INVALID',
        `objective module ${path}: createObjective() threw: ${errorText(error)}`,
        {
          hint: 'fix the module, or run its createObjective(setup) alone to see why',
          cause: error,
        },
      );
    }
    if (typeof created !== 'function')
      throw new TradelabError(
        'OBJECTIVE_INVALID',
        `objective module ${path}: createObjective() returned ${typeof created}, not a function`,
        {
          hint: 'return the objective: `export function createObjective(setup) { return (trial) => … }`',
        },
      );
    return created as Objective;
  }
  const objective = module.objective ?? module.default;
  if (typeof objective !== 'function')
    throw new TradelabError('OBJECTIVE_INVALID', `objective module ${path} exports no objective`, {
      hint: 'export a function: `export function objective(trial) { … return value; }`',
      details: { path },
    });
  return objective as Objective;
}

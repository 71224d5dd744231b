import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TradelabError } from '../../src/core/index.js';

/** The TradelabError `fn` throws; fails the test when it throws nothing or something else. */
export function errorOf(fn: () => unknown): TradelabError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a TradelabError, but nothing was thrown');
}

/** The absolute path of a system utility, so fake tools do not depend on PATH. */
export function utility(name: string): string {
  for (const dir of ['/usr/bin', '/bin']) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  throw new Error(`${name} not found in /usr/bin or /bin`);
}

/** The TradelabError `promise` rejects with; fails if it resolves or rejects with anything else. */
export async function errorOfAsync(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TradelabError) return error;
    throw error;
  }
  throw new Error('expected a TradelabError, but nothing was thrown');
}

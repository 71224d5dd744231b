import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The path of a compiled module under dist/, for code that starts a thread or a process on it.
 * From src/ (tests) and from dist/ alike, since both sit two levels below the package root; the
 * tests run after the build (`npm test` builds first).
 */
export function compiledPath(pathInDist: string): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(root, 'dist', pathInDist);
}

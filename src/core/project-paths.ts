import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { TradelabError } from './tradelab-error.js';

/*
 * Paths that arrive from outside the machine's owner (a job's --out DIR or campaign FILE over
 * HTTP, the paths a campaign file names in a job of the service, a run's files the service reads)
 * may only name places inside the project. Checking the text is not enough: `runs/../..`, an
 * absolute path, a symlink inside the project that points out of it, and their URL-encoded forms
 * (decoded before they reach here) must all fail. So the path is resolved, the deepest part of it
 * that exists is resolved through its symlinks, and the result must still be under the project's
 * own real path.
 */

/** Whether `path` is `root` or inside it (both absolute and resolved). */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** `path` with the symlinks of its deepest existing ancestor resolved. */
function realPathOf(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
  return resolve(realpathSync(existing), ...rest);
}

/**
 * Why absolute path `absolute` is not inside `root` (`leaves the project`, `leads out of the
 * project through a symlink`), or undefined when it is, once every symlink is followed.
 */
export function outsideProject(root: string, absolute: string): string | undefined {
  if (!isInside(resolve(root), resolve(absolute))) return 'leaves the project';
  if (!isInside(realpathSync(root), realPathOf(resolve(absolute))))
    return 'leads out of the project through a symlink';
  return undefined;
}

/**
 * The absolute path `userPath` (relative to `root`) names, when it stays inside `root` once every
 * symlink is followed; else PATH_OUTSIDE_PROJECT naming `what` (e.g. `option --out`).
 */
export function pathInsideProject(root: string, userPath: string, what: string): string {
  const outside = (why: string): TradelabError =>
    new TradelabError('PATH_OUTSIDE_PROJECT', `${what}: "${userPath}" ${why}`, {
      hint: `use a path inside the project (${root}), relative to it, e.g. runs/my-run`,
      details: { path: userPath, field: what },
    });
  if (userPath === '' || userPath.includes('\0')) throw outside('is not a path');
  if (isAbsolute(userPath)) throw outside('is absolute');
  const absolute = resolve(root, userPath);
  const why = outsideProject(root, absolute);
  if (why !== undefined) throw outside(why);
  return absolute;
}

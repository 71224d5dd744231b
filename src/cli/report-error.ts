import { isTradelabError, TradelabError } from '../core/index.js';
import type { OutputStreams } from './output.js';
import { PLAIN, type Style } from './style.js';

/** How to report: `--verbose` adds the stack, `--json` adds a JSON error record on stderr. */
export interface ReportOptions extends OutputStreams {
  verbose: boolean;
  json: boolean;
  /** Colors for stderr: the error line red, `hint:` bold. Plain by default. */
  style?: Style;
}

/**
 * The CLI's one place that turns an error into output: one line saying what failed, a hint line, the
 * stack with `--verbose`. Returns the exit code: 2 for usage/config errors, 1 for anything else.
 */
export function reportError(thrown: unknown, options: ReportOptions): number {
  const { stderr } = options;
  const style = options.style ?? PLAIN;
  const error = fileSystemError(thrown) ?? thrown;
  if (isTradelabError(error)) {
    stderr.write(`${style.red(`error [${error.code}]: ${error.message}`)}\n`);
    if (error.hint !== undefined) stderr.write(`${style.bold('hint:')} ${error.hint}\n`);
    if (options.json) {
      stderr.write(
        `${JSON.stringify({ error: { code: error.code, message: error.message, hint: error.hint, details: error.details } })}\n`,
      );
    }
    if (options.verbose) stderr.write(`${error.stack ?? ''}\n${causeChain(error)}`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`${style.red(`error [INTERNAL]: ${message}`)}\n`);
  stderr.write(
    options.verbose
      ? `${error instanceof Error ? (error.stack ?? '') : ''}\n${causeChain(error)}`
      : `${style.bold('hint:')} this is a bug in tradelab; rerun with --verbose and report the stack trace\n`,
  );
  return 1;
}

function causeChain(error: unknown): string {
  let text = '';
  let cause = error instanceof Error ? error.cause : undefined;
  while (cause !== undefined) {
    text += `caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : JSON.stringify(cause)}\n`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

/** What to do about each file-system failure a user can fix, by Node's errno code. */
const FILE_SYSTEM_HINTS: Readonly<Record<string, string>> = {
  EACCES: 'check the permissions of that path, or choose another',
  EPERM: 'check the permissions of that path, or choose another',
  EROFS: 'that file system is read-only; choose a writable path',
  ENOSPC: 'the disk is full; free some space, or choose another disk',
  EDQUOT: 'the disk quota is used up; free some space, or choose another disk',
  EEXIST: 'something already has that name; remove it, or choose another path',
  ENOENT: 'a folder on that path does not exist; check the path',
  ENOTDIR: 'part of that path is a file, not a folder; check the path',
  EISDIR: 'that path is a folder; name a file',
  EMFILE: 'too many open files; raise the limit (ulimit -n), or run fewer workers',
};

/**
 * An ordinary file-system failure (permission denied, disk full, a name in the way) that escaped
 * as a Node error, as a FILE_ACCESS error naming the path and the fix: it is not a bug in
 * tradelab. Undefined for anything else.
 */
export function fileSystemError(error: unknown): TradelabError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  const hint = code === undefined ? undefined : FILE_SYSTEM_HINTS[code];
  if (hint === undefined || path === undefined) return undefined;
  // Node's message reads "EACCES: permission denied, open '/a/b'": keep the words in between.
  const reason = /^[A-Z]+: ([^,]+)/.exec(error.message)?.[1] ?? code;
  return new TradelabError('FILE_ACCESS', `cannot ${syscall ?? 'use'} ${path}: ${reason}`, {
    hint,
    cause: error,
    details: { path, code, ...(syscall === undefined ? {} : { syscall }) },
  });
}

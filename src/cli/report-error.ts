import { fileSystemError, isTradelabError } from '../core/index.js';
import type { OutputStreams } from './output.js';
import { PLAIN, type Style } from './style.js';

/** Ordinary file-system failures as FILE_ACCESS errors; the mapping lives in core, where the layers that write use it too. */
export { fileSystemError };

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

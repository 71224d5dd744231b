import { describe, expect, it } from 'vitest';
import { TradelabError } from '../core/index.js';
import { fileSystemError, reportError } from './report-error.js';

/** A Node file-system error as `fs` throws it. */
function errnoError(code: string, syscall: string, path: string, words: string): Error {
  return Object.assign(new Error(`${code}: ${words}, ${syscall} '${path}'`), {
    code,
    syscall,
    path,
  });
}

/** Runs {@link reportError} and returns the exit code and what it wrote. */
function report(error: unknown): { exit: number; text: string } {
  let text = '';
  const stream = {
    write: (chunk: string): void => {
      text += chunk;
    },
  };
  const exit = reportError(error, { stdout: stream, stderr: stream, verbose: false, json: false });
  return { exit, text };
}

describe('reportError', () => {
  it('reports a permission error as FILE_ACCESS with the path and the fix, exit 1, not as a bug', () => {
    const { exit, text } = report(
      errnoError('EACCES', 'open', '/srv/data/x.csv', 'permission denied'),
    );
    expect(exit).toBe(1);
    expect(text).toBe(
      'error [FILE_ACCESS]: cannot open /srv/data/x.csv: permission denied\n' +
        'hint: check the permissions of that path, or choose another\n',
    );
  });

  it('names a full disk', () => {
    const error = fileSystemError(
      errnoError('ENOSPC', 'write', '/tmp/x', 'no space left on device'),
    );
    expect(error?.code).toBe('FILE_ACCESS');
    expect(error?.message).toBe('cannot write /tmp/x: no space left on device');
    expect(error?.hint).toMatch(/disk is full/);
  });

  it('leaves other errors alone: a TradelabError keeps its code, anything else is INTERNAL', () => {
    expect(fileSystemError(new Error('boom'))).toBeUndefined();
    expect(fileSystemError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(report(new TradelabError('USAGE', 'bad')).exit).toBe(2);
    const bug = report(new TypeError('x is undefined'));
    expect(bug.exit).toBe(1);
    expect(bug.text).toContain('error [INTERNAL]: x is undefined');
  });
});

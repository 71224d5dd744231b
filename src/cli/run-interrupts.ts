import type { Output } from './output.js';

/*
 * How a run of trial workers (`study run`, `campaign run`) takes Ctrl-C and SIGTERM: the first
 * Ctrl-C lets running trials finish, the second stops them (they end "interrupted" and are
 * re-enqueued), SIGTERM does both at once.
 */

/** Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130;
/** Exit status of a run stopped by SIGTERM (128 + 15). */
export const TERMINATED_EXIT_CODE = 143;

/** What Ctrl-C did: the signals handed to the worker pool, and the exit status it calls for. */
export interface Interrupts {
  /** Aborted by the first Ctrl-C: start no more trials. */
  stop: AbortSignal;
  /** Aborted by the second Ctrl-C (or SIGTERM): stop running trials. */
  kill: AbortSignal;
  /** The signal that interrupted the run, if one did. */
  signalName(): 'SIGINT' | 'SIGTERM' | undefined;
  exitCode(): number | undefined;
  /** Restores the default handling (Ctrl-C ends the process). */
  dispose(): void;
}

/**
 * Ctrl-C once: finish running trials, start no more. Twice: stop the running trials too (they
 * end `fail` "interrupted" and are re-enqueued). A third time: exit at once. SIGTERM (`kill`,
 * `docker stop`) acts as Ctrl-C twice: nobody is there to press it again.
 */
export function handleInterrupts(out: Output, beforeNote: () => void): Interrupts {
  const stop = new AbortController();
  const kill = new AbortController();
  let received: 'SIGINT' | 'SIGTERM' | undefined;
  let count = 0;
  const onSigint = (): void => {
    received ??= 'SIGINT';
    count++;
    beforeNote();
    if (count === 1) {
      out.note('finishing running trials; Ctrl-C again stops them');
      stop.abort();
    } else if (count === 2) {
      out.note(
        'stopping running trials: they end failed ("interrupted") and are re-enqueued; Ctrl-C again exits at once',
      );
      kill.abort();
    } else {
      out.note('exiting now');
      process.exit(INTERRUPTED_EXIT_CODE);
    }
  };
  const onSigterm = (): void => {
    received ??= 'SIGTERM';
    beforeNote();
    out.note(
      'terminated: stopping running trials (they end failed "interrupted" and are re-enqueued)',
    );
    stop.abort();
    kill.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return {
    stop: stop.signal,
    kill: kill.signal,
    signalName: () => received,
    exitCode: () =>
      received === undefined
        ? undefined
        : received === 'SIGINT'
          ? INTERRUPTED_EXIT_CODE
          : TERMINATED_EXIT_CODE,
    dispose: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}

/**
 * Makes the process exit with `code`. A command's result is 0, 1 or 2 (the CLI entry sets the exit
 * code from it after the command returns), so an interrupted run, which succeeded in stopping
 * cleanly, sets its own status when the process exits.
 */
export function setExitCode(code: number): void {
  process.once('exit', () => {
    if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = code;
  });
}

import { constants } from 'node:os';

/*
 * How a long command stops when told to: Ctrl-C (SIGINT), `kill` (SIGTERM) or a closed terminal
 * (SIGHUP). The first asks it to stop at its next safe point (a training run: after the update, its
 * manifest marked interrupted, with the command to resume). A second quits at once, but first lets
 * the command leave its state resumable (`forced`), which the default action of a signal would not.
 *
 * One Ctrl-C can arrive twice: the terminal sends SIGINT to the whole foreground process group,
 * and `npx`/`npm exec` (in the versions that relay signals) sends it to its child again. A repeat
 * of the first signal within {@link REPEAT_MS} is taken as that same keypress.
 */

/** The signals that stop a command. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** One of {@link STOP_SIGNALS}. */
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** A repeat of the first signal within this many ms is the same keypress, relayed. */
export const REPEAT_MS = 1000;

/** What a command does on a signal. */
export interface StopSignalHandlers {
  /** The first signal: stop at the next safe point. */
  requested(signal: StopSignal): void;
  /** A later one: make the state resumable and say how to resume, synchronously; the process then exits. */
  forced(signal: StopSignal): void;
}

/** The listening, and what was received. */
export interface StopSignals {
  /** The first signal received, if any. */
  received(): StopSignal | undefined;
  /** Stops listening (the signals' default actions apply again). */
  dispose(): void;
}

/** The exit status a shell reports for a process ended by `signal` (128 + its number). */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

/** Listens for {@link STOP_SIGNALS} until disposed; see the file header. */
export function onStopSignals(handlers: StopSignalHandlers): StopSignals {
  let first: { signal: StopSignal; at: number } | undefined;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = (): void => {
      const now = Date.now();
      if (first === undefined) {
        first = { signal, at: now };
        handlers.requested(signal);
        return;
      }
      if (signal === first.signal && now - first.at < REPEAT_MS) return;
      handlers.forced(signal);
      process.exit(signalExitCode(signal));
    };
    process.on(signal, listener);
    return { signal, listener };
  });
  return {
    received: () => first?.signal,
    dispose() {
      for (const { signal, listener } of listeners) process.off(signal, listener);
    },
  };
}

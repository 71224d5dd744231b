import { progressRecord } from '../jobs/index.js';
import { numberOption } from './option-values.js';
import type { Output } from './output.js';

/**
 * A one-line progress display on a terminal: bar, count, rate, ETA. When not on a terminal it is
 * silent, or, with `plainIntervalS`, writes a plain line now and then (CI logs, `2> file`).
 */
export interface Progress {
  /**
   * Sets the amount done and an optional label (and the total, when it becomes known), redrawing at
   * most 10 times a second.
   */
  update(done: number, label?: string, total?: number): void;
  /** Clears the line. */
  done(): void;
}

/** Seconds between plain progress lines when not on a terminal, unless `--progress-interval`. */
export const PLAIN_PROGRESS_INTERVAL_S = 30;

/** The `--progress-interval S` option of the long-running commands (its help row). */
export const PROGRESS_INTERVAL_OPTION = {
  name: 'progress-interval',
  type: 'string',
  value: 'S',
  description: `seconds between plain progress lines on stderr when it is not a terminal (CI logs); default ${PLAIN_PROGRESS_INTERVAL_S}, 0: a line at every change`,
} as const;

/** `--progress-interval S` (seconds, 0 or more), or the default. */
export function progressIntervalOption(
  options: Readonly<Record<string, string | boolean | undefined>>,
): number {
  return numberOption(options, 'progress-interval', 0, 86_400, '60') ?? PLAIN_PROGRESS_INTERVAL_S;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  total: number;
  /** Unit of the rate, e.g. "rows". */
  unit: string;
  /** The unit of one, for a slow rate said as time per item ("74 s/trial"); default `unit` less a final s. */
  one?: string;
  /** Where to draw; default `process.stderr`. */
  stream?: { isTTY?: boolean; columns?: number; write(text: string): unknown };
  /**
   * When the stream is not a terminal: a plain line at the first update, then at most one every
   * this many seconds, and one when done reaches the total. Default: no lines.
   */
  plainIntervalS?: number;
  /**
   * With `--json --progress-records`, a progress record (`{"type":"progress",…}`,
   * jobs/progress-record.ts) goes to its stdout at the plain lines' pace, on a terminal too: what a
   * service's job reads.
   */
  out?: Output;
  /** The clock, in ms; default `performance.now`. */
  now?: () => number;
}

/** Seconds left when `fraction` of the work took `elapsedS`; NaN while nothing is done. */
export function etaSeconds(fraction: number, elapsedS: number): number {
  if (!(fraction > 0) || !(elapsedS > 0)) return Number.NaN;
  return (elapsedS * (1 - Math.min(1, fraction))) / fraction;
}

/** A duration for progress lines: `45 s`, `1 min 14 s`, `3 h 05 min`; `?` when unknown. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  const minutes = Math.floor(s / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/**
 * A rate: `12,346 steps/s`, `2.5 trials/s`, or below one a second the time per item
 * (`1 min 14 s/trial`), which says more than "0 trials/s".
 */
export function formatRate(perSecond: number, unit: string, one = unit): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `? s/${one}`;
  if (perSecond < 1) return `${formatDuration(1 / perSecond)}/${one}`;
  const value =
    perSecond >= 100
      ? Math.round(perSecond).toLocaleString('en-US')
      : Number(perSecond.toPrecision(3)).toString();
  return `${value} ${unit}/s`;
}

/** Creates a progress line. Nothing is drawn on a terminal-less stream but the plain lines. */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? ((): number => performance.now());
  const started = now();
  const columns = (): number => Math.max(40, Math.min(stream.columns ?? 100, 100));
  const one = options.one ?? options.unit.replace(/s$/, '');
  let total = options.total;
  let last = 0;
  let lastPlain = -Infinity;
  let drawn = false;
  const figures = (done: number, at: number): { fraction: number; rate: string; eta: string } => {
    const seconds = (at - started) / 1000;
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    return {
      fraction,
      rate: formatRate(seconds > 0 ? done / seconds : 0, options.unit, one),
      eta: formatDuration(etaSeconds(fraction, seconds)),
    };
  };
  return {
    update(done, label = '', newTotal) {
      if (newTotal !== undefined) total = newTotal;
      const at = now();
      const tty = stream.isTTY === true;
      const interval = options.plainIntervalS;
      const records = options.out?.progressRecords === true;
      if (
        interval !== undefined &&
        (!tty || records) &&
        ((at - lastPlain) / 1000 >= interval || done >= total)
      ) {
        lastPlain = at;
        const { fraction, rate, eta } = figures(done, at);
        const amount = Number.isFinite(total)
          ? `${Math.round(fraction * 100)}% (${count(done)}/${count(total)} ${options.unit})`
          : `${count(done)} ${options.unit}`;
        // Before the first item is done there is no rate to tell, and so no ETA: say nothing.
        const speed = done > 0 ? `, ${rate}${Number.isFinite(total) ? `, ETA ${eta}` : ''}` : '';
        const text = `${amount}${speed}${label === '' ? '' : `, ${label}`}`;
        if (!tty) stream.write(`progress: ${text}\n`);
        if (records)
          options.out?.progress(
            progressRecord(
              done,
              Number.isFinite(total) ? total : null,
              options.unit,
              (at - started) / 1000,
              text,
            ),
          );
      }
      if (!tty) return;
      if (at - last < 100 && done < total) return;
      last = at;
      const { fraction, rate, eta } = figures(done, at);
      const width = 24;
      const filled = Math.round(fraction * width);
      const text = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${rate} ETA ${eta} ${label}`;
      stream.write(`\r${text.slice(0, columns() - 1).padEnd(columns() - 1)}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write(`\r${' '.repeat(columns() - 1)}\r`);
    },
  };
}

/** A count with thousands separators (fractions kept to one decimal). */
function count(n: number): string {
  return (Math.round(n * 10) / 10).toLocaleString('en-US');
}

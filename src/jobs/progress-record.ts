import type { JobProgress } from './job-queue.js';

/*
 * How a long command tells a service job its progress: with `--json`, a record on stdout beside its
 * results, `{"type":"progress","percent":42,"done":12,"total":28,"unit":"trials",…}`, written
 * wherever it writes its plain `progress:` line for logs. The job reads the figures, not the words:
 * a command may reword its line without the dashboard losing its percentage.
 */

/** One progress record. */
export interface ProgressRecord {
  type: 'progress';
  /** Percent done (0–100), when the total is known; else null. */
  percent: number | null;
  done: number;
  /** Null while the total is unknown. */
  total: number | null;
  /** What `done` counts: `steps`, `trials`, `MB`… */
  unit: string;
  /** `done` per second so far; null before the first item. */
  perSecond: number | null;
  /** Seconds left at that rate; null when it cannot be said. */
  etaS: number | null;
  /** The plain line's words (without `progress: `), for people. */
  text: string;
}

/** A progress record of `done` of `total` (null: unknown) `unit`, `elapsedS` in, and its words. */
export function progressRecord(
  done: number,
  total: number | null,
  unit: string,
  elapsedS: number,
  text: string,
): ProgressRecord {
  const known = total !== null && Number.isFinite(total) && total > 0;
  const fraction = known ? Math.min(1, done / total) : null;
  const perSecond = done > 0 && elapsedS > 0 ? done / elapsedS : null;
  const etaS =
    fraction !== null && fraction > 0 && elapsedS > 0
      ? (elapsedS * (1 - fraction)) / fraction
      : fraction === 1
        ? 0
        : null;
  return {
    type: 'progress',
    percent: fraction === null ? null : Math.round(fraction * 100),
    done,
    total: known ? total : null,
    unit,
    perSecond,
    etaS,
    text,
  };
}

/** The job progress a parsed stdout record says, or undefined when it is no progress record. */
export function jobProgressOf(record: unknown, at: number): JobProgress | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as Partial<ProgressRecord>;
  if (r.type !== 'progress' || typeof r.text !== 'string') return undefined;
  const percent =
    typeof r.percent === 'number' && Number.isFinite(r.percent)
      ? Math.max(0, Math.min(100, r.percent))
      : null;
  return { percent, text: r.text, at };
}

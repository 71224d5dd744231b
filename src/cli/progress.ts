/** A one-line progress display on a terminal: bar, count, rate, ETA. Silent when not a TTY. */
export interface Progress {
  /**
   * Sets the amount done and an optional label (and the total, when it becomes known), redrawing at
   * most 10 times a second.
   */
  update(done: number, label?: string, total?: number): void;
  /** Clears the line. */
  done(): void;
}

/** Options for {@link createProgress}. */
export interface ProgressOptions {
  total: number;
  /** Unit of the rate, e.g. "rows". */
  unit: string;
  /** Where to draw; default `process.stderr`. */
  stream?: { isTTY?: boolean; columns?: number; write(text: string): unknown };
}

/** Creates a progress line. Nothing is drawn unless the stream is a terminal. */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const started = performance.now();
  const columns = (): number => Math.max(40, Math.min(stream.columns ?? 100, 100));
  let total = options.total;
  let last = 0;
  let drawn = false;
  return {
    update(done, label = '', newTotal) {
      if (newTotal !== undefined) total = newTotal;
      if (stream.isTTY !== true) return;
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const seconds = (now - started) / 1000;
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const rate = seconds > 0 ? done / seconds : 0;
      const eta = rate > 0 ? (total - done) / rate : Number.NaN;
      const width = 24;
      const filled = Math.round(fraction * width);
      const text = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${Math.round(rate).toLocaleString('en-US')} ${options.unit}/s ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)} s` : '?'} ${label}`;
      stream.write(`\r${text.slice(0, columns() - 1).padEnd(columns() - 1)}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write(`\r${' '.repeat(columns() - 1)}\r`);
    },
  };
}

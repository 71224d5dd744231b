/** A one-line progress display on a terminal: bar, count, rate, ETA. Silent when not a TTY. */
export interface Progress {
  /** Sets the amount done (of `total`) and an optional label, redrawing at most 10 times a second. */
  update(done: number, label?: string): void;
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
  let last = 0;
  let drawn = false;
  return {
    update(done, label = '') {
      if (stream.isTTY !== true) return;
      const now = performance.now();
      if (now - last < 100 && done < options.total) return;
      last = now;
      const seconds = (now - started) / 1000;
      const fraction = options.total > 0 ? Math.min(1, done / options.total) : 0;
      const rate = seconds > 0 ? done / seconds : 0;
      const eta = rate > 0 ? (options.total - done) / rate : Number.NaN;
      const width = 24;
      const filled = Math.round(fraction * width);
      const text = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${Math.round(rate).toLocaleString('en-US')} ${options.unit}/s ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)} s` : '?'} ${label}`;
      stream.write(
        `\r${text.slice(0, (stream.columns ?? 100) - 1).padEnd(Math.min(stream.columns ?? 100, 100) - 1)}`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write(`\r${' '.repeat(Math.min(stream.columns ?? 100, 100) - 1)}\r`);
    },
  };
}

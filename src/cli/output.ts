import type { ProgressRecord } from '../jobs/index.js';
import { PLAIN, type Style } from './style.js';

/** Where a command writes: human text, JSON lines, and notes on stderr. */
export interface Output {
  /** `--json` was given: data goes out as one JSON object per line. */
  readonly json: boolean;
  /** A line of human output (stdout); ignored in JSON mode. */
  line(text?: string): void;
  /** One JSON object on its own line (stdout); ignored outside JSON mode. */
  record(value: unknown): void;
  /** `--json --progress-records`: long work prints its progress as records too. */
  readonly progressRecords: boolean;
  /** A progress record (stdout); ignored unless {@link progressRecords}. */
  progress(record: ProgressRecord): void;
  /** A note for the human (stderr), in both modes; one starting `warning:` is yellow on a terminal. */
  note(text: string): void;
}

/** The streams an {@link Output} writes to; tests pass buffers. */
export interface OutputStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Creates an output for one command run; `style` colors its notes (plain by default). */
export function createOutput(
  streams: OutputStreams,
  json: boolean,
  style: Style = PLAIN,
  progressRecords = false,
): Output {
  return {
    json,
    progressRecords: json && progressRecords,
    progress(record) {
      if (json && progressRecords) streams.stdout.write(`${JSON.stringify(record)}\n`);
    },
    line(text = '') {
      if (!json) streams.stdout.write(`${text}\n`);
    },
    record(value) {
      if (json) streams.stdout.write(`${JSON.stringify(value)}\n`);
    },
    note(text) {
      const warning = /^warning:/.test(text);
      streams.stderr.write(`${warning ? style.yellow(text) : text}\n`);
    },
  };
}

/** A column of a text table. */
export interface Column<Row> {
  header: string;
  value(row: Row): string;
  /** Right-align (numbers). */
  right?: boolean;
}

/** Renders rows as an aligned text table with a header line. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string[] {
  const cells = rows.map((row) => columns.map((c) => c.value(row)));
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...cells.map((r) => (r[i] ?? '').length)),
  );
  const format = (values: readonly string[]): string =>
    values
      .map((v, i) =>
        columns[i]?.right === true ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [format(columns.map((c) => c.header)), ...cells.map(format)];
}

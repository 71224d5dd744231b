import { TradelabError } from '../../core/index.js';
import {
  createCsvRow,
  fieldText,
  isNanLiteral,
  MAX_FIELDS,
  parseNumber,
  POW10,
  scanLine,
  type CsvRow,
} from './csv-scanner.js';
import {
  epochToMs,
  epochUnitBit,
  parseIsoTimestamp,
  timestampUnitsNote,
  UTC_OFFSET,
  type ZoneOffset,
} from './parse-timestamp.js';

/** The file formats import reads. */
export const IMPORT_FORMATS = ['auto', 'generic', 'binance', 'yahoo', 'parquet'] as const;
/** A requested import format. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** A concrete CSV format. */
export type CsvFormat = 'generic' | 'binance' | 'yahoo';

/** What is wrong with one field. */
export type FieldProblemKind =
  | 'timestamp'
  | 'empty'
  | 'unparsable'
  | 'nan'
  | 'infinite'
  /** A time outside years 0000–9999 (a Parquet value in the wrong unit, a damaged one). */
  | 'timestamp out of range';

/** One bad field, located in its file. */
export interface FieldProblem {
  file: string;
  line: number;
  /** 1-based column number. */
  column: number;
  columnName: string;
  kind: FieldProblemKind;
  text: string;
}

/** Columns of a parsed file; a bad field holds NaN and its row is flagged. */
export interface ParsedRows {
  file: string;
  format: CsvFormat;
  timestamps: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  adjClose: Float64Array | undefined;
  /** Line number of each row. */
  lines: Int32Array;
  /** Bit per field (see {@link FIELD_BITS}) that could not be read, per row. */
  badFields: Uint8Array;
  /** The first problems in file order (at most {@link MAX_PROBLEMS_KEPT}); `problemCounts` counts all. */
  problems: FieldProblem[];
  problemCounts: Record<FieldProblemKind, number>;
  /** What the parser decided, for the import summary (e.g. "timestamps: epoch microseconds"). */
  notes: string[];
  /** Where each value field is in the file (1-based column and its name), to locate value problems. */
  columns: Partial<Record<keyof typeof FIELD_BITS, { column: number; name: string }>>;
}

/** Bits of {@link ParsedRows.badFields}. */
export const FIELD_BITS = {
  timestamp: 1,
  open: 2,
  high: 4,
  low: 8,
  close: 16,
  volume: 32,
  adjClose: 64,
} as const;

/** How many problems are kept with their location (all are counted). */
export const MAX_PROBLEMS_KEPT = 200;

type Field = keyof typeof FIELD_BITS;
const FIELDS: readonly Field[] = [
  'timestamp',
  'open',
  'high',
  'low',
  'close',
  'volume',
  'adjClose',
];

/** Where each field is in a row, and how the file starts. */
interface Layout {
  format: CsvFormat;
  /** Column index per field; -1 when absent. */
  columns: Record<Field, number>;
  /** A separate time-of-day column (Date,Time,… files); -1 when absent. */
  timeColumn: number;
  names: string[];
  /** Offset and line number of the first data row. */
  dataOffset: number;
  dataLine: number;
}

const HEADER_NAMES: Readonly<Record<Field, readonly string[]>> = {
  timestamp: [
    'timestamp',
    'datetime',
    'date_time',
    'date',
    'time',
    'open_time',
    'opentime',
    'ts',
    'unix',
    'gmt time',
    'local time',
  ],
  open: ['open', 'o'],
  high: ['high', 'h'],
  low: ['low', 'l'],
  close: ['close', 'c', 'price'],
  volume: ['volume', 'vol', 'v', 'base_volume'],
  adjClose: ['adj close', 'adj_close', 'adjclose', 'adjusted_close', 'adjusted close'],
};

const BINANCE_COLUMNS = 12;

/** Tells a CSV format from its first line. */
export function sniffCsvFormat(
  bytes: Uint8Array,
): { format: CsvFormat; reason: string } | undefined {
  const row = createCsvRow();
  let offset = skipBom(bytes);
  do offset = scanLine(bytes, offset, row);
  while (row.count === 0 && offset < bytes.length);
  if (row.count === 0) return undefined;
  const names = headerNames(bytes, row);
  const first = names[0] ?? '';
  if (/^\d{12,17}$/.test(first) && row.count === BINANCE_COLUMNS) {
    return {
      format: 'binance',
      reason: `12 columns, no header, first field is an epoch time (${first})`,
    };
  }
  if (names[0] === 'open_time' && row.count === BINANCE_COLUMNS) {
    return { format: 'binance', reason: "12 columns with Binance's header (open_time, …)" };
  }
  if (names.includes('date') && names.includes('adj close')) {
    return { format: 'yahoo', reason: 'header Date, …, Adj Close, … (Yahoo Finance)' };
  }
  const has = (field: Field): boolean => names.some((n) => HEADER_NAMES[field].includes(n));
  if (has('timestamp') && has('close'))
    return { format: 'generic', reason: `header with ${names.join(', ')}` };
  return undefined;
}

/**
 * Parses one CSV file of bars in a known format. Bad fields do not stop parsing: they are recorded
 * with file, line and column, and their rows flagged, so the caller's policy decides.
 */
export function parseBarsCsv(
  file: string,
  bytes: Uint8Array,
  format: CsvFormat,
  zone: ZoneOffset = UTC_OFFSET,
): ParsedRows {
  const layout = readLayout(file, bytes, format);
  // Upper bound on rows: count newlines once (fast), then fill preallocated columns.
  let capacity = 1;
  for (let i = bytes.indexOf(10, layout.dataOffset); i !== -1; i = bytes.indexOf(10, i + 1))
    capacity++;
  const hasAdj = layout.columns.adjClose >= 0;
  const out: ParsedRows = {
    file,
    format,
    timestamps: new Float64Array(capacity),
    open: new Float64Array(capacity),
    high: new Float64Array(capacity),
    low: new Float64Array(capacity),
    close: new Float64Array(capacity),
    volume: new Float64Array(capacity),
    adjClose: hasAdj ? new Float64Array(capacity) : undefined,
    lines: new Int32Array(capacity),
    badFields: new Uint8Array(capacity),
    problems: [],
    problemCounts: {
      timestamp: 0,
      empty: 0,
      unparsable: 0,
      nan: 0,
      infinite: 0,
      'timestamp out of range': 0,
    },
    notes: [],
    columns: {},
  };
  for (const field of FIELDS) {
    const column = layout.columns[field];
    if (column >= 0)
      out.columns[field] = { column: column + 1, name: layout.names[column] ?? field };
  }
  const targets: Record<Exclude<Field, 'timestamp'>, Float64Array | undefined> = {
    open: out.open,
    high: out.high,
    low: out.low,
    close: out.close,
    volume: out.volume,
    adjClose: out.adjClose,
  };
  const row = createCsvRow();
  let offset = layout.dataOffset;
  let line = layout.dataLine;
  let n = 0;
  let shortRows = 0;
  // The hot loop: plain arrays indexed by position, no allocation per row or field.
  const valueFields = FIELDS.filter(
    (f): f is Exclude<Field, 'timestamp'> => f !== 'timestamp' && layout.columns[f] >= 0,
  );
  const columnOf = Int32Array.from(valueFields, (f) => layout.columns[f]);
  const bitOf = Uint8Array.from(valueFields, (f) => FIELD_BITS[f]);
  const targetOf = valueFields.map((f) => targets[f] ?? out.close);
  const needed = Math.max(...Object.values(layout.columns), layout.timeColumn) + 1;
  const tc = layout.columns.timestamp;
  const stamp: TimestampScratch = { ms: 0, unit: 0 };
  const report = (kind: FieldProblemKind, column: number): void => {
    out.problemCounts[kind]++;
    if (out.problems.length < MAX_PROBLEMS_KEPT) {
      const present = column < row.count;
      out.problems.push({
        file,
        line: row.line,
        column: column + 1,
        columnName: layout.names[column] ?? `column ${column + 1}`,
        kind,
        text: present ? fieldText(bytes, row.starts[column] ?? 0, row.ends[column] ?? 0) : '',
      });
    }
  };
  const classify = (column: number, value: number): FieldProblemKind => {
    if (column >= row.count) return 'empty';
    const s = row.starts[column] ?? 0;
    const e = row.ends[column] ?? 0;
    if (isBlank(bytes, s, e)) return 'empty';
    if (!Number.isNaN(value)) return 'infinite';
    return isNanLiteral(bytes, s, e) || /^\s*null\s*$/i.test(fieldText(bytes, s, e))
      ? 'nan'
      : 'unparsable';
  };
  let epochUnits = 0; // bit 1: seconds, 2: ms, 4: µs, 8: ISO — for the summary
  // Which field each column feeds: -1 none, 0 timestamp, k+1 = valueFields[k].
  const roleOf = new Int8Array(MAX_FIELDS).fill(-1);
  if (tc >= 0 && tc < MAX_FIELDS && layout.timeColumn < 0) roleOf[tc] = 0;
  columnOf.forEach((column, k) => {
    if (column < MAX_FIELDS) roleOf[column] = k + 1;
  });
  const fastPath = layout.timeColumn < 0;
  const fieldCount = valueFields.length;
  const len = bytes.length;
  while (offset < len) {
    const lineStart = offset;
    row.line = line++;
    if (fastPath) {
      // Fused scan-and-parse: every byte is looked at once. Falls back to the general path for
      // quoted fields and anything that is not a plain decimal.
      let pos = offset;
      let column = 0;
      let seen = 0; // bit per role written
      let bad = 0;
      let fallback = false;
      let blank = true;
      for (;;) {
        const fieldStart = pos;
        let b = pos < len ? (bytes[pos] ?? 10) : 10;
        if (b === 34) {
          fallback = true;
          break;
        }
        let mantissa = 0;
        let fraction = 0;
        let digitsSeen = 0;
        let anyDigit = false;
        let dot = false;
        let negative = false;
        let plain = true;
        if (b === 45) {
          negative = true;
          pos++;
          b = pos < len ? (bytes[pos] ?? 10) : 10;
        }
        while (b !== 44 && b !== 10 && b !== 13) {
          const d = b - 48;
          if (d >= 0 && d <= 9) {
            anyDigit = true;
            if (mantissa !== 0 || d !== 0 || dot) {
              mantissa = mantissa * 10 + d;
              digitsSeen++;
              if (dot) fraction++;
            }
          } else if (b === 46 && !dot) dot = true;
          else plain = false;
          pos++;
          b = pos < len ? (bytes[pos] ?? 10) : 10;
        }
        const fieldEnd = pos;
        if (fieldEnd > fieldStart) blank = false;
        const role = column < MAX_FIELDS ? (roleOf[column] ?? -1) : -1;
        if (role >= 0) {
          const empty = fieldEnd === fieldStart || (negative && fieldEnd === fieldStart + 1);
          // "." and "-." have no digit: not a number (the general path says so too).
          if (!anyDigit) plain = false;
          let value: number;
          // Integers are exact up to 2^53: enough for epoch microseconds (16 digits).
          const exact = digitsSeen <= 15 || (!dot && mantissa <= Number.MAX_SAFE_INTEGER);
          if (plain && !empty && exact && fraction <= 22 && (role !== 0 || !dot)) {
            value = mantissa / (POW10[fraction] ?? 1);
            if (negative) value = -value;
            if (role === 0) value = Math.floor(epochToMs(value));
          } else if (role === 0) {
            // An ISO-8601 timestamp parses in place; anything else takes the general path.
            value = empty ? Number.NaN : parseIsoTimestamp(bytes, fieldStart, fieldEnd, zone);
            if (value - value !== 0) {
              fallback = true;
              break;
            }
            epochUnits |= 8;
          } else value = empty ? Number.NaN : parseNumber(bytes, fieldStart, fieldEnd);
          if (role === 0) {
            out.timestamps[n] = value;
            if (value - value !== 0) bad |= FIELD_BITS.timestamp;
            else if (plain) epochUnits |= mantissa < 1e11 ? 1 : mantissa < 1e14 ? 2 : 4;
          } else {
            (targetOf[role - 1] ?? out.close)[n] = value;
            if (value - value !== 0) bad |= bitOf[role - 1] ?? 0;
          }
          seen |= 1 << role;
        }
        // Skip "\r" before "\n".
        if (b === 13) {
          pos++;
          b = pos < len ? (bytes[pos] ?? 10) : 10;
          if (b !== 10 && b !== 44) {
            fallback = true;
            break;
          }
        }
        pos++;
        if (b === 10) break;
        column++;
      }
      if (!fallback) {
        if (blank && column === 0) {
          offset = pos;
          continue;
        }
        offset = Math.min(pos, len);
        const allSeen = (seen & 1) !== 0 && seen >>> 1 === (1 << fieldCount) - 1;
        if (bad === 0 && allSeen) {
          out.lines[n] = row.line;
          out.badFields[n] = 0;
          n++;
          continue;
        }
        // Something is missing or bad: redo this line on the general path for exact reporting.
      }
    }
    offset = scanLine(bytes, lineStart, row);
    if (row.count === 0) continue;
    out.lines[n] = row.line;
    let bad = 0;
    // Missing trailing fields read as empty.
    if (row.count < needed) shortRows++;
    readTimestamp(bytes, row, tc, layout.timeColumn, zone, stamp);
    if (Number.isNaN(stamp.ms)) {
      bad |= FIELD_BITS.timestamp;
      report(
        tc < row.count && (row.ends[tc] ?? 0) > (row.starts[tc] ?? 0) ? 'timestamp' : 'empty',
        tc,
      );
    } else epochUnits |= stamp.unit;
    out.timestamps[n] = stamp.ms;
    for (let k = 0; k < columnOf.length; k++) {
      const column = columnOf[k] ?? 0;
      const value =
        column < row.count
          ? parseNumber(bytes, row.starts[column] ?? 0, row.ends[column] ?? 0)
          : Number.NaN;
      (targetOf[k] ?? out.close)[n] = value;
      if (value - value !== 0) {
        // NaN or ±Infinity.
        bad |= bitOf[k] ?? 0;
        report(classify(column, value), column);
      }
    }
    out.badFields[n] = bad;
    n++;
  }
  if (shortRows > 0)
    out.notes.push(
      `${shortRows} rows had fewer than ${needed} fields (missing fields read as empty)`,
    );
  const units = timestampUnitsNote(epochUnits);
  if (units !== undefined) out.notes.push(units);
  return shrink(out, n);
}

function isBlank(bytes: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (bytes[i] !== 32 && bytes[i] !== 9) return false;
  return true;
}

interface TimestampScratch {
  ms: number;
  unit: number;
}

/** Reads the row's timestamp into `out` (ms, or NaN), and which kind of timestamp it was. */
function readTimestamp(
  bytes: Uint8Array,
  row: CsvRow,
  column: number,
  timeColumn: number,
  zone: ZoneOffset,
  out: TimestampScratch,
): void {
  out.ms = Number.NaN;
  out.unit = 0;
  if (column >= row.count) return;
  const s = row.starts[column] ?? 0;
  const e = row.ends[column] ?? 0;
  if (s === e) return;
  const first = bytes[s] ?? 0;
  const isDigits = first >= 48 && first <= 57 && (e - s < 5 || bytes[s + 4] !== 45);
  if (isDigits) {
    const value = parseNumber(bytes, s, e);
    if (!Number.isFinite(value)) return;
    const abs = Math.abs(value);
    out.ms = Math.floor(epochToMs(value));
    out.unit = epochUnitBit(abs);
    return;
  }
  if (timeColumn >= 0) {
    // Date and Time in separate columns: parse the date at midnight (no zone), add the time of day.
    const day = parseIsoTimestamp(bytes, s, e, UTC_OFFSET);
    const time =
      timeColumn < row.count
        ? timeOfDay(bytes, row.starts[timeColumn] ?? 0, row.ends[timeColumn] ?? 0)
        : Number.NaN;
    const local = day + time;
    out.ms = local - zone(local);
  } else out.ms = parseIsoTimestamp(bytes, s, e, zone);
  out.unit = 8;
}

function timeOfDay(bytes: Uint8Array, s: number, e: number): number {
  const text = fieldText(bytes, s, e).trim();
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(text);
  if (m === null) return Number.NaN;
  return (
    Number(m[1]) * 3_600_000 +
    Number(m[2]) * 60_000 +
    Number(m[3] ?? 0) * 1000 +
    Math.floor(Number(`0.${m[4] ?? '0'}`) * 1000)
  );
}

function skipBom(bytes: Uint8Array): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

function headerNames(bytes: Uint8Array, row: CsvRow): string[] {
  const names: string[] = [];
  for (let i = 0; i < Math.min(row.count, row.starts.length); i++) {
    names.push(
      fieldText(bytes, row.starts[i] ?? 0, row.ends[i] ?? 0)
        .trim()
        .toLowerCase(),
    );
  }
  return names;
}

function readLayout(file: string, bytes: Uint8Array, format: CsvFormat): Layout {
  const row = createCsvRow();
  let offset = skipBom(bytes);
  let line = 1;
  let next = scanLine(bytes, offset, row);
  while (row.count === 0 && next < bytes.length) {
    offset = next;
    line++;
    next = scanLine(bytes, offset, row);
  }
  const none: Record<Field, number> = {
    timestamp: -1,
    open: -1,
    high: -1,
    low: -1,
    close: -1,
    volume: -1,
    adjClose: -1,
  };
  if (format === 'binance') {
    const names = [
      'open_time',
      'open',
      'high',
      'low',
      'close',
      'volume',
      'close_time',
      'quote_volume',
      'count',
      'taker_buy_volume',
      'taker_buy_quote_volume',
      'ignore',
    ];
    const header = headerNames(bytes, row)[0] === 'open_time';
    return {
      format,
      columns: { ...none, timestamp: 0, open: 1, high: 2, low: 3, close: 4, volume: 5 },
      timeColumn: -1,
      names,
      dataOffset: header ? next : offset,
      dataLine: header ? line + 1 : line,
    };
  }
  const names = headerNames(bytes, row);
  const columns = { ...none };
  for (const field of FIELDS)
    columns[field] = names.findIndex((n) => HEADER_NAMES[field].includes(n));
  checkOneColumnEach(file, line, bytes, row, names);
  let timeColumn = -1;
  // "Date,Time,Open,…": date and time of day in two columns.
  const dateIndex = names.indexOf('date');
  const timeIndex = names.indexOf('time');
  if (dateIndex >= 0 && timeIndex >= 0) {
    columns.timestamp = dateIndex;
    timeColumn = timeIndex;
  } else {
    const preferred = ['timestamp', 'datetime', 'date_time', 'open_time', 'date', 'time'];
    const found = preferred.map((p) => names.indexOf(p)).find((i) => i >= 0);
    if (found !== undefined) columns.timestamp = found;
  }
  if (format === 'yahoo') columns.adjClose = names.indexOf('adj close');
  else if (columns.adjClose >= 0 && columns.adjClose === columns.close) columns.adjClose = -1;
  const missing = (['timestamp', 'open', 'high', 'low', 'close', 'volume'] as const).filter(
    (f) => columns[f] < 0,
  );
  if (missing.length > 0) {
    throw new TradelabError(
      'DATA_INVALID',
      `${file}:${line}: the header has no ${missing.join(', ')} column (found: ${names.join(', ') || 'nothing'})`,
      {
        hint: 'a generic CSV needs a header with a timestamp (or date/time) column and open, high, low, close, volume in any order; or pass --format binance|yahoo',
      },
    );
  }
  return { format, columns, timeColumn, names, dataOffset: next, dataLine: line + 1 };
}

/**
 * Two header columns for one value field (`close` twice, or `close` and `Close`) would leave the
 * parser to pick one silently: name both, by position, and let the user say which.
 */
function checkOneColumnEach(
  file: string,
  line: number,
  bytes: Uint8Array,
  row: CsvRow,
  names: readonly string[],
): void {
  for (const field of FIELDS) {
    // Several timestamp-like columns are common (open and close times); the preferred one is taken.
    if (field === 'timestamp') continue;
    const found = names.flatMap((n, i) => (HEADER_NAMES[field].includes(n) ? [i] : []));
    const [first, second] = found;
    if (first === undefined || second === undefined) continue;
    const shown = (i: number): string =>
      `${JSON.stringify(fieldText(bytes, row.starts[i] ?? 0, row.ends[i] ?? 0).trim())} (column ${i + 1})`;
    const name = field === 'adjClose' ? 'adjusted close' : field;
    throw new TradelabError(
      'DATA_INVALID',
      `${file}:${line}: the header has ${found.length} ${name} columns: ${found.map(shown).join(', ')}; tradelab cannot tell which one holds the ${name}`,
      {
        hint: `rename or remove all but one of them (e.g. \`cut -d, --complement -f${second + 1}\` drops column ${second + 1}), then import again`,
        details: { file, line, field, columns: found.map((i) => i + 1) },
      },
    );
  }
}

function shrink(rows: ParsedRows, n: number): ParsedRows {
  const cut = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => a.subarray(0, n) as T;
  return {
    ...rows,
    timestamps: cut(rows.timestamps),
    open: cut(rows.open),
    high: cut(rows.high),
    low: cut(rows.low),
    close: cut(rows.close),
    volume: cut(rows.volume),
    adjClose: rows.adjClose === undefined ? undefined : cut(rows.adjClose),
    lines: cut(rows.lines),
    badFields: cut(rows.badFields),
  };
}

import { TradelabError } from '../../core/index.js';
import { readParquetFile } from '../parquet/read-parquet.js';
import {
  FIELD_BITS,
  MAX_PROBLEMS_KEPT,
  type FieldProblemKind,
  type ParsedRows,
} from './parse-bars-csv.js';
import { epochToMs, epochUnitBit, timestampUnitsNote } from './parse-timestamp.js';

/** The first and last instants tradelab handles: years 0000 to 9999, as ISO-8601 writes them. */
const FIRST_MS = Date.parse('0000-01-01T00:00:00Z');
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const NAMES: Readonly<Record<string, readonly string[]>> = {
  timestamp: ['timestamp', 'datetime', 'date', 'time', 'open_time', 'ts'],
  open: ['open', 'o'],
  high: ['high', 'h'],
  low: ['low', 'l'],
  close: ['close', 'c'],
  volume: ['volume', 'vol', 'v'],
  adjClose: ['adj close', 'adj_close', 'adjclose'],
};

/**
 * Reads a Parquet file of bars (any writer) into the same rows the CSV parser
 * produces: columns found by name ignoring case, NULL/NaN values flagged with their row number
 * (reported as "row N" where CSV reports a line). A timestamp column typed TIMESTAMP or DATE is
 * taken in its unit; plain numbers are epoch seconds, ms or µs by magnitude, as in a CSV; a time
 * outside years 0000–9999 is a bad timestamp, as it is in a CSV.
 */
export async function parseBarsParquet(file: string): Promise<ParsedRows> {
  const table = await readParquetFile(file);
  const available = Object.keys(table.columns);
  const find = (field: string): Float64Array | undefined => {
    const matching = available.filter((c) => (NAMES[field] ?? []).includes(c.toLowerCase()));
    // Two columns for one value (`close` and `Close`): which is meant is not ours to guess.
    if (matching.length > 1 && field !== 'timestamp') {
      const where = matching.map((c) => JSON.stringify(c));
      throw new TradelabError(
        'DATA_INVALID',
        `${file}: ${matching.length} columns could be the ${field}: ${where.join(', ')}; tradelab cannot tell which one holds it`,
        {
          hint: 'rename or drop all but one of them, then import again',
          details: { file, field, columns: matching },
        },
      );
    }
    const name = matching[0];
    const values = name === undefined ? undefined : table.columns[name];
    if (values === undefined) return undefined;
    if (field === 'timestamp' && name !== undefined) timeColumn = name;
    return Float64Array.from(values);
  };
  let timeColumn = '';
  const columns = {
    timestamps: find('timestamp'),
    open: find('open'),
    high: find('high'),
    low: find('low'),
    close: find('close'),
    volume: find('volume'),
  };
  const missing = Object.entries(columns)
    .filter(([, v]) => v === undefined)
    .map(([k]) => (k === 'timestamps' ? 'timestamp' : k));
  if (missing.length > 0) {
    throw new TradelabError(
      'DATA_INVALID',
      `${file}: no ${missing.join(', ')} column among ${available.join(', ') || 'its numeric columns'}`,
      {
        hint: 'name the columns timestamp (a TIMESTAMP or DATE, or epoch seconds, ms or µs), open, high, low, close, volume',
      },
    );
  }
  const n = table.numRows;
  const rows: ParsedRows = {
    file,
    format: 'generic',
    timestamps: columns.timestamps ?? new Float64Array(n),
    open: columns.open ?? new Float64Array(n),
    high: columns.high ?? new Float64Array(n),
    low: columns.low ?? new Float64Array(n),
    close: columns.close ?? new Float64Array(n),
    volume: columns.volume ?? new Float64Array(n),
    adjClose: find('adjClose'),
    lines: Int32Array.from({ length: n }, (_, i) => i + 1),
    badFields: new Uint8Array(n),
    problems: [],
    problemCounts: {
      timestamp: 0,
      empty: 0,
      unparsable: 0,
      nan: 0,
      infinite: 0,
      'timestamp out of range': 0,
    },
    notes: ['Parquet: positions are row numbers'],
    columns: {
      timestamp: { column: 1, name: 'timestamp' },
      open: { column: 2, name: 'open' },
      high: { column: 3, name: 'high' },
      low: { column: 4, name: 'low' },
      close: { column: 5, name: 'close' },
      volume: { column: 6, name: 'volume' },
    },
  };
  const flag = (
    field: keyof typeof FIELD_BITS,
    i: number,
    column: number,
    kind: FieldProblemKind,
    text: string,
  ): void => {
    rows.badFields[i] = (rows.badFields[i] ?? 0) | FIELD_BITS[field];
    rows.problemCounts[kind]++;
    if (rows.problems.length < MAX_PROBLEMS_KEPT)
      rows.problems.push({ file, line: i + 1, column, columnName: field, kind, text });
  };
  const check = (
    field: keyof typeof FIELD_BITS,
    values: Float64Array | undefined,
    column: number,
  ): void => {
    if (values === undefined) return;
    for (let i = 0; i < n; i++) {
      const v = values[i] ?? Number.NaN;
      if (Number.isFinite(v) || ((rows.badFields[i] ?? 0) & FIELD_BITS[field]) !== 0) continue;
      const kind: FieldProblemKind =
        field === 'timestamp' ? 'timestamp' : Number.isNaN(v) ? 'nan' : 'infinite';
      flag(field, i, column, kind, String(v));
    }
  };
  if (table.timeColumns.includes(timeColumn)) {
    // Typed TIMESTAMP or DATE: the unit is the file's; only a time no date can hold is refused.
    for (let i = 0; i < n; i++) {
      const t = rows.timestamps[i] ?? Number.NaN;
      if (Number.isFinite(t) && (t < FIRST_MS || t > LAST_MS))
        flag('timestamp', i, 1, 'timestamp out of range', `${t} ms`);
    }
  } else {
    // Plain numbers: seconds, ms or µs told apart by magnitude, as the CSV reader does (seconds
    // read as ms would put every bar in January 1970).
    let units = 0;
    for (let i = 0; i < n; i++) {
      const v = rows.timestamps[i] ?? Number.NaN;
      if (!Number.isFinite(v)) continue;
      const ms = Math.floor(epochToMs(v));
      rows.timestamps[i] = ms;
      if (Number.isNaN(ms)) flag('timestamp', i, 1, 'timestamp', String(v));
      else units |= epochUnitBit(v);
    }
    const note = timestampUnitsNote(units);
    if (note !== undefined) rows.notes.push(note);
  }
  check('timestamp', rows.timestamps, 1);
  check('open', rows.open, 2);
  check('high', rows.high, 3);
  check('low', rows.low, 4);
  check('close', rows.close, 5);
  check('volume', rows.volume, 6);
  check('adjClose', rows.adjClose, 7);
  return rows;
}

import { TradelabError } from '../../core/index.js';
import { readParquetFile } from '../parquet/read-parquet.js';
import { FIELD_BITS, type FieldProblemKind, type ParsedRows } from './parse-bars-csv.js';

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
 * (reported as "row N" where CSV reports a line).
 */
export async function parseBarsParquet(file: string): Promise<ParsedRows> {
  const table = await readParquetFile(file);
  const available = Object.keys(table.columns);
  const find = (field: string): Float64Array | undefined => {
    const name = available.find((c) => (NAMES[field] ?? []).includes(c.toLowerCase()));
    const values = name === undefined ? undefined : table.columns[name];
    return values === undefined ? undefined : Float64Array.from(values);
  };
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
        hint: 'name the columns timestamp (a timestamp or epoch ms), open, high, low, close, volume',
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
    problemCounts: { timestamp: 0, empty: 0, unparsable: 0, nan: 0, infinite: 0 },
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
  const check = (
    field: keyof typeof FIELD_BITS,
    values: Float64Array | undefined,
    column: number,
  ): void => {
    if (values === undefined) return;
    for (let i = 0; i < n; i++) {
      const v = values[i] ?? Number.NaN;
      if (Number.isFinite(v)) continue;
      rows.badFields[i] = (rows.badFields[i] ?? 0) | FIELD_BITS[field];
      const kind: FieldProblemKind =
        field === 'timestamp' ? 'timestamp' : Number.isNaN(v) ? 'nan' : 'infinite';
      rows.problemCounts[kind]++;
      if (rows.problems.length < 200)
        rows.problems.push({ file, line: i + 1, column, columnName: field, kind, text: String(v) });
    }
  };
  check('timestamp', rows.timestamps, 1);
  check('open', rows.open, 2);
  check('high', rows.high, 3);
  check('low', rows.low, 4);
  check('close', rows.close, 5);
  check('volume', rows.volume, 6);
  check('adjClose', rows.adjClose, 7);
  return rows;
}

import { gzipSync } from 'node:zlib';
import { TradelabError } from '../core/index.js';
import { BAR_FIELDS, type Bars } from './bars.js';
import type { ParquetColumnInput } from './parquet/parquet-table.js';
import { writeParquetFile } from './parquet/write-parquet.js';
import { writeFileAtomic } from '../core/index.js';

/** Writes bars to CSV (`.csv`, `.csv.gz`) or Parquet (`.parquet`), atomically. Returns the format. */
export async function exportBars(
  path: string,
  bars: Bars,
  metadata: Record<string, string> = {},
): Promise<'csv' | 'parquet'> {
  if (path.endsWith('.parquet')) {
    const columns: ParquetColumnInput[] = [
      { name: 'timestamp', type: 'timestamp-ms', values: bars.timestamps },
      ...BAR_FIELDS.map((f): ParquetColumnInput => ({ name: f, type: 'double', values: bars[f] })),
    ];
    if (bars.adjClose !== undefined)
      columns.push({ name: 'adj_close', type: 'double', values: bars.adjClose });
    await writeParquetFile(path, { columns, metadata });
    return 'parquet';
  }
  if (!/\.csv(\.gz)?$/.test(path)) {
    throw new TradelabError('INVALID_ARGUMENT', `cannot tell the export format of ${path}`, {
      hint: 'end the name in .csv, .csv.gz or .parquet',
    });
  }
  const text = barsToCsv(bars);
  writeFileAtomic(path, path.endsWith('.gz') ? gzipSync(text) : text);
  return 'csv';
}

/** Bars as CSV text with an ISO-8601 UTC timestamp column: readable back by `data import`. */
export function barsToCsv(bars: Bars): string {
  const adj = bars.adjClose;
  const chunks: string[] = [
    `timestamp,open,high,low,close,volume${adj === undefined ? '' : ',adj_close'}\n`,
  ];
  const n = bars.timestamps.length;
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += `${new Date(bars.timestamps[i] ?? 0).toISOString()},${bars.open[i] ?? ''},${bars.high[i] ?? ''},${bars.low[i] ?? ''},${bars.close[i] ?? ''},${bars.volume[i] ?? ''}${adj === undefined ? '' : `,${adj[i] ?? ''}`}\n`;
    if (chunk.length > 1 << 16) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  chunks.push(chunk);
  return chunks.join('');
}

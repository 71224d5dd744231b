import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Bars } from './bars.js';
import { computeFeatures, featureNames, type FeatureOptions } from './features/index.js';

/** One asset's features, row-major: `values[t · names.length + f]`, the layout the loader gathers. */
export interface FeatureTable {
  names: string[];
  /** Leading rows where some feature is undefined. */
  warmup: number;
  values: Float32Array;
}

/**
 * Features of a stored dataset, computed once and kept beside its Parquet file
 * (`TF.<id>.features-<hash>.arrow`), so loading does not recompute them. The name carries the
 * dataset file's id (a rewrite gets a new id, so a cache can never be stale) and a hash of the
 * feature options. The cache is optional: one that cannot be read is recomputed, and one that cannot
 * be written (a read-only store, a full disk, a name in the way) is left unwritten and said in
 * `unwritable`, for the caller to warn about; the features are returned either way.
 *
 * The cache is an Arrow IPC file with one column, `features`, a fixed-size list of float32 per bar:
 * its buffer is the row-major matrix itself, read in place (one read of the file, then a view) and
 * in the layout the loader copies rows from. As Parquet float32 columns (earlier versions) each
 * load copied every column two or three times and then gathered across 17 × assets columns at
 * once, which cost more than reading the prices; those caches are not read: features are computed
 * once more, and the old file goes with the dataset.
 */
export async function cachedFeatures(
  datasetPath: string,
  bars: Bars,
  options: FeatureOptions = {},
): Promise<{ table: FeatureTable; cached: boolean; unwritable?: string }> {
  const names = featureNames(options);
  const hash = createHash('sha256')
    .update(JSON.stringify({ names, options }))
    .digest('hex')
    .slice(0, 12);
  const path = join(
    dirname(datasetPath),
    `${basename(datasetPath, '.parquet')}.features-${hash}.arrow`,
  );
  const rows = bars.timestamps.length;
  const width = names.length;
  // Loaded on first use: most commands never touch features.
  const arrow = await import('apache-arrow');
  const file = existsSync(path) ? await readFile(path).catch(unusableCache) : undefined;
  const cached = file === undefined ? undefined : readCache(arrow, file, rows, width);
  if (cached !== undefined) return { table: { names, ...cached }, cached: true };
  const computed = computeFeatures(bars, options);
  const table: FeatureTable = { names, warmup: computed.warmup, values: computed.values };
  const child = new arrow.Field('value', new arrow.Float32(), false);
  const type = new arrow.FixedSizeList(width, child);
  const field = new arrow.Field('features', type, false);
  const schema = new arrow.Schema(
    [field],
    new Map([
      ['tradelab.warmup', String(table.warmup)],
      ['tradelab.names', JSON.stringify(names)],
      ['tradelab.features', JSON.stringify(options)],
    ]),
  );
  const flat = arrow.makeData({
    type: child.type,
    length: rows * width,
    nullCount: 0,
    data: table.values,
  });
  const column = arrow.makeData({ type, length: rows, nullCount: 0, child: flat });
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct([field]),
      length: rows,
      nullCount: 0,
      children: [column],
    }),
  );
  // Atomic (a temp file, then a rename) but not fsynced: a cache lost in a crash is recomputed.
  // The pid in the name lets the store sweep a killed writer's temp (store/stale-files.ts).
  const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(temp, arrow.tableToIPC(new arrow.Table(schema, [batch]), 'file'));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    // A read-only store (shared, or on a read-only mount) still loads: it recomputes next time.
    if (!isFileSystemError(error)) throw error;
    return { table, cached: false, unwritable: `${path}: ${error.message}` };
  }
  return { table, cached: false };
}

/** A cache file that cannot be read (a folder in its place, unreadable) is recomputed. */
function unusableCache(error: unknown): undefined {
  if (isFileSystemError(error)) return undefined;
  throw error;
}

/** An error of the file system (EACCES, EROFS, ENOSPC, EISDIR, …), not a bug of ours. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/** The cache's warm-up and matrix, or undefined when the file is not one this version wrote for these bars. */
function readCache(
  arrow: typeof import('apache-arrow'),
  file: Uint8Array,
  rows: number,
  width: number,
): { warmup: number; values: Float32Array } | undefined {
  let table;
  try {
    table = arrow.tableFromIPC(file);
  } catch {
    return undefined; // unreadable (cut short by a full disk, say): recompute and replace it
  }
  const warmup = Number(table.schema.metadata.get('tradelab.warmup'));
  const column = table.getChild('features');
  // One batch as written; the flat child buffer is a view into `file`.
  const data = column?.data.length === 1 ? column.data[0]?.children[0] : undefined;
  const values = data?.values as unknown;
  if (
    table.numRows !== rows ||
    !Number.isInteger(warmup) ||
    !(values instanceof Float32Array) ||
    values.length !== rows * width
  )
    return undefined;
  return { warmup, values };
}

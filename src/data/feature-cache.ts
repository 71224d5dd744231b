import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isTradelabError } from '../core/index.js';
import type { Bars } from './bars.js';
import { computeFeatures, featureNames, type FeatureOptions } from './features/index.js';
import { readParquetFile } from './parquet/read-parquet.js';
import { writeParquetFile } from './parquet/write-parquet.js';

/** One asset's features by column: `columns[f][t]`, the layout the cache file and the loader use. */
export interface FeatureColumns {
  names: string[];
  /** Leading rows where some feature is undefined. */
  warmup: number;
  columns: Float32Array[];
}

/**
 * Features of a stored dataset, computed once and kept beside its Parquet file
 * (`TF.<id>.features-<hash>.parquet`, float32 columns), so loading does not recompute them. The
 * name carries the dataset file's id (a rewrite gets a new id, so a cache can never be stale) and
 * a hash of the feature options. The cache is optional: one that cannot be read is recomputed, and
 * one that cannot be written (a read-only store, a full disk, a name in the way) is left unwritten
 * and said in `unwritable`, for the caller to warn about; the features are returned either way. The
 * pages are not compressed: noisy float32 features barely shrink, and uncompressed pages read
 * fastest, which is what a cache is for.
 */
export async function cachedFeatures(
  datasetPath: string,
  bars: Bars,
  options: FeatureOptions = {},
): Promise<{ table: FeatureColumns; cached: boolean; unwritable?: string }> {
  const names = featureNames(options);
  const hash = createHash('sha256')
    .update(JSON.stringify({ names, options }))
    .digest('hex')
    .slice(0, 12);
  const path = join(
    dirname(datasetPath),
    `${basename(datasetPath, '.parquet')}.features-${hash}.parquet`,
  );
  const rows = bars.timestamps.length;
  const file = existsSync(path) ? await readParquetFile(path).catch(unusableCache) : undefined;
  if (file !== undefined) {
    const warmup = Number(file.metadata['tradelab.warmup']);
    const columns = names.map((n) => file.columns[n]);
    if (
      file.numRows === rows &&
      Number.isInteger(warmup) &&
      columns.every((c) => c instanceof Float32Array)
    ) {
      return { table: { names, warmup, columns: columns }, cached: true };
    }
  }
  const computed = computeFeatures(bars, options);
  const width = names.length;
  const table: FeatureColumns = {
    names,
    warmup: computed.warmup,
    columns: names.map((_, f) => {
      const column = new Float32Array(rows);
      for (let t = 0; t < rows; t++) column[t] = computed.values[t * width + f] ?? Number.NaN;
      return column;
    }),
  };
  try {
    await writeParquetFile(
      path,
      {
        columns: names.map((name, f) => ({
          name,
          type: 'float',
          values: table.columns[f] ?? new Float32Array(rows),
        })),
        metadata: {
          'tradelab.warmup': String(table.warmup),
          'tradelab.features': JSON.stringify(options),
        },
      },
      { fsync: false, compression: 'none' },
    );
  } catch (error) {
    // A read-only store (shared, or on a read-only mount) still loads: it recomputes next time.
    if (!isFileSystemError(error)) throw error;
    return { table, cached: false, unwritable: `${path}: ${error.message}` };
  }
  return { table, cached: false };
}

/** A cache file that cannot be read (damaged, a folder in its place, unreadable) is recomputed. */
function unusableCache(error: unknown): undefined {
  if (isFileSystemError(error) || isTradelabError(error)) return undefined;
  throw error;
}

/** An error of the file system (EACCES, EROFS, ENOSPC, EISDIR, …), not a bug of ours. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

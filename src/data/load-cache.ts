import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type * as Arrow from 'apache-arrow';
import { TradelabError } from '../core/index.js';
import { BAR_FIELDS, type Bars } from './bars.js';
import { computeFeatures, featureNames, type FeatureOptions } from './features/index.js';
import type { DatasetEntry } from './store/catalog.js';
import type { DatasetKey } from './store/dataset-key.js';
import type { DatasetStore } from './store/dataset-store.js';

/** One asset's features, row-major: `values[t · names.length + f]`, the layout the loader gathers. */
export interface FeatureTable {
  names: string[];
  /** Leading rows where some feature is undefined. */
  warmup: number;
  values: Float32Array;
}

/** A dataset as the loader takes it: its bars (as `store.read` gives them) and their features. */
export interface CachedDataset {
  entry: DatasetEntry;
  bars: Bars;
  features: FeatureTable;
  /** Whether both came from the load cache. */
  cached: boolean;
  /** Set when the cache could not be written: where, and why. */
  unwritable?: string;
}

/**
 * A dataset's bars and features, from its load cache when it has one: an Arrow IPC file beside its
 * Parquet file (`TF.<id>.features-<hash>.arrow`) with the bars as float64 columns and the features
 * as one fixed-size list of float32 per bar, so its buffers are the arrays the loader takes,
 * read in place (one read of the file, then views). The Parquet file stays the dataset; the cache
 * only spares each load its decoding (Snappy pages, delta-encoded timestamps) and the features'
 * computation, which together cost as much as the rest of a load. The name carries the dataset
 * file's id (a rewrite gets a new id, so a cache can never be stale) and a hash of the feature
 * options and of `adjusted`; the cache goes with the dataset.
 *
 * The cache is optional: one that cannot be read is rebuilt from the Parquet file, and one that
 * cannot be written (a read-only store, a full disk, a name in the way) is left unwritten and said
 * in `unwritable`, for the caller to warn about. A dataset whose Parquet file is gone is reported
 * as such by `store.read`, cache or not.
 */
export async function loadCachedDataset(
  store: DatasetStore,
  key: DatasetKey,
  options: FeatureOptions = {},
): Promise<CachedDataset> {
  const entry = store.require(key);
  const names = featureNames(options);
  const datasetPath = join(store.dir, entry.file);
  const path = cachePath(datasetPath, names, options, entry.adjusted);
  // Loaded on first use: most commands never touch features.
  const arrow = await import('apache-arrow');
  if (existsSync(datasetPath)) {
    const file = existsSync(path) ? await readFile(path).catch(unusableCache) : undefined;
    const cached = file === undefined ? undefined : readCache(arrow, file, entry.rows, names);
    if (cached !== undefined) return { entry, ...cached, cached: true };
  }
  const read = await store.read(key);
  const computed = computeFeatures(read.bars, options);
  const features: FeatureTable = { names, warmup: computed.warmup, values: computed.values };
  const unwritable = await writeCache(
    arrow,
    cachePath(join(store.dir, read.entry.file), names, options, read.entry.adjusted),
    read.bars,
    features,
    options,
  );
  return {
    entry: read.entry,
    bars: read.bars,
    features,
    cached: false,
    ...(unwritable === undefined ? {} : { unwritable }),
  };
}

/**
 * One symbol opened for {@link loadMarketData}: its entry, its own copy of the timestamps and its
 * warm-up up front (for aligning symbols), and its bars and features once more through `visit`.
 */
export interface DatasetSource {
  entry: DatasetEntry;
  timestamps: Float64Array;
  warmup: number;
  names: string[];
  /** Set when the cache could not be written: where, and why. */
  unwritable?: string;
  /**
   * Calls `use` with the dataset's bars and features. From a cache they are views into a buffer
   * the next `visit` of any source of the same open reuses: copy what you keep.
   */
  visit<T>(use: (bars: Bars, features: FeatureTable) => T): T;
}

/**
 * Opens datasets for loading. A cached dataset is read twice through one scratch buffer, the size
 * of the largest cache file: first for its timestamps, then, in `visit`, for the rest. Reading
 * from the page cache twice costs less than the fresh memory a buffer per file takes, and fresh
 * memory is what a load's time went to (each new page faults; 10 × 100k bars made 116 MB of them
 * on top of the 108 MB the load returns). A dataset without a usable cache is read from its
 * Parquet file, its features computed and its cache written ({@link loadCachedDataset}), and kept
 * in memory.
 */
export async function openDatasetSources(
  store: DatasetStore,
  keys: readonly DatasetKey[],
  options: FeatureOptions = {},
): Promise<DatasetSource[]> {
  const names = featureNames(options);
  const arrow = await import('apache-arrow');
  const entries = keys.map((key) => store.require(key));
  const paths = entries.map((entry) =>
    cachePath(join(store.dir, entry.file), names, options, entry.adjusted),
  );
  const sizes = entries.map((entry, s) =>
    existsSync(join(store.dir, entry.file)) ? fileSize(paths[s] ?? '') : undefined,
  );
  const scratch = Buffer.allocUnsafeSlow(Math.max(0, ...sizes.map((n) => n ?? 0)));
  const fromCache = (path: string, size: number, rows: number) => {
    const bytes = readInto(path, scratch, size);
    return bytes === undefined ? undefined : readCache(arrow, bytes, rows, names);
  };
  const sources: DatasetSource[] = [];
  for (const [s, key] of keys.entries()) {
    const entry = entries[s] as DatasetEntry;
    const path = paths[s] as string;
    const size = sizes[s];
    const cached = size === undefined ? undefined : fromCache(path, size, entry.rows);
    if (cached !== undefined && size !== undefined) {
      sources.push({
        entry,
        timestamps: cached.bars.timestamps.slice(),
        warmup: cached.features.warmup,
        names,
        visit(use) {
          const again = fromCache(path, size, entry.rows);
          if (again === undefined)
            throw new TradelabError(
              'DATA_STORE_INVALID',
              `the load cache ${path} went away while it was being read (the dataset was rewritten meanwhile)`,
              { hint: 'run the command again' },
            );
          return use(again.bars, again.features);
        },
      });
      continue;
    }
    const built = await loadCachedDataset(store, key, options);
    sources.push({
      entry: built.entry,
      timestamps: built.bars.timestamps,
      warmup: built.features.warmup,
      names,
      ...(built.unwritable === undefined ? {} : { unwritable: built.unwritable }),
      visit: (use) => use(built.bars, built.features),
    });
  }
  return sources;
}

/** A regular file's size, or undefined when there is none (or it cannot be read). */
function fileSize(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/** The first `size` bytes of `path`, read into `scratch`; undefined when it cannot be read whole. */
function readInto(path: string, scratch: Buffer, size: number): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let done = 0;
    while (done < size) {
      const n = readSync(fd, scratch, done, size - done, done);
      if (n === 0) return undefined;
      done += n;
    }
    return scratch.subarray(0, size);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function cachePath(
  datasetPath: string,
  names: readonly string[],
  options: FeatureOptions,
  adjusted: boolean,
): string {
  const hash = createHash('sha256')
    .update(JSON.stringify({ names, options, adjusted }))
    .digest('hex')
    .slice(0, 12);
  return join(dirname(datasetPath), `${basename(datasetPath, '.parquet')}.features-${hash}.arrow`);
}

/** The bar columns a cache holds, in Arrow: the fields of `Bars`, adjClose when there is one. */
const CACHED_BARS = ['timestamps', ...BAR_FIELDS, 'adjClose'] as const;

/** Writes the cache; returns why it could not be written, or undefined. */
async function writeCache(
  arrow: typeof Arrow,
  path: string,
  bars: Bars,
  features: FeatureTable,
  options: FeatureOptions,
): Promise<string | undefined> {
  const rows = bars.timestamps.length;
  const width = features.names.length;
  const child = new arrow.Field('value', new arrow.Float32(), false);
  const listType = new arrow.FixedSizeList(width, child);
  const fields: Arrow.Field[] = [];
  const children: Arrow.Data[] = [];
  for (const name of CACHED_BARS) {
    const values = bars[name];
    if (values === undefined) continue;
    fields.push(new arrow.Field(name, new arrow.Float64(), false));
    children.push(
      arrow.makeData({ type: new arrow.Float64(), length: rows, nullCount: 0, data: values }),
    );
  }
  fields.push(new arrow.Field('features', listType, false));
  const flat = arrow.makeData({
    type: child.type,
    length: rows * width,
    nullCount: 0,
    data: features.values,
  });
  children.push(arrow.makeData({ type: listType, length: rows, nullCount: 0, child: flat }));
  const schema = new arrow.Schema(
    fields,
    new Map([
      ['tradelab.warmup', String(features.warmup)],
      ['tradelab.names', JSON.stringify(features.names)],
      ['tradelab.features', JSON.stringify(options)],
    ]),
  );
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({ type: new arrow.Struct(fields), length: rows, nullCount: 0, children }),
  );
  // Atomic (a temp file, then a rename) but not fsynced: a cache lost in a crash is rebuilt.
  // The pid in the name lets the store sweep a killed writer's temp (store/stale-files.ts).
  const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(temp, arrow.tableToIPC(new arrow.Table(schema, [batch]), 'file'));
    await rename(temp, path);
    return undefined;
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    // A read-only store (shared, or on a read-only mount) still loads: it recomputes next time.
    if (!isFileSystemError(error)) throw error;
    return `${path}: ${error.message}`;
  }
}

/** The cache's bars and features, or undefined when the file is not one this version wrote for the dataset. */
function readCache(
  arrow: typeof Arrow,
  file: Uint8Array,
  rows: number,
  names: readonly string[],
): { bars: Bars; features: FeatureTable } | undefined {
  let table;
  try {
    table = arrow.tableFromIPC(file);
  } catch {
    return undefined; // unreadable (cut short by a full disk, say): rebuild and replace it
  }
  if (table.numRows !== rows || table.batches.length !== 1) return undefined;
  // One batch as written: each column's values are a view into `file`.
  const values = (name: string): unknown => table.getChild(name)?.data[0]?.values;
  const flat = table.getChild('features')?.data[0]?.children[0]?.values as unknown;
  const warmup = Number(table.schema.metadata.get('tradelab.warmup'));
  if (
    !Number.isInteger(warmup) ||
    !(flat instanceof Float32Array) ||
    flat.length !== rows * names.length
  )
    return undefined;
  const bars: Partial<Record<(typeof CACHED_BARS)[number], Float64Array>> = {};
  for (const name of CACHED_BARS) {
    const column = values(name);
    if (column === undefined && name === 'adjClose') continue;
    if (!(column instanceof Float64Array) || column.length !== rows) return undefined;
    bars[name] = column;
  }
  return { bars: bars as Bars, features: { names: [...names], warmup, values: flat } };
}

/** A cache file that cannot be read (a folder in its place, unreadable) is rebuilt. */
function unusableCache(error: unknown): undefined {
  if (isFileSystemError(error)) return undefined;
  throw error;
}

/** An error of the file system (EACCES, EROFS, ENOSPC, EISDIR, …), not a bug of ours. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { closestMatch, isTradelabError, TradelabError } from '../../core/index.js';
import { adjustedBars, BAR_FIELDS, barCount, type Bars } from '../bars.js';
import type { ParquetColumnInput } from '../parquet/parquet-table.js';
import { readParquetFile } from '../parquet/read-parquet.js';
import { writeParquetFile } from '../parquet/write-parquet.js';
import { readCatalog, updateCatalog, type DatasetEntry } from './catalog.js';
import { formatDatasetKey, type DatasetKey } from './dataset-key.js';

/** What a write records besides the bars. */
export type DatasetWrite = Omit<
  DatasetEntry,
  | 'symbol'
  | 'timeframe'
  | 'rows'
  | 'firstMs'
  | 'lastMs'
  | 'file'
  | 'columns'
  | 'createdAt'
  | 'updatedAt'
>;

/**
 * The dataset store: one Parquet file per (symbol, timeframe) and a JSON catalog beside them. Files
 * are Snappy-compressed (see write-parquet.ts); files written before that (uncompressed, by our own
 * codec) are plain Parquet too and read as they are, so old stores need no migration.
 */
export interface DatasetStore {
  readonly dir: string;
  /** Every dataset, sorted by key. */
  list(): DatasetEntry[];
  /** A dataset's catalog entry, if it exists. */
  get(key: DatasetKey): DatasetEntry | undefined;
  /** A dataset's entry; throws naming the datasets there are when it does not exist. */
  require(key: DatasetKey): DatasetEntry;
  /**
   * Reads a dataset's bars. An adjusted dataset comes with the adjusted close as close (and OHLC
   * scaled) unless `raw` is set; the store always keeps the bars as imported.
   */
  read(key: DatasetKey, options?: { raw?: boolean }): Promise<{ entry: DatasetEntry; bars: Bars }>;
  /**
   * Writes a dataset's bars (replacing any earlier version) and its catalog entry. Atomic: the new
   * Parquet file gets a new name, the catalog switches to it in one rename, then the old file goes.
   * A crash at any point leaves the previous version readable.
   */
  write(key: DatasetKey, bars: Bars, info: DatasetWrite): Promise<DatasetEntry>;
  /** Removes a dataset and its file. */
  remove(key: DatasetKey): Promise<DatasetEntry>;
}

/** Opens (without creating) the store in `dir`. */
export function openDatasetStore(dir: string): DatasetStore {
  const list = (): DatasetEntry[] =>
    Object.values(readCatalog(dir).datasets).sort((a, b) =>
      formatDatasetKey(a).localeCompare(formatDatasetKey(b)),
    );
  const get = (key: DatasetKey): DatasetEntry | undefined =>
    readCatalog(dir).datasets[formatDatasetKey(key)];
  const require = (key: DatasetKey): DatasetEntry => {
    const entry = get(key);
    if (entry !== undefined) return entry;
    const known = list().map((e) => formatDatasetKey(e));
    const guess = closestMatch(formatDatasetKey(key), known);
    throw new TradelabError(
      'DATASET_NOT_FOUND',
      `no dataset ${formatDatasetKey(key)} in ${dir}${known.length === 0 ? ' (the store is empty)' : `; there are: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`}`,
      {
        hint:
          guess !== undefined
            ? `did you mean ${guess}?`
            : known.length === 0
              ? 'import data first: `tradelab data import FILE --symbol SYM --timeframe TF`, or `tradelab data synth`'
              : '`tradelab data list` shows them; `tradelab data resample` makes other timeframes',
      },
    );
  };
  return {
    dir,
    list,
    get,
    require,
    async read(key, options = {}) {
      const entry = require(key);
      const path = join(dir, entry.file);
      if (!existsSync(path)) {
        throw new TradelabError(
          'DATA_STORE_INVALID',
          `the catalog lists ${formatDatasetKey(key)} in ${path}, which is missing`,
          {
            hint: `remove it with \`tradelab data rm ${formatDatasetKey(key)}\` and import it again`,
          },
        );
      }
      const table = await readParquetFile(path).catch((error: unknown) => {
        if (!isTradelabError(error) || error.details?.['corrupt'] !== true) throw error;
        throw new TradelabError(
          'DATA_STORE_INVALID',
          `${formatDatasetKey(key)}: ${error.message}`,
          {
            cause: error,
            hint: `the file was damaged or replaced by hand; remove the dataset with \`tradelab data rm ${formatDatasetKey(key)}\` and import it again`,
            details: { file: path, dataset: formatDatasetKey(key) },
          },
        );
      });
      const column = (name: string): Float64Array => {
        const values = table.columns[name];
        if (!(values instanceof Float64Array)) {
          throw new TradelabError('DATA_STORE_INVALID', `${path} has no ${name} column`, {
            hint: 'the file was replaced by hand; import the data again',
          });
        }
        return values;
      };
      if (table.numRows !== entry.rows) {
        throw new TradelabError(
          'DATA_STORE_INVALID',
          `${path} holds ${table.numRows} rows; the catalog says ${entry.rows}`,
          {
            hint: 'the file was replaced by hand; import the data again',
          },
        );
      }
      const bars: Bars = {
        timestamps: column('timestamp'),
        open: column('open'),
        high: column('high'),
        low: column('low'),
        close: column('close'),
        volume: column('volume'),
      };
      if (table.columns.adj_close instanceof Float64Array) bars.adjClose = table.columns.adj_close;
      return { entry, bars: entry.adjusted && options.raw !== true ? adjustedBars(bars) : bars };
    },
    async write(key, bars, info) {
      const name = formatDatasetKey(key);
      const file = join(key.symbol, `${key.timeframe}.${randomBytes(4).toString('hex')}.parquet`);
      const path = join(dir, file);
      mkdirSync(dirname(path), { recursive: true });
      const columns: ParquetColumnInput[] = [
        { name: 'timestamp', type: 'timestamp-ms', values: bars.timestamps },
        ...BAR_FIELDS.map((c): ParquetColumnInput => ({
          name: c,
          type: 'double',
          values: bars[c],
        })),
      ];
      if (bars.adjClose !== undefined)
        columns.push({ name: 'adj_close', type: 'double', values: bars.adjClose });
      await writeParquetFile(path, {
        columns,
        metadata: { 'tradelab.dataset': name, 'tradelab.calendar': info.calendar },
      });
      let previous: string | undefined;
      let entry: DatasetEntry | undefined;
      try {
        await updateCatalog(dir, (catalog) => {
          const now = new Date().toISOString();
          const old = catalog.datasets[name];
          previous = old?.file;
          const n = barCount(bars);
          entry = {
            symbol: key.symbol,
            timeframe: key.timeframe,
            ...info,
            rows: n,
            firstMs: bars.timestamps[0] ?? Number.NaN,
            lastMs: bars.timestamps[n - 1] ?? Number.NaN,
            file,
            columns: columns.map((c) => c.name),
            createdAt: old?.createdAt ?? now,
            updatedAt: now,
          };
          catalog.datasets[name] = entry;
        });
      } catch (error) {
        rmSync(path, { force: true });
        throw error;
      }
      if (previous !== undefined && previous !== file) removeDatasetFile(dir, previous);
      if (entry === undefined) throw new Error('catalog update did not run');
      return entry;
    },
    async remove(key) {
      require(key);
      const entry = await updateCatalog(dir, (catalog) => {
        const name = formatDatasetKey(key);
        const found = catalog.datasets[name];
        if (found === undefined)
          throw new TradelabError('DATASET_NOT_FOUND', `no dataset ${name}`, {
            hint: '`tradelab data list` shows the datasets',
          });
        // Computed keys from our own key format; the catalog is a plain record.
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
        delete catalog.datasets[name];
        return found;
      });
      removeDatasetFile(dir, entry.file);
      return entry;
    },
  };
}

/** Removes a dataset's Parquet file and the feature caches made from it (`<file>.features-*`). */
function removeDatasetFile(dir: string, file: string): void {
  const path = join(dir, file);
  rmSync(path, { force: true });
  const folder = dirname(path);
  const prefix = `${basename(path, '.parquet')}.features-`;
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder))
    if (name.startsWith(prefix)) rmSync(join(folder, name), { force: true });
}

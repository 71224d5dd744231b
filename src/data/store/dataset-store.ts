import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import {
  closestMatch,
  fileSystemError,
  isTradelabError,
  TradelabError,
  makeDirectory,
} from '../../core/index.js';
import { adjustedBars, BAR_FIELDS, barCount, type Bars } from '../bars.js';
import type { ParquetColumnInput } from '../parquet/parquet-table.js';
import { readParquetFile } from '../parquet/read-parquet.js';
import { writeParquetFile } from '../parquet/write-parquet.js';
import { readCatalog, updateCatalog, type DatasetEntry } from './catalog.js';
import { formatDatasetKey, type DatasetKey } from './dataset-key.js';
import { checkReplace } from './dataset-origin.js';
import { invalidStoredBar } from './stored-bar-check.js';
import { withPidLock } from './pid-lock.js';
import { sweepStaleTemps } from './stale-files.js';

/** What a write records besides the bars. */
export type DatasetWrite = Omit<
  DatasetEntry,
  | 'symbol'
  | 'timeframe'
  | 'rows'
  | 'firstMs'
  | 'lastMs'
  | 'file'
  | 'fileBytes'
  | 'fileCrc32'
  | 'columns'
  | 'createdAt'
  | 'updatedAt'
>;

/** What a cheap look at a dataset's Parquet file finds. */
export type DatasetFileStatus = 'ok' | 'missing' | 'damaged';

/** Options for a write. */
export interface WriteOptions {
  /**
   * Replace a dataset of another origin too (imported files, synth, another parent: see
   * dataset-origin.ts). Default false: such a write is refused with DATASET_EXISTS.
   */
  force?: boolean;
}

/** Writes a dataset's bars while its lock is held (see {@link DatasetStore.withLock}). */
export type LockedWrite = (
  bars: Bars,
  info: DatasetWrite,
  options?: WriteOptions,
) => Promise<DatasetEntry>;

/**
 * The dataset store: one Parquet file per (symbol, timeframe) and a JSON catalog beside them. Files
 * are Snappy-compressed (see write-parquet.ts); files written before that (uncompressed, by our own
 * codec) are plain Parquet too and read as they are, so old stores need no migration.
 *
 * Several processes may use one store. Each dataset has a lock (`SYM/TF.lock`, the owner's pid)
 * held around every change of its bars, the read of what is there included, so two imports into
 * one dataset take turns and neither loses the other's bars; the catalog has its own lock, held
 * only for the switch. Whoever takes a dataset's lock first removes what killed writers left: temp
 * files whose pid is gone (stale-files.ts), and files of the dataset the catalog does not name.
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
   * Writes a dataset's bars (replacing any earlier version of the same origin; another origin
   * only with `force`) and its catalog entry. Atomic: the new Parquet file gets a new name, the
   * catalog switches to it in one rename, then the old file goes. A crash at any point leaves the
   * previous version readable.
   */
  write(
    key: DatasetKey,
    bars: Bars,
    info: DatasetWrite,
    options?: WriteOptions,
  ): Promise<DatasetEntry>;
  /**
   * Runs `work` holding the dataset's lock, waiting while another process holds it: what `work`
   * reads of the dataset (`get`, `read`) stays true until it returns, and `write` replaces the
   * dataset without taking the lock again. For a read, merge and write that must not lose a
   * concurrent writer's bars.
   */
  withLock<T>(key: DatasetKey, work: (write: LockedWrite) => Promise<T>): Promise<T>;
  /** Removes a dataset and its file. */
  remove(key: DatasetKey): Promise<DatasetEntry>;
  /**
   * Whether the dataset's Parquet file is there and looks whole (the size it was written with,
   * Parquet's magic bytes at both ends), without reading it: damage inside the file shows when it
   * is read (its CRC-32, then its bars, are checked).
   */
  fileStatus(entry: DatasetEntry): DatasetFileStatus;
}

/** How long a dataset's lock is waited for: another import of it may take minutes. */
const DATASET_LOCK_WAIT_MS = 10 * 60_000;

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
      for (let attempt = 1; ; attempt++) {
        const entry = require(key);
        try {
          return await readEntry(dir, key, entry, options);
        } catch (error) {
          // A writer replaced the file between our catalog read and the file read: read the new one.
          if (attempt < 3 && get(key)?.file !== entry.file) continue;
          throw error;
        }
      }
    },
    write(key, bars, info, options) {
      return withLock(key, (write) => write(bars, info, options));
    },
    withLock,
    async remove(key) {
      require(key);
      return withLock(key, async () => {
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
      });
    },
    fileStatus(entry) {
      return fileStatus(join(dir, entry.file), entry.fileBytes);
    },
  };

  async function withLock<T>(
    key: DatasetKey,
    work: (write: LockedWrite) => Promise<T>,
  ): Promise<T> {
    const folder = join(dir, key.symbol);
    const created = makeDirectory(folder);
    try {
      return await withPidLock(
        join(folder, `${key.timeframe}.lock`),
        { waitMs: DATASET_LOCK_WAIT_MS, what: `dataset ${formatDatasetKey(key)} in ${dir}` },
        () => {
          sweepStaleTemps(dir);
          sweepUnlisted(dir, key);
          return work((bars, info, options) => writeLocked(dir, key, bars, info, options));
        },
      );
    } finally {
      // A first write that failed leaves no empty folders (nor an empty store) behind.
      if (created !== undefined) removeEmptyFolders(folder, created);
    }
  }
}

/** The write of {@link DatasetStore.write}, with the dataset's lock held by the caller. */
async function writeLocked(
  dir: string,
  key: DatasetKey,
  bars: Bars,
  info: DatasetWrite,
  options: WriteOptions = {},
): Promise<DatasetEntry> {
  const name = formatDatasetKey(key);
  // Before any byte is written; the dataset's lock keeps the entry as read until the switch.
  checkReplace(key, readCatalog(dir).datasets[name], info, options.force);
  // What a read would refuse as damage is not stored in the first place.
  const invalid = invalidStoredBar(bars);
  if (invalid !== undefined)
    throw new TradelabError('DATA_INVALID', `${name}: refusing to store ${invalid}`, {
      hint: 'the store keeps bars as `tradelab data import` lets them in; clean them first (cleanBars())',
      details: { dataset: name },
    });
  const id = randomBytes(4).toString('hex');
  const file = join(key.symbol, `${key.timeframe}.${id}.parquet`);
  const path = join(dir, file);
  // Written under a temp name carrying our pid, and given its own name only in the catalog switch:
  // a write killed at any point leaves nothing but temps of a dead pid, which the next writer sweeps.
  const staged = join(
    dir,
    key.symbol,
    `.${key.timeframe}.${id}.parquet.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
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
  let previous: string | undefined;
  let entry: DatasetEntry | undefined;
  try {
    const written = await writeParquetFile(staged, {
      columns,
      metadata: { 'tradelab.dataset': name, 'tradelab.calendar': info.calendar },
    });
    await updateCatalog(dir, (catalog) => {
      const now = new Date().toISOString();
      const old = catalog.datasets[name];
      previous = old?.file;
      const n = barCount(bars);
      renameSync(staged, path);
      entry = {
        symbol: key.symbol,
        timeframe: key.timeframe,
        ...info,
        rows: n,
        firstMs: bars.timestamps[0] ?? Number.NaN,
        lastMs: bars.timestamps[n - 1] ?? Number.NaN,
        file,
        fileBytes: written.bytes,
        fileCrc32: written.crc32,
        columns: columns.map((c) => c.name),
        createdAt: old?.createdAt ?? now,
        updatedAt: now,
      };
      catalog.datasets[name] = entry;
    });
  } catch (error) {
    rmSync(staged, { force: true });
    // Renamed, but the catalog could not be written: the catalog still names the old file.
    rmSync(path, { force: true });
    throw storeWriteError(dir, name, error) ?? error;
  }
  if (previous !== undefined && previous !== file) removeDatasetFile(dir, previous);
  if (entry === undefined) throw new Error('catalog update did not run');
  return entry;
}

/**
 * A write that failed for an ordinary reason (a full disk, no permission) as a FILE_ACCESS error
 * naming the dataset, the store and, for a full disk, the room left on it; the store is as it was
 * (the write's files are gone). Undefined for any other failure.
 */
function storeWriteError(dir: string, name: string, error: unknown): TradelabError | undefined {
  const access = isTradelabError(error, 'FILE_ACCESS') ? error : fileSystemError(error, dir);
  if (access === undefined) return undefined;
  const code = access.details?.['code'];
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  const free = full ? freeSpace(dir) : undefined;
  const needed = access.details?.['bytes'];
  const room =
    free === undefined
      ? undefined
      : typeof needed === 'number'
        ? `it needs ${size(needed)}; the disk holding the store has ${size(free)} free`
        : `the disk holding the store has ${size(free)} free`;
  // The reason alone ("no space left on device"): the file that failed is a temp of ours.
  const reason = access.details?.['reason'];
  return new TradelabError(
    'FILE_ACCESS',
    `cannot write ${name} into the data store ${dir}: ${typeof reason === 'string' ? reason : access.message}${room === undefined ? '' : ` (${room})`}; the store is as it was`,
    {
      cause: error,
      hint: full
        ? `free some space on the disk holding ${dir}, or move the store to a disk with room (paths.data in the config, or --data-dir), then run the command again`
        : (access.hint ?? 'check the store directory'),
      details: { ...access.details, dataset: name, store: dir },
    },
  );
}

/** Bytes left for this user on the disk holding `dir`; undefined when unknown. */
function freeSpace(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch (error) {
    // Only a figure for the message: a store whose disk cannot be asked goes without it.
    if (error instanceof Error) return undefined;
    throw error;
  }
}

/** Bytes as "2.7 MB". */
function size(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit] ?? ''}`;
}

/** Reads a dataset's bars as its entry says, with errors that say how to get the dataset back. */
async function readEntry(
  dir: string,
  key: DatasetKey,
  entry: DatasetEntry,
  options: { raw?: boolean },
): Promise<{ entry: DatasetEntry; bars: Bars }> {
  const name = formatDatasetKey(key);
  const path = join(dir, entry.file);
  if (!existsSync(path)) {
    throw new TradelabError('DATA_STORE_INVALID', `${name}'s store file ${path} is missing`, {
      hint: repairHint(key, entry),
      details: { file: path, dataset: name, status: 'missing' },
    });
  }
  const damaged = (what: string, cause?: unknown): TradelabError =>
    new TradelabError('DATA_STORE_INVALID', `${name}: ${what}`, {
      ...(cause === undefined ? {} : { cause }),
      hint: `the file was damaged or replaced by hand; ${repairHint(key, entry)}`,
      details: { file: path, dataset: name, status: 'damaged' },
    });
  const table = await readParquetFile(
    path,
    entry.fileCrc32 === undefined ? {} : { crc32: entry.fileCrc32 },
  ).catch((error: unknown) => {
    if (!isTradelabError(error) || error.details?.['corrupt'] !== true) throw error;
    throw damaged(error.message, error);
  });
  const column = (field: string): Float64Array => {
    const values = table.columns[field];
    if (!(values instanceof Float64Array)) throw damaged(`${path} has no ${field} column`);
    return values;
  };
  if (table.numRows !== entry.rows)
    throw damaged(`${path} holds ${table.numRows} rows; the catalog says ${entry.rows}`);
  const bars: Bars = {
    timestamps: column('timestamp'),
    open: column('open'),
    high: column('high'),
    low: column('low'),
    close: column('close'),
    volume: column('volume'),
  };
  if (table.columns.adj_close instanceof Float64Array) bars.adjClose = table.columns.adj_close;
  // The second net, and the only one for files written before checksums: every stored bar passed
  // the import's checks, so one that fails them now was damaged since.
  const invalid = invalidStoredBar(bars);
  if (invalid !== undefined)
    throw damaged(`${path} holds a bar no import would have stored: ${invalid}`);
  return { entry, bars: entry.adjusted && options.raw !== true ? adjustedBars(bars) : bars };
}

/** How to get a dataset whose file is missing or damaged back: make it again, or remove it. */
export function repairHint(key: DatasetKey, entry: DatasetEntry): string {
  const name = formatDatasetKey(key);
  const rm = `\`tradelab data rm ${name}\``;
  if (entry.derivedFrom !== undefined)
    return `it was made from ${entry.derivedFrom}: remove it with ${rm} and make it again`;
  if (entry.sources.length === 0) return `remove it with ${rm} and import it again`;
  const shown = entry.sources.slice(0, 10).map((s) => shellWord(s.path));
  const more = entry.sources.length - shown.length;
  return `import all of its files again to rebuild it: \`tradelab data import ${shown.join(' ')}${more > 0 ? ` …(${more} more)` : ''} --symbol ${key.symbol} --timeframe ${key.timeframe}\`; or remove it with ${rm}`;
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A cheap look at a Parquet file: there, of the size written (when known), `PAR1` at both ends. */
function fileStatus(path: string, bytes: number | undefined): DatasetFileStatus {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
  try {
    const { size } = fstatSync(fd);
    if (size < 12 || (bytes !== undefined && size !== bytes)) return 'damaged';
    const head = Buffer.alloc(4);
    const tail = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    readSync(fd, tail, 0, 4, size - 4);
    return head.toString('latin1') === 'PAR1' && tail.toString('latin1') === 'PAR1'
      ? 'ok'
      : 'damaged';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return 'damaged';
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the dataset's files the catalog does not name (`TF.<id>.parquet` and its load caches):
 * left by a write killed between its rename and the catalog switch, or by an earlier tradelab,
 * which renamed first and then waited for the catalog. Only the lock holder writes these names.
 */
function sweepUnlisted(dir: string, key: DatasetKey): void {
  const folder = join(dir, key.symbol);
  const current = readCatalog(dir).datasets[formatDatasetKey(key)]?.file;
  const keep = current === undefined ? undefined : basename(current, '.parquet');
  const own = new RegExp(`^(${key.timeframe}\\.[0-9a-f]{8})(?:\\.features-[0-9a-f]+)?\\.parquet$`);
  for (const name of readdirSync(folder)) {
    const id = own.exec(name)?.[1];
    if (id !== undefined && id !== keep) rmSync(join(folder, name), { force: true });
  }
}

/** Removes `folder` and its parents up to `top` while they are empty. */
function removeEmptyFolders(folder: string, top: string): void {
  for (let at = folder; ; at = dirname(at)) {
    try {
      rmdirSync(at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return;
      if (code !== 'ENOENT') throw error;
    }
    if (at === top || relative(top, at).startsWith('..')) return;
  }
}

/** Removes a dataset's Parquet file and the load caches made from it (`<file>.features-*`). */
function removeDatasetFile(dir: string, file: string): void {
  const path = join(dir, file);
  rmSync(path, { force: true });
  const folder = dirname(path);
  const prefix = `${basename(path, '.parquet')}.features-`;
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder))
    if (name.startsWith(prefix)) rmSync(join(folder, name), { force: true });
}

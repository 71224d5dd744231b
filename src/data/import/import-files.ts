import { statSync } from 'node:fs';
import { isTradelabError, TradelabError } from '../../core/index.js';
import type { Bars } from '../bars.js';
import { calendarFor, type CalendarName } from '../calendar.js';
import type { DatasetEntry, DatasetSource } from '../store/catalog.js';
import { formatDatasetKey, type DatasetKey } from '../store/dataset-key.js';
import { checkReplace } from '../store/dataset-origin.js';
import { repairHint, type DatasetStore } from '../store/dataset-store.js';
import { cleanBars, type BadRowPolicy, type CleanReport } from './clean-bars.js';
import {
  parseBarsCsv,
  sniffCsvFormat,
  type CsvFormat,
  type ImportFormat,
  type ParsedRows,
} from './parse-bars-csv.js';
import { parseBarsParquet } from './parquet-rows.js';
import { UTC_OFFSET, zoneOffsetFor } from './parse-timestamp.js';
import { expandInputs, readSource, type SourceFile } from './source-files.js';
import { checkCsvInput } from './text-input.js';

/** Options for {@link importFiles}. */
export interface ImportOptions {
  /** Files, directories or globs. */
  inputs: readonly string[];
  /** Where relative inputs resolve (the working directory, as in a shell). */
  baseDir: string;
  key: DatasetKey;
  /** Default `auto`: sniffed from the content. */
  format?: ImportFormat;
  /** IANA time zone of zone-less timestamps. Default UTC. */
  timeZone?: string;
  /** Use the adjusted close (Yahoo). Default false. */
  adjusted?: boolean;
  /** Default `error`. */
  onBad?: BadRowPolicy;
  /** Default: the dataset's, else 24/7 for Binance and generic files, us-equities for Yahoo. */
  calendar?: CalendarName;
  /** Called after each file is read and parsed: bytes done of all files' bytes, and the file. */
  onProgress?: (bytesDone: number, bytesTotal: number, path: string) => void;
}

/** One input file's part in an import. */
export interface ImportedFile {
  path: string;
  /** Format used, and why (auto-detection's reason). */
  format: CsvFormat | 'parquet';
  reason: string;
  rows: number;
  notes: string[];
  /** Already imported into this dataset (same content): skipped. */
  unchanged: boolean;
}

/** The outcome of an import. */
export interface ImportResult {
  status: 'imported' | 'unchanged';
  entry: DatasetEntry | undefined;
  files: ImportedFile[];
  report: CleanReport | undefined;
  /** Bars added to the dataset by this import. */
  addedRows: number;
  /**
   * Set when the dataset's stored file was missing or damaged and the import rebuilt the dataset
   * from its files (every file it was made of was given again): what was wrong with it.
   */
  rebuilt?: string;
  seconds: number;
}

/** One input file, read and (unless skipped) parsed. */
interface InputFile {
  path: string;
  sha256: string;
  bytes: number;
  parsed: ParsedInput | undefined;
}

interface ParsedInput {
  rows: ParsedRows;
  format: CsvFormat | 'parquet';
  reason: string;
}

/**
 * Imports files into one dataset: reads and parses them, merges them with the dataset's existing
 * bars, validates and cleans per the policy, and writes the result atomically. A failure of any
 * kind leaves the store as it was; files already imported (same SHA-256) are skipped.
 *
 * Reading and parsing, the slow part, happen first and alone; the merge with the stored bars and
 * the write happen under the dataset's lock, against the dataset as it is then, so concurrent
 * imports into one dataset each add their bars (a file another import added meanwhile is skipped).
 * A dataset whose stored file is missing or damaged is rebuilt when every file it was made of is
 * given again; otherwise the import stops, saying which files to give or to `data rm` it.
 */
export async function importFiles(
  store: DatasetStore,
  options: ImportOptions,
): Promise<ImportResult> {
  const started = performance.now();
  const paths = expandInputs(options.inputs, options.baseDir);
  const zone = options.timeZone === undefined ? UTC_OFFSET : checkedZone(options.timeZone);
  const current = store.get(options.key);
  // Refused before the files are read (again under the lock, against the dataset as it is then).
  checkReplace(options.key, current, { sources: [] });
  const known = new Set(current?.sources.map((s) => s.sha256) ?? []);
  const sizes = paths.map((p) => statSync(p).size);
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  const inputs: InputFile[] = [];
  for (const [index, path] of paths.entries()) {
    bytesDone += sizes[index] ?? 0;
    const source = readSource(path);
    // Skipped as the dataset stands now; checked again under the lock.
    const skip = known.has(source.sha256) || inputs.some((i) => i.sha256 === source.sha256);
    inputs.push({
      path,
      sha256: source.sha256,
      bytes: source.sizeBytes,
      parsed: skip ? undefined : await parseSource(path, source, options, zone),
    });
    options.onProgress?.(bytesDone, bytesTotal, path);
  }
  return store.withLock(options.key, async (write) => {
    const entry = store.get(options.key);
    const stored = entry === undefined ? undefined : await storedBars(store, options.key);
    let rebuilt: string | undefined;
    if (entry !== undefined && stored?.problem !== undefined) {
      const given = new Set(inputs.map((i) => i.sha256));
      const absent = entry.sources.filter((s) => !given.has(s.sha256));
      if (absent.length > 0 || entry.derivedFrom !== undefined)
        throw cannotMerge(options.key, entry, stored.problem, absent);
      rebuilt = stored.problem.message;
    }
    // Imported bars never go into a synthetic or resampled dataset: they would mix with its own.
    checkReplace(options.key, entry, { sources: [] });
    const already = new Set(
      rebuilt === undefined ? (entry?.sources.map((s) => s.sha256) ?? []) : [],
    );
    const files: ImportedFile[] = [];
    const parsed: ParsedRows[] = [];
    const sources: DatasetSource[] = [];
    const now = new Date().toISOString();
    let calendarGuess: CalendarName = '24/7';
    for (const input of inputs) {
      if (already.has(input.sha256)) {
        files.push({
          path: input.path,
          format: 'generic',
          reason: 'already imported (same SHA-256)',
          rows: 0,
          notes: [],
          unchanged: true,
        });
        continue;
      }
      already.add(input.sha256);
      // Skipped before the lock, but the dataset is being rebuilt from its files: parse it now.
      const { rows, format, reason } =
        input.parsed ?? (await parseSource(input.path, readSource(input.path), options, zone));
      if (format === 'yahoo') calendarGuess = 'us-equities';
      parsed.push(rows);
      files.push({
        path: input.path,
        format,
        reason,
        rows: rows.timestamps.length,
        notes: rows.notes,
        unchanged: false,
      });
      sources.push({
        path: input.path,
        sha256: input.sha256,
        bytes: input.bytes,
        rows: rows.timestamps.length,
        format,
        importedAt: now,
      });
    }
    if (parsed.length === 0) {
      return {
        status: 'unchanged',
        entry,
        files,
        report: undefined,
        addedRows: 0,
        seconds: (performance.now() - started) / 1000,
      };
    }
    const merging = rebuilt === undefined ? entry : undefined;
    const calendarName = options.calendar ?? entry?.calendar ?? calendarGuess;
    if (
      merging !== undefined &&
      options.calendar !== undefined &&
      options.calendar !== merging.calendar
    ) {
      throw new TradelabError(
        'DATA_MISMATCH',
        `${formatDatasetKey(options.key)} uses the ${merging.calendar} calendar, not ${options.calendar}`,
        {
          hint: `drop --calendar, or remove the dataset first (tradelab data rm ${formatDatasetKey(options.key)})`,
        },
      );
    }
    const adjusted = options.adjusted ?? entry?.adjusted ?? false;
    if (adjusted && parsed.some((rows) => rows.adjClose === undefined)) {
      throw new TradelabError(
        'DATA_INVALID',
        '--adjusted needs an adjusted close column (Yahoo\'s "Adj Close") in every file',
        {
          hint: 'drop --adjusted, or import files that have adjusted closes',
        },
      );
    }
    // Merge with the stored bars as imported (raw), never with their adjusted view.
    const existing = merging === undefined ? undefined : stored?.bars;
    const { bars, report } = cleanBars(parsed, {
      timeframe: options.key.timeframe,
      calendar: calendarFor(calendarName),
      onBad: options.onBad ?? 'error',
      ...(existing === undefined ? {} : { existing }),
    });
    if (bars.timestamps.length === 0) {
      const read = report.rowsRead;
      throw new TradelabError(
        'DATA_INVALID',
        read === 0
          ? `no bars in ${paths.join(', ')}: the files hold a header and nothing else`
          : `no bars left: all ${read} rows were dropped as bad (--on-bad ${report.policy})`,
        {
          hint:
            read === 0
              ? 'check that you exported the data, not just its header'
              : 'look at the first problems with --on-bad error, fix the file, or use --on-bad repair',
        },
      );
    }
    const written = await write(bars, {
      calendar: calendarName,
      gaps: report.gaps,
      adjusted,
      sources: [...(merging?.sources ?? []), ...sources],
    });
    return {
      status: 'imported',
      entry: written,
      files,
      report,
      addedRows: written.rows - (merging?.rows ?? 0),
      ...(rebuilt === undefined ? {} : { rebuilt }),
      seconds: (performance.now() - started) / 1000,
    };
  });
}

/** Reads and parses one input file in the format asked for (or the one its content shows). */
async function parseSource(
  path: string,
  source: SourceFile,
  options: ImportOptions,
  zone: ReturnType<typeof zoneOffsetFor>,
): Promise<ParsedInput> {
  const isParquet =
    source.bytes[0] === 0x50 &&
    source.bytes[1] === 0x41 &&
    source.bytes[2] === 0x52 &&
    source.bytes[3] === 0x31;
  const requested = options.format ?? 'auto';
  if (requested === 'parquet' || (requested === 'auto' && isParquet)) {
    if (!isParquet)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${path} is not a Parquet file (no PAR1 magic bytes)`,
        { hint: 'use --format auto to detect its format' },
      );
    if (source.gzip)
      throw new TradelabError(
        'FORMAT_UNSUPPORTED',
        `${path}: gzip-compressed Parquet is not supported`,
        { hint: 'gunzip it first (Parquet compresses its own pages)' },
      );
    return {
      rows: await parseBarsParquet(path),
      format: 'parquet',
      reason: requested === 'auto' ? 'Parquet magic bytes' : '--format parquet',
    };
  }
  if (isParquet)
    throw new TradelabError('INVALID_ARGUMENT', `${path} is a Parquet file, not ${requested} CSV`, {
      hint: 'use --format auto or --format parquet',
    });
  checkCsvInput(source);
  let format: CsvFormat;
  let reason: string;
  if (requested === 'auto') {
    const sniffed = sniffCsvFormat(source.bytes);
    if (sniffed === undefined) {
      const firstLine = (
        new TextDecoder().decode(source.bytes.subarray(0, 200)).split('\n')[0] ?? ''
      ).replace(/\r$/, '');
      throw new TradelabError(
        'FORMAT_UNSUPPORTED',
        `${path}: cannot tell its format from the first line: ${JSON.stringify(firstLine)}`,
        {
          hint: 'a generic CSV needs a header naming a timestamp/date column and open, high, low, close, volume; or pass --format binance|yahoo|generic',
        },
      );
    }
    format = sniffed.format;
    reason = `auto: ${sniffed.reason}`;
  } else {
    format = requested;
    reason = `--format ${requested}`;
  }
  return { rows: parseBarsCsv(path, source.bytes, format, zone), format, reason };
}

/**
 * The dataset's stored bars as imported (raw), or what is wrong with its file: missing, or damaged
 * (unreadable, or not what the catalog says).
 */
async function storedBars(
  store: DatasetStore,
  key: DatasetKey,
): Promise<{ bars: Bars; problem?: undefined } | { bars?: undefined; problem: TradelabError }> {
  try {
    return { bars: (await store.read(key, { raw: true })).bars };
  } catch (error) {
    if (isTradelabError(error, 'DATA_STORE_INVALID')) return { problem: error };
    throw error;
  }
}

/** The error for a dataset whose file is missing or damaged when not all its files are given. */
function cannotMerge(
  key: DatasetKey,
  entry: DatasetEntry,
  problem: TradelabError,
  absent: readonly DatasetSource[],
): TradelabError {
  const name = formatDatasetKey(key);
  const why =
    entry.derivedFrom !== undefined
      ? `it was made from ${entry.derivedFrom}, not imported`
      : `to rebuild it, give every file it was made of; not given: ${absent
          .slice(0, 5)
          .map((s) => s.path)
          .join(', ')}${absent.length > 5 ? ` and ${absent.length - 5} more` : ''}`;
  return new TradelabError(
    'DATA_STORE_INVALID',
    `cannot import into ${name}: ${problem.message}; ${why}. Nothing was changed`,
    {
      cause: problem,
      hint: repairHint(key, entry),
      details: { ...problem.details, dataset: name },
    },
  );
}

function checkedZone(timeZone: string): ReturnType<typeof zoneOffsetFor> {
  try {
    return zoneOffsetFor(timeZone);
  } catch (cause) {
    throw new TradelabError('INVALID_ARGUMENT', `--tz "${timeZone}" is not a time zone`, {
      hint: 'use an IANA name such as America/New_York, Europe/London or UTC',
      cause,
    });
  }
}

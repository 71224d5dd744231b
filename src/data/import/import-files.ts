import { statSync } from 'node:fs';
import { TradelabError } from '../../core/index.js';
import { calendarFor, type CalendarName } from '../calendar.js';
import type { DatasetEntry, DatasetSource } from '../store/catalog.js';
import { formatDatasetKey, type DatasetKey } from '../store/dataset-key.js';
import type { DatasetStore } from '../store/dataset-store.js';
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
import { expandInputs, readSource } from './source-files.js';
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
  seconds: number;
}

/**
 * Imports files into one dataset: reads and parses them, merges them with the dataset's existing
 * bars, validates and cleans per the policy, and writes the result atomically. A failure of any
 * kind leaves the store as it was; files already imported (same SHA-256) are skipped.
 */
export async function importFiles(
  store: DatasetStore,
  options: ImportOptions,
): Promise<ImportResult> {
  const started = performance.now();
  const paths = expandInputs(options.inputs, options.baseDir);
  const existingEntry = store.get(options.key);
  const known = new Set(existingEntry?.sources.map((s) => s.sha256) ?? []);
  const files: ImportedFile[] = [];
  const parsed: ParsedRows[] = [];
  const sources: DatasetSource[] = [];
  const zone = options.timeZone === undefined ? UTC_OFFSET : checkedZone(options.timeZone);
  const now = new Date().toISOString();
  let calendarGuess: CalendarName = '24/7';
  const sizes = paths.map((p) => statSync(p).size);
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  for (const [index, path] of paths.entries()) {
    bytesDone += sizes[index] ?? 0;
    const source = readSource(path);
    if (known.has(source.sha256)) {
      files.push({
        path,
        format: 'generic',
        reason: 'already imported (same SHA-256)',
        rows: 0,
        notes: [],
        unchanged: true,
      });
      continue;
    }
    known.add(source.sha256);
    const isParquet =
      source.bytes[0] === 0x50 &&
      source.bytes[1] === 0x41 &&
      source.bytes[2] === 0x52 &&
      source.bytes[3] === 0x31;
    const requested = options.format ?? 'auto';
    let rows: ParsedRows;
    let format: CsvFormat | 'parquet';
    let reason: string;
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
      rows = await parseBarsParquet(path);
      format = 'parquet';
      reason = requested === 'auto' ? 'Parquet magic bytes' : '--format parquet';
    } else {
      if (isParquet)
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `${path} is a Parquet file, not ${requested} CSV`,
          { hint: 'use --format auto or --format parquet' },
        );
      checkCsvInput(source);
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
      rows = parseBarsCsv(path, source.bytes, format, zone);
    }
    if (format === 'yahoo') calendarGuess = 'us-equities';
    parsed.push(rows);
    files.push({
      path,
      format,
      reason,
      rows: rows.timestamps.length,
      notes: rows.notes,
      unchanged: false,
    });
    sources.push({
      path,
      sha256: source.sha256,
      bytes: source.sizeBytes,
      rows: rows.timestamps.length,
      format,
      importedAt: now,
    });
    options.onProgress?.(bytesDone, bytesTotal, path);
  }
  if (parsed.length === 0) {
    return {
      status: 'unchanged',
      entry: existingEntry,
      files,
      report: undefined,
      addedRows: 0,
      seconds: (performance.now() - started) / 1000,
    };
  }
  const calendarName = options.calendar ?? existingEntry?.calendar ?? calendarGuess;
  if (
    existingEntry !== undefined &&
    options.calendar !== undefined &&
    options.calendar !== existingEntry.calendar
  ) {
    throw new TradelabError(
      'DATA_MISMATCH',
      `${formatDatasetKey(options.key)} uses the ${existingEntry.calendar} calendar, not ${options.calendar}`,
      {
        hint: `drop --calendar, or remove the dataset first (tradelab data rm ${formatDatasetKey(options.key)})`,
      },
    );
  }
  const adjusted = options.adjusted ?? existingEntry?.adjusted ?? false;
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
  const existing =
    existingEntry === undefined ? undefined : (await store.read(options.key, { raw: true })).bars;
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
  const entry = await store.write(options.key, bars, {
    calendar: calendarName,
    gaps: report.gaps,
    adjusted,
    sources: [...(existingEntry?.sources ?? []), ...sources],
  });
  return {
    status: 'imported',
    entry,
    files,
    report,
    addedRows: entry.rows - (existingEntry?.rows ?? 0),
    seconds: (performance.now() - started) / 1000,
  };
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

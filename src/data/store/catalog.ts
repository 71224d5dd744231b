import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { z } from 'zod';
import { TradelabError, writeFileAtomic, makeDirectory } from '../../core/index.js';
import { CALENDARS, type CalendarName } from '../calendar.js';
import type { GapReport } from '../import/clean-bars.js';
import { TIMEFRAMES, type Timeframe } from '../timeframe.js';
import { withPidLock } from './pid-lock.js';

/** A source file a dataset was imported from. */
export interface DatasetSource {
  path: string;
  sha256: string;
  bytes: number;
  rows: number;
  format: string;
  importedAt: string;
}

/** What the catalog knows about one dataset. */
export interface DatasetEntry {
  symbol: string;
  timeframe: Timeframe;
  calendar: CalendarName;
  rows: number;
  firstMs: number;
  lastMs: number;
  gaps: GapReport;
  /** Parquet file, relative to the store directory. */
  file: string;
  /**
   * The Parquet file's size and CRC-32 (`zlib.crc32`) as written: a read checks them, so damage
   * inside a page is found, not decoded into prices. Absent for files written before tradelab
   * kept them; those are read as they are (their bars are checked all the same) until rewritten.
   */
  fileBytes?: number;
  fileCrc32?: number;
  columns: string[];
  /** Close is the adjusted close (Yahoo `--adjusted`). */
  adjusted: boolean;
  sources: DatasetSource[];
  /** Set for datasets made by `data resample` or `data synth`. */
  derivedFrom?: string;
  createdAt: string;
  updatedAt: string;
}

/** The catalog file's content. */
export interface CatalogFile {
  version: 1;
  datasets: Record<string, DatasetEntry>;
}

/** Name of the catalog file in the store directory. */
export const CATALOG_FILE = 'catalog.json';
const LOCK_FILE = 'catalog.lock';

const HOW_TO_FIX =
  'the catalog was edited by hand or damaged; restore it from a backup, or remove it and import the data again';

const sourceSchema = z.object({
  path: z.string(),
  sha256: z.string(),
  bytes: z.number(),
  rows: z.number(),
  format: z.string(),
  importedAt: z.string(),
});

/** A dataset's `file`: a relative path that stays inside the store (no `..`, not absolute). */
const storeFile = z
  .string()
  .min(1)
  .refine((file) => !isAbsolute(file) && !normalize(file).startsWith('..'), {
    message: 'expected a Parquet file inside the store, such as "BTCUSDT/1m.0123abcd.parquet"',
  });

const entrySchema = z.object({
  symbol: z.string().min(1),
  timeframe: z.enum(TIMEFRAMES),
  calendar: z.enum(CALENDARS),
  // firstMs/lastMs of a dataset without bars were NaN, which JSON writes as null.
  rows: z.number().int().nonnegative(),
  firstMs: z.number().nullable(),
  lastMs: z.number().nullable(),
  gaps: z.object({
    unexpected: z.number(),
    missingBars: z.number(),
    closures: z.number(),
  }),
  file: storeFile,
  fileBytes: z.number().int().nonnegative().optional(),
  fileCrc32: z.number().int().nonnegative().max(0xffffffff).optional(),
  columns: z.array(z.string()),
  adjusted: z.boolean(),
  sources: z.array(sourceSchema),
  derivedFrom: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

/** Reads the catalog; an absent one is empty. */
export function readCatalog(dir: string): CatalogFile {
  const path = join(dir, CATALOG_FILE);
  if (!existsSync(path)) return { version: 1, datasets: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new TradelabError('DATA_STORE_INVALID', `${path} is not valid JSON`, {
      hint: HOW_TO_FIX,
      cause,
    });
  }
  const damaged = (what: string): TradelabError =>
    new TradelabError('DATA_STORE_INVALID', `${path} is not a tradelab catalog: ${what}`, {
      hint: HOW_TO_FIX,
    });
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw damaged('expected a JSON object');
  const catalog = parsed as Partial<CatalogFile>;
  const datasets: unknown = catalog.datasets;
  if (
    catalog.version === 1 &&
    (typeof datasets !== 'object' || datasets === null || Array.isArray(datasets))
  )
    throw damaged('"datasets" is not an object');
  if (catalog.version !== 1 || typeof catalog.datasets !== 'object') {
    throw new TradelabError(
      'DATA_STORE_INVALID',
      `${path} has version ${String(catalog.version)}; this tradelab reads version 1`,
      {
        hint: 'upgrade tradelab, or point --data-dir at another store',
      },
    );
  }
  for (const [name, entry] of Object.entries(datasets as Record<string, unknown>))
    checkEntry(path, name, entry);
  return catalog as CatalogFile;
}

/**
 * Checks one dataset entry's shape, so a catalog edited by hand fails here, naming the field, and
 * not later as a TypeError deep in a command. The entry is returned as it is (nothing stripped or
 * converted), so rewriting the catalog keeps what is there.
 */
function checkEntry(path: string, name: string, entry: unknown): void {
  const result = entrySchema.safeParse(entry);
  let problem: { field: (string | number)[]; what: string } | undefined;
  const issue = result.error?.issues[0];
  if (issue !== undefined) {
    const field = issue.path.filter((p) => typeof p !== 'symbol');
    const value = valueAt(entry, field);
    const expected = issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.message;
    problem = {
      field,
      what: value === undefined ? `is missing (${expected})` : `is ${show(value)}: ${expected}`,
    };
  } else if (
    result.data !== undefined &&
    name !== `${result.data.symbol}:${result.data.timeframe}`
  ) {
    problem = {
      field: [],
      what: `holds ${result.data.symbol}:${result.data.timeframe} (its symbol and timeframe must match its key)`,
    };
  }
  if (problem === undefined) return;
  const where = `datasets[${JSON.stringify(name)}]${problem.field.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}`;
  throw new TradelabError(
    'DATA_STORE_INVALID',
    `${path} is not a valid tradelab catalog: ${where} ${problem.what}`,
    {
      hint: `fix ${where} in ${path} (the catalog was edited by hand or damaged), restore the file from a backup, or delete the ${JSON.stringify(name)} entry and import that dataset again`,
      details: { file: path, field: where },
    },
  );
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Runs `change` on the catalog under an exclusive lock (a lock file holding the owner's pid; a
 * lock whose owner is gone is taken over), then writes it atomically. Held only for the switch:
 * whoever changes a dataset's bars holds that dataset's lock around its whole read, merge and
 * write (see dataset-store.ts), and takes this one inside it, never the other way round.
 */
export async function updateCatalog<T>(
  dir: string,
  change: (catalog: CatalogFile) => Promise<T> | T,
): Promise<T> {
  makeDirectory(dir);
  return withPidLock(
    join(dir, LOCK_FILE),
    { waitMs: 30_000, what: `the data store ${dir}` },
    async () => {
      const catalog = readCatalog(dir);
      const result = await change(catalog);
      writeFileAtomic(join(dir, CATALOG_FILE), `${JSON.stringify(catalog, null, 2)}\n`);
      return result;
    },
  );
}

import { TradelabError } from '../../core/index.js';
import type { DatasetEntry } from './catalog.js';
import { formatDatasetKey, parseDatasetKey, type DatasetKey } from './dataset-key.js';

/*
 * A dataset's bars come from somewhere the catalog records: files imported (their paths and
 * SHA-256 in `sources`), `data synth` (its options in `derivedFrom`), or `data resample` of another
 * dataset (that dataset's key in `derivedFrom`). A write that would put bars of another origin
 * under the same name — synthetic bars over an imported dataset, say — silently lost the imported
 * one and the record of its files. Writes of the same origin (an import into an import, synth over
 * synth, a resample of the same parent again) go on as ever; another origin needs `force`.
 */

/** Where a dataset's bars came from. */
export type DatasetOrigin =
  | { kind: 'import'; files: readonly string[] }
  | { kind: 'synth'; recipe: string }
  | { kind: 'resample'; from: string }
  /** Made by something else that names itself in `derivedFrom` (a benchmark's market). */
  | { kind: 'other'; what: string };

/** The origin the catalog records for an entry (or for a write's `sources` and `derivedFrom`). */
export function datasetOrigin(entry: Pick<DatasetEntry, 'sources' | 'derivedFrom'>): DatasetOrigin {
  const derived = entry.derivedFrom;
  if (derived === undefined) return { kind: 'import', files: entry.sources.map((s) => s.path) };
  if (/^synth\b/.test(derived)) return { kind: 'synth', recipe: derived };
  if (/^[^\s:]+:[^\s:]+$/.test(derived)) {
    try {
      return { kind: 'resample', from: formatDatasetKey(parseDatasetKey(derived)) };
    } catch (error) {
      // Not a dataset key after all: something else named itself.
      if (!(error instanceof TradelabError)) throw error;
    }
  }
  return { kind: 'other', what: derived };
}

/** Whether bars of `incoming` origin may replace a dataset of `existing` origin without force. */
export function sameOrigin(existing: DatasetOrigin, incoming: DatasetOrigin): boolean {
  if (existing.kind !== incoming.kind) return false;
  if (existing.kind === 'resample' && incoming.kind === 'resample')
    return existing.from === incoming.from;
  if (existing.kind === 'other' && incoming.kind === 'other')
    return existing.what === incoming.what;
  return true;
}

/**
 * Throws DATASET_EXISTS when `existing` is of another origin than the bars about to be written
 * and `force` is not set, saying what would be replaced (its origin, bars and range) and how to
 * go on. An import never replaces (it merges), so its hint names `data rm`, not `--force`.
 */
export function checkReplace(
  key: DatasetKey,
  existing: DatasetEntry | undefined,
  incoming: Pick<DatasetEntry, 'sources' | 'derivedFrom'>,
  force = false,
): void {
  if (existing === undefined || force) return;
  const was = datasetOrigin(existing);
  const next = datasetOrigin(incoming);
  if (sameOrigin(was, next)) return;
  const name = formatDatasetKey(key);
  const rm = `\`tradelab data rm ${name}\``;
  const merging = next.kind === 'import';
  throw new TradelabError(
    'DATASET_EXISTS',
    `${name} already exists: ${describeOrigin(was)}, ${describeBars(existing)}; ${merging ? `importing files into it would mix their bars with these` : `writing ${describeOrigin(next, true)} would replace it`}`,
    {
      hint: merging
        ? `remove it first with ${rm}, or import under another --symbol`
        : `pass --force to replace it${was.kind === 'import' ? ' (the record of its files goes too)' : ''}, or remove it first with ${rm}`,
      details: { dataset: name, existing: was, incoming: next },
    },
  );
}

/** "imported from 2 files (a.csv, b.csv)", "made by synth --seed 1 …", "resampled from BTC:1m". */
function describeOrigin(origin: DatasetOrigin, incoming = false): string {
  switch (origin.kind) {
    case 'import': {
      const shown = origin.files.slice(0, 3).join(', ');
      const more = origin.files.length > 3 ? `, … ${origin.files.length - 3} more` : '';
      return incoming
        ? 'imported bars'
        : `imported from ${origin.files.length} file${origin.files.length === 1 ? '' : 's'}${origin.files.length === 0 ? '' : ` (${shown}${more})`}`;
    }
    case 'synth':
      return incoming ? `synthetic bars (${origin.recipe})` : `synthetic (${origin.recipe})`;
    case 'resample':
      return incoming ? `bars resampled from ${origin.from}` : `resampled from ${origin.from}`;
    case 'other':
      return incoming ? `bars made by ${origin.what}` : `made by ${origin.what}`;
  }
}

/** "504 bars from 2020-01-02 to 2021-12-31". */
function describeBars(entry: DatasetEntry): string {
  const day = (ms: number): string =>
    Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().slice(0, 10) : '?';
  return entry.rows === 0
    ? 'no bars'
    : `${entry.rows} bar${entry.rows === 1 ? '' : 's'} from ${day(entry.firstMs)} to ${day(entry.lastMs)}`;
}

import { join } from 'node:path';
import {
  formatDatasetKey,
  type DatasetEntry,
  type DatasetFileStatus,
  repairHint,
} from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, shortTime } from '../format.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';

const STATUS_TEXT: Record<DatasetFileStatus, string> = {
  ok: 'ok',
  missing: 'file missing',
  damaged: 'file damaged',
};

/** `tradelab data list`: every dataset in the store, and which ones' files are missing or damaged. */
export function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const store = openStore(context);
  const entries = store.list();
  const status = new Map<DatasetEntry, DatasetFileStatus>(
    entries.map((e) => [e, store.fileStatus(e)]),
  );
  if (out.json) {
    for (const e of entries)
      out.record({ dataset: formatDatasetKey(e), ...e, status: status.get(e) });
    return Promise.resolve();
  }
  if (entries.length === 0) {
    out.line(`No datasets in ${store.dir}.`);
    out.line(
      'Import one (`tradelab data import FILE --symbol SYM --timeframe TF`) or make one (`tradelab data synth`).',
    );
    return Promise.resolve();
  }
  const broken = entries.filter((e) => status.get(e) !== 'ok');
  for (const line of renderTable<DatasetEntry>(entries, [
    { header: 'DATASET', value: (e) => formatDatasetKey(e) },
    { header: 'BARS', value: (e) => count(e.rows), right: true },
    { header: 'FIRST', value: (e) => shortTime(e.firstMs, e.timeframe !== '1d') },
    { header: 'LAST', value: (e) => shortTime(e.lastMs, e.timeframe !== '1d') },
    { header: 'CALENDAR', value: (e) => e.calendar },
    {
      header: 'MISSING',
      value: (e) =>
        e.gaps.missingBars === 0
          ? '-'
          : `${count(e.gaps.missingBars)} in ${count(e.gaps.unexpected)} gaps`,
      right: true,
    },
    {
      header: 'FROM',
      value: (e) => e.derivedFrom ?? `${e.sources.length} file${e.sources.length === 1 ? '' : 's'}`,
    },
    // Only when some dataset's file is missing or damaged: a healthy store lists as it always did.
    ...(broken.length === 0
      ? []
      : [{ header: 'STATUS', value: (e: DatasetEntry) => STATUS_TEXT[status.get(e) ?? 'ok'] }]),
  ]))
    out.line(line);
  out.line();
  for (const e of broken) {
    const name = formatDatasetKey(e);
    out.line(
      `${name}: ${join(store.dir, e.file)} is ${status.get(e) === 'missing' ? 'missing' : 'damaged (not a whole Parquet file)'}; ${repairHint(e, e)}.`,
    );
  }
  if (broken.length > 0) out.line();
  out.line(`Store: ${store.dir}`);
  return Promise.resolve();
}

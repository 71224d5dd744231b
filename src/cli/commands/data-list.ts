import { formatDatasetKey, type DatasetEntry } from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, shortTime } from '../format.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';

/** `tradelab data list`: every dataset in the store. */
export function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const store = openStore(context);
  const entries = store.list();
  if (out.json) {
    for (const e of entries) out.record({ dataset: formatDatasetKey(e), ...e });
    return Promise.resolve();
  }
  if (entries.length === 0) {
    out.line(`No datasets in ${store.dir}.`);
    out.line(
      'Import one (`tradelab data import FILE --symbol SYM --timeframe TF`) or make one (`tradelab data synth`).',
    );
    return Promise.resolve();
  }
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
  ]))
    out.line(line);
  out.line();
  out.line(`Store: ${store.dir}`);
  return Promise.resolve();
}

import { exportBars, formatDatasetKey, parseDatasetKey } from '../../data/index.js';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { count } from '../format.js';
import { openStore } from '../open-store.js';

/** `tradelab data export SYM:TF --out FILE`: CSV or Parquet, by the file name. */
export async function run(context: CommandContext): Promise<void> {
  const key = parseDatasetKey(context.positionals[0] ?? '');
  const target = context.options.out;
  if (typeof target !== 'string' || target === '') {
    throw new TradelabError('USAGE', '--out FILE is required', {
      hint: 'e.g. --out btc_1m.csv (or .csv.gz, .parquet)',
    });
  }
  const path = projectPath(context, target);
  const { entry, bars } = await openStore(context).read(key, { raw: context.options.raw === true });
  const format = await exportBars(path, bars, {
    'tradelab.dataset': formatDatasetKey(key),
    'tradelab.calendar': entry.calendar,
  });
  context.out.record({
    type: 'export',
    dataset: formatDatasetKey(key),
    path,
    format,
    rows: entry.rows,
  });
  context.out.line(
    `Wrote ${count(entry.rows)} bars of ${formatDatasetKey(key)} to ${path} (${format}).`,
  );
}

import { formatDatasetKey, parseDatasetKey } from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { count } from '../format.js';
import { openStore } from '../open-store.js';

/** `tradelab data rm SYM:TF`: removes a dataset and its file. */
export async function run(context: CommandContext): Promise<void> {
  const key = parseDatasetKey(context.positionals[0] ?? '');
  const entry = await openStore(context).remove(key);
  context.out.record({ type: 'removed', dataset: formatDatasetKey(key), rows: entry.rows });
  context.out.line(`Removed ${formatDatasetKey(key)} (${count(entry.rows)} bars).`);
}

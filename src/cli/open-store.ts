import { openDatasetStore, type DatasetStore } from '../data/index.js';
import type { CommandContext } from './command-spec.js';

/** The project's dataset store (`paths.data`, `--data-dir`, `TRADELAB_DATA_DIR`). */
export function openStore(context: CommandContext): DatasetStore {
  return openDatasetStore(context.project().config.settings.dataDir);
}

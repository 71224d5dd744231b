import { openProjectStorage } from '../app/index.js';
import type { StudyStorage } from '../storage/index.js';
import type { CommandContext } from './command-spec.js';

/** The project's study storage URL (`--storage`, `TRADELAB_STORAGE`, `paths.storage`). */
export function storageUrl(context: CommandContext): string {
  return context.project().config.settings.storage;
}

/**
 * Opens a storage URL given on the command line (`study export --to`) as the `--storage` setting
 * is: a relative `sqlite:` path is relative to the project root, and made absolute, so messages
 * name the file wherever the command ran.
 */
export function openStorageAt(
  context: CommandContext,
  url: string,
  access: { readOnly?: boolean } = {},
): Promise<StudyStorage> {
  return openProjectStorage(context.project(), url, access);
}

/**
 * Runs `use` with the project's study storage open, and closes it afterwards, also when `use`
 * throws (a SQLite file left open keeps its WAL; a PostgreSQL pool keeps the process alive).
 * `readOnly` for commands that only read: a read-only SQLite file or directory can be read then.
 */
export async function withStudyStorage<T>(
  context: CommandContext,
  use: (storage: StudyStorage) => Promise<T>,
  access: { readOnly?: boolean } = {},
): Promise<T> {
  const storage = await openStorageAt(context, storageUrl(context), access);
  try {
    return await use(storage);
  } finally {
    await storage.close();
  }
}

/**
 * {@link withStudyStorage} for commands that only read (`study list`, `show`, `trials`…): a SQLite
 * file is opened read-only, so a read-only file in a read-only directory can be read, and a
 * missing one is not created.
 */
export function readStudyStorage<T>(
  context: CommandContext,
  use: (storage: StudyStorage) => Promise<T>,
): Promise<T> {
  return withStudyStorage(context, use, { readOnly: true });
}

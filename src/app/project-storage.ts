import { isAbsolute, resolve } from 'node:path';
import { openStorage, type StudyStorage } from '../storage/index.js';
import type { Project } from './open-project.js';

/*
 * A project's study storage, opened one way for the CLI, the service and campaign files: a
 * relative `sqlite:` path is relative to the project root and made absolute, so messages name the
 * file wherever the command ran, and model artifacts go to the project's artifact folder.
 */

/**
 * Opens storage `url` (default: the project's `--storage` / `TRADELAB_STORAGE` / `paths.storage`);
 * `readOnly` for readers, so a read-only SQLite file or directory can be read.
 */
export function openProjectStorage(
  project: Project,
  url: string = project.config.settings.storage,
  access: { readOnly?: boolean } = {},
): Promise<StudyStorage> {
  const { projectRoot: root, settings } = project.config;
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
  const absolute =
    path === undefined ||
    path === '' ||
    path === ':memory:' ||
    path.startsWith('//') ||
    isAbsolute(path)
      ? url
      : `sqlite:${resolve(root, path)}`;
  return openStorage(absolute, {
    baseDir: root,
    artifactDir: settings.artifactDir,
    ...(access.readOnly === true ? { readOnly: true } : {}),
  });
}

import { resolve } from 'node:path';
import type { CommandContext } from './command-spec.js';

/** A path the user gave, resolved against the project root (absolute paths stay as they are). */
export function projectPath(context: CommandContext, path: string): string {
  return resolve(context.project().config.projectRoot, path);
}

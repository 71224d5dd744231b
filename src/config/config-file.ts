import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { TradelabError } from '../core/index.js';

let yamlModule: typeof Yaml | undefined;

/**
 * The yaml package, loaded by the first YAML file read: most commands read none, and it is some 70
 * modules that every CLI process paid for at start. require, not import: an ES import of this
 * CommonJS package would also make Node parse it for its export names (see compute/tfjs.ts).
 */
function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yamlModule;
}

/** Config file names looked for in each directory, in this order. */
export const CONFIG_FILE_NAMES = [
  'tradelab.config.yaml',
  'tradelab.config.yml',
  'tradelab.config.json',
] as const;

/** The file extensions {@link readLocatedFile} reads: YAML and JSON (config, study and campaign files). */
export const LOCATED_FILE_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

/** A parsed YAML or JSON file that can tell where each value was written. */
export interface LocatedFile {
  /** Absolute path. */
  path: string;
  /** The parsed content. */
  data: unknown;
  /**
   * `path:line:column` of the value at a key path (of the key itself with `at: 'key'`), or of the
   * nearest enclosing value that exists.
   */
  locate(keyPath: readonly PropertyKey[], at?: 'value' | 'key'): string;
}

/**
 * Finds the project's config file by walking up from `startDir`. Two config files in one directory
 * are an error: which one wins would be a guess.
 */
export function findConfigFile(startDir: string): string | undefined {
  let dir = resolve(startDir);
  for (;;) {
    const found = CONFIG_FILE_NAMES.map((name) => join(dir, name)).filter((p) => existsSync(p));
    if (found.length > 1) {
      throw new TradelabError('CONFIG_INVALID', `two config files in ${dir}: ${found.join(', ')}`, {
        hint: 'keep one of them (YAML and JSON say the same thing)',
      });
    }
    if (found[0] !== undefined) return found[0];
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Reads a YAML (`.yaml`/`.yml`) or JSON (`.json`) file, keeping positions for error messages. */
export function readLocatedFile(path: string, what = 'config file'): LocatedFile {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (cause) {
    throw new TradelabError('CONFIG_NOT_FOUND', `cannot read ${what} ${absolute}`, {
      hint: 'check the path (relative paths are relative to the project root)',
      cause,
    });
  }
  if (absolute.endsWith('.json')) {
    try {
      JSON.parse(text);
    } catch (cause) {
      // V8 quotes the text around the error ('Unexpected token 's', ..."{"a": s3cret-"... is not
      // valid JSON'): left out, as a file given in the wrong place may hold secrets.
      const message = (cause instanceof Error ? cause.message : String(cause)).replace(
        /, (\.\.\.)?".*$/s,
        '',
      );
      // V8 reports a character offset ("at position 23"); people read lines.
      const offset = /at position (\d+)/.exec(message)?.[1];
      const where = offset === undefined ? '' : `:${lineAndColumn(text, Number(offset))}`;
      throw new TradelabError('CONFIG_PARSE', `${absolute}${where}: not valid JSON: ${message}`, {
        hint: 'fix the syntax, or write the file as YAML (tradelab.config.yaml)',
        cause,
      });
    }
  }
  const { isMap, isNode, isScalar, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const at = lineCounter.linePos(firstError.pos[0]);
    throw new TradelabError(
      'CONFIG_PARSE',
      `${absolute}:${at.line}:${at.col}: not valid YAML: ${firstError.message.split('\n')[0] ?? ''}`,
      { hint: 'fix the syntax at that line', cause: firstError },
    );
  }
  let data: unknown;
  try {
    // Aliases are expanded here, so a file of nested aliases (a "billion laughs") fails here, not
    // in the parse above; yaml stops it at its alias limit.
    data = doc.toJS() ?? {};
  } catch (cause) {
    throw new TradelabError(
      'CONFIG_PARSE',
      `${absolute}: not valid YAML: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        hint: 'use fewer aliases (*name): each may expand to a copy of its anchor (&name), and aliases of aliases multiply',
        cause,
      },
    );
  }
  const keys = (path: readonly PropertyKey[]): unknown[] =>
    path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  const locate = (keyPath: readonly PropertyKey[], at: 'value' | 'key' = 'value'): string => {
    if (at === 'key' && keyPath.length > 0) {
      const parent: unknown = doc.getIn(keys(keyPath.slice(0, -1)), true);
      const last = keyPath[keyPath.length - 1];
      const pair = isMap(parent)
        ? parent.items.find((item) => isScalar(item.key) && item.key.value === last)
        : undefined;
      if (pair !== undefined && isNode(pair.key) && pair.key.range) {
        const pos = lineCounter.linePos(pair.key.range[0]);
        return `${absolute}:${pos.line}:${pos.col}`;
      }
    }
    // Walk down as far as the path exists, so a missing key points at its parent.
    for (let depth = keyPath.length; depth >= 0; depth--) {
      const node: unknown = doc.getIn(keys(keyPath.slice(0, depth)), true);
      if (isNode(node) && node.range) {
        const at = lineCounter.linePos(node.range[0]);
        return `${absolute}:${at.line}:${at.col}`;
      }
    }
    return absolute;
  };
  return { path: absolute, data, locate };
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${(before[before.length - 1]?.length ?? 0) + 1}`;
}

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TradelabError } from '../../core/index.js';

/** A data file as read from disk: its bytes (decompressed) and the hash of what is on disk. */
export interface SourceFile {
  path: string;
  /** The file's content, gunzipped when it was gzip-compressed. */
  bytes: Uint8Array;
  /** SHA-256 of the file as stored (so re-importing the same file is recognised). */
  sha256: string;
  sizeBytes: number;
  gzip: boolean;
}

const DATA_FILE = /\.(csv|txt|tsv|parquet)(\.gz)?$/i;

/**
 * Expands the FILE arguments of `data import`: a file, a directory (its data files, sorted), or a
 * glob (`*`, `?`, `**`). Paths resolve against `baseDir`. Errors name what matched nothing.
 */
export function expandInputs(inputs: readonly string[], baseDir: string): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    const path = isAbsolute(input) ? input : resolve(baseDir, input);
    if (/[*?[]/.test(input)) {
      const matches = glob(path);
      if (matches.length === 0) {
        throw new TradelabError('FILE_NOT_FOUND', `no file matches ${input}`, {
          hint: 'check the pattern; quote it so the shell does not expand it first',
        });
      }
      files.push(...matches);
      continue;
    }
    if (!existsSync(path)) {
      throw new TradelabError('FILE_NOT_FOUND', `no such file or directory: ${path}`, {
        hint: isAbsolute(input)
          ? 'check the path'
          : `check the path: relative paths start from the working directory, ${baseDir}`,
      });
    }
    if (statSync(path).isDirectory()) {
      const inside = readdirSync(path)
        .filter((name) => DATA_FILE.test(name))
        .sort()
        .map((name) => join(path, name));
      if (inside.length === 0) {
        throw new TradelabError(
          'FILE_NOT_FOUND',
          `${path} holds no .csv, .csv.gz or .parquet files`,
          { hint: 'point at the files, or a folder that holds them' },
        );
      }
      files.push(...inside);
    } else files.push(path);
  }
  const unique = [...new Set(files)];
  for (const file of unique) checkRegularFile(file);
  return unique;
}

/**
 * Refuses anything but a regular file (symlinks followed): a device such as /dev/zero or a FIFO
 * never ends, so reading it whole would hang the import.
 */
function checkRegularFile(path: string): void {
  const stats = statSync(path);
  if (stats.isFile()) return;
  const kind = stats.isFIFO()
    ? 'a named pipe (FIFO)'
    : stats.isCharacterDevice()
      ? 'a character device'
      : stats.isBlockDevice()
        ? 'a block device'
        : stats.isSocket()
          ? 'a socket'
          : stats.isDirectory()
            ? 'a directory'
            : 'not a regular file';
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `${path} is ${kind}, not a regular file: an import reads whole files, and this one may never end`,
    {
      hint: 'save the data to a file first (e.g. `your-command > bars.csv`), then import that file',
      details: { file: path },
    },
  );
}

/** Files matching a glob pattern (absolute), sorted. */
function glob(pattern: string): string[] {
  const parts = pattern.split(sep);
  const firstGlob = parts.findIndex((p) => /[*?[]/.test(p));
  const root = parts.slice(0, firstGlob).join(sep) || sep;
  const regex = new RegExp(
    `^${parts
      .map((part) =>
        part === '**'
          ? '(?:.*)'
          : part
              .replace(/[.+^${}()|\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
      )
      .join('/')
      .replace(/\/\(\?:\.\*\)\//g, '(?:/.*)?/')}$`,
  );
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 32 || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, depth + 1);
      else if (regex.test(path)) out.push(path);
    }
  };
  walk(root, 0);
  return out.sort();
}

/** Reads a file, gunzipping it when it starts with the gzip magic bytes. */
export function readSource(path: string): SourceFile {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (cause) {
    throw new TradelabError('FILE_ACCESS', `cannot read ${path}`, {
      hint: 'check the path and permissions',
      cause,
    });
  }
  const sha256 = createHash('sha256').update(raw).digest('hex');
  const gzip = raw[0] === 0x1f && raw[1] === 0x8b;
  let bytes: Uint8Array = raw;
  if (gzip) {
    try {
      bytes = gunzipSync(raw);
    } catch (cause) {
      throw new TradelabError(
        'DATA_INVALID',
        `${path} is not a valid gzip file: ${cause instanceof Error ? cause.message : String(cause)}`,
        {
          hint: 'the download may be truncated; fetch it again',
          cause,
        },
      );
    }
  }
  return { path, bytes, sha256, sizeBytes: raw.length, gzip };
}

/** A short name for messages: the file name with its parent directory. */
export function shortPath(path: string): string {
  return join(basename(dirname(path)), basename(path));
}

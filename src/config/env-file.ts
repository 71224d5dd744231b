import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TradelabError } from '../core/index.js';

/*
 * `.env` is parsed here rather than by Node's `util.parseEnv`, which reads a line without `=` as
 * the start of a value that swallows the next line: `GPU_PROFILE` alone on one line silently hid
 * `TRADELAB_SAFETY_FACTOR=0.7` on the next. Here every line is a setting, a comment, blank, or an
 * error naming the file and line. The syntax is dotenv's: `[export] NAME=value`, values bare
 * (a ` #` starts a comment), 'single-quoted' (literal) or "double-quoted" (\n, \t, \", \\ escapes;
 * may span lines).
 */

/** Variables read from a `.env` file, with the line each was set on. */
export interface EnvFile {
  path: string;
  values: Record<string, string>;
  /** 1-based line of a variable's last assignment. */
  lineOf(name: string): number | undefined;
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;

/**
 * Reads `.env` in `dir`, if there is one.
 * @throws TradelabError CONFIG_PARSE naming the file and line of a line that is not a setting.
 */
export function readEnvFile(dir: string): EnvFile | undefined {
  const path = join(dir, '.env');
  if (!existsSync(path)) return undefined;
  return parseEnvFile(path, readFileSync(path, 'utf8'));
}

/** Parses the text of a `.env` file (see the top of this file for the syntax). */
export function parseEnvFile(path: string, text: string): EnvFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const values: Record<string, string> = {};
  const lineOfName = new Map<string, number>();
  const fail = (line: number, message: string, hint: string): TradelabError =>
    new TradelabError('CONFIG_PARSE', `${path}:${line}: ${message}`, {
      hint,
      details: { file: path, line },
    });
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(raw);
    if (match === null)
      throw fail(
        i + 1,
        `${JSON.stringify(trimmed.slice(0, 60))} is not a setting`,
        'write NAME=value (a line starting with # is a comment)',
      );
    const name = match[1] ?? '';
    const rest = match[2] ?? '';
    const start = i + 1;
    let value: string;
    const quote = rest[0];
    if (quote === "'" || quote === '"') {
      // The value runs to the matching quote, over following lines for a double quote.
      let body = rest.slice(1);
      let end = closingQuote(body, quote);
      while (end < 0 && quote === '"' && i + 1 < lines.length) {
        body += `\n${lines[++i] ?? ''}`;
        end = closingQuote(body, quote);
      }
      if (end < 0)
        throw fail(start, `${name}: the value's ${quote} is never closed`, `end it with ${quote}`);
      const after = body.slice(end + 1).trim();
      if (after !== '' && !after.startsWith('#'))
        throw fail(
          i + 1,
          `${name}: ${JSON.stringify(after)} after the closing quote`,
          'put a comment after # or nothing after the closing quote',
        );
      const inner = body.slice(0, end);
      value = quote === '"' ? unescape(inner) : inner;
    } else {
      value = rest.replace(/\s+#.*$/, '').trim();
    }
    values[name] = value;
    lineOfName.set(name, start);
  }
  return { path, values, lineOf: (name) => lineOfName.get(name) };
}

/** Index of the first unescaped `quote` in `text`, or −1. */
function closingQuote(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === quote) return i;
  }
  return -1;
}

/** A double-quoted value's escapes. */
function unescape(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) =>
    c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c,
  );
}

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, TradelabError, type ErrorCode } from './tradelab-error.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'src');

/** Every non-test TypeScript file under src/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The text of the first argument of the call whose `(` ends at `open`. */
function firstArgument(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i] ?? '';
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) return text.slice(open, i);
      depth--;
    } else if (c === ',' && depth === 0) return text.slice(open, i);
  }
  return text.slice(open);
}

/** Each code literal a source uses, with where: `new TradelabError('CODE'` (any arm of a `?:`) and `isTradelabError(x, 'CODE')`. */
function usedCodes(): { code: string; at: string }[] {
  const used: { code: string; at: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const at = (index: number): string =>
      `${relative(ROOT, file)}:${text.slice(0, index).split('\n').length}`;
    for (const match of text.matchAll(/new TradelabError\(\s*/g)) {
      const argument = firstArgument(text, match.index + match[0].length);
      for (const literal of argument.matchAll(/'([A-Za-z_]+)'/g))
        used.push({ code: literal[1] ?? '', at: at(match.index) });
    }
    for (const match of text.matchAll(/isTradelabError\([^,()]+,\s*'([A-Za-z_]+)'\s*\)/g))
      used.push({ code: match[1] ?? '', at: at(match.index) });
  }
  return used;
}

/** The rows of the code table in docs/errors.md: code, category, exit code. */
function documentedCodes(): Map<string, { category: string; exit: string }> {
  const text = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, { category: string; exit: string }>();
  for (const match of text.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\w+)\s*\|\s*(\d)\s*\|/gm))
    rows.set(match[1] ?? '', { category: match[2] ?? '', exit: match[3] ?? '' });
  return rows;
}

describe('error codes', () => {
  const used = usedCodes();
  const documented = documentedCodes();

  it('finds the codes of the sources (the scan itself works)', () => {
    expect(used.length).toBeGreaterThan(250);
    expect(used.map((u) => u.code)).toContain('STUDY_NOT_FOUND');
  });

  it('uses only codes in ERROR_CODES', () => {
    const unknown = used.filter((u) => !(u.code in ERROR_CODES)).map((u) => `${u.at} ${u.code}`);
    expect(unknown).toEqual([]);
  });

  it('documents every code in ERROR_CODES in docs/errors.md, with its category and exit code', () => {
    for (const [code, category] of Object.entries(ERROR_CODES)) {
      const error = new TradelabError(code as ErrorCode, 'x');
      expect(documented.get(code), code).toEqual({ category, exit: String(error.exitCode) });
    }
  });

  it('documents no code that does not exist', () => {
    expect([...documented.keys()].filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });

  it('has no code that nothing raises', () => {
    const raised = new Set(used.map((u) => u.code));
    expect(Object.keys(ERROR_CODES).filter((code) => !raised.has(code))).toEqual([]);
  });

  it('exits 2 for usage and configuration errors, 1 for runtime failures', () => {
    expect(new TradelabError('USAGE', 'x').exitCode).toBe(2);
    expect(new TradelabError('CONFIG_INVALID', 'x').exitCode).toBe(2);
    expect(new TradelabError('DATA_MISMATCH', 'x').exitCode).toBe(1);
    expect(new TradelabError('BACKEND_UNAVAILABLE', 'x').exitCode).toBe(1);
  });
});

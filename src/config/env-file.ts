import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** Variables read from a `.env` file, with the line each was set on. */
export interface EnvFile {
  path: string;
  values: Record<string, string>;
  /** 1-based line of a variable's last assignment. */
  lineOf(name: string): number | undefined;
}

/** Reads `.env` in `dir`, if there is one. Syntax is Node's (`util.parseEnv`), as dotenv's. */
export function readEnvFile(dir: string): EnvFile | undefined {
  const path = join(dir, '.env');
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const values = parseEnv(text) as Record<string, string>;
  const lines = text.split(/\r?\n/);
  return {
    path,
    values,
    lineOf(name) {
      const pattern = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`);
      for (let i = lines.length - 1; i >= 0; i--) if (pattern.test(lines[i] ?? '')) return i + 1;
      return undefined;
    },
  };
}

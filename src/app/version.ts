import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** tradelab's version, from its package.json (read once). */
export function tradelabVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    cached = pkg.version;
  }
  return cached;
}

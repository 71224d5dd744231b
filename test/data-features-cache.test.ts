import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli, tempDir, type CliResult } from './support/run-cli.js';
import { minuteCsv, T0 } from './support/minute-csv.js';

const csv = (start: number, n: number, base = 100): string =>
  minuteCsv(start, n, { base, cycle: 89 });

const cli = (dir: string, ...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir });

describe('data features: the load cache cannot be written', () => {
  it('computes the features, warns once and goes on', { timeout: 300_000 }, async () => {
    const dir = tempDir('tradelab-feature-cache-');
    const storeDir = join(dir, '.tradelab', 'data');
    for (const [symbol, base] of [
      ['BTC', 100],
      ['ETH', 50],
    ] as const) {
      const file = join(dir, `${symbol}.csv`);
      writeFileSync(file, csv(T0, 600, base));
      const imported = await cli(
        dir,
        'data',
        'import',
        file,
        '--symbol',
        symbol,
        '--timeframe',
        '1m',
      );
      expect(imported.code).toBe(0);
    }
    // Learn the cache files' names from a first run, then put a folder in the way of each.
    const first = await cli(dir, 'data', 'features', 'BTC,ETH:1m', '--json');
    expect(first.code).toBe(0);
    const caches = ['BTC', 'ETH'].flatMap((symbol) =>
      readdirSync(join(storeDir, symbol))
        .filter((n) => n.includes('.features-'))
        .map((n) => join(storeDir, symbol, n)),
    );
    expect(caches).toHaveLength(2);
    for (const cache of caches) {
      rmSync(cache);
      mkdirSync(join(cache, 'in-the-way'), { recursive: true });
    }
    const result = await cli(dir, 'data', 'features', 'BTC,ETH:1m', '--json');
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toEqual(jsonLines(first.stdout).map(withoutSeconds));
    const warnings = result.stderr.split('\n').filter((line) => line.includes('load cache'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(caches[0]);
  });
});

function withoutSeconds(record: Record<string, unknown>): Record<string, unknown> {
  return { ...record, seconds: expect.any(Number) as unknown };
}

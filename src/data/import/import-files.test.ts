import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/run-cli.js';
import { openDatasetStore } from '../store/dataset-store.js';
import { importFiles } from './import-files.js';
import { minuteCsv, MINUTE_MS, T0 } from '../../../test/support/minute-csv.js';

const KEY = { symbol: 'BTC', timeframe: '1m' } as const;

const csv = (start: number, n: number): string => minuteCsv(start, n);

describe('importFiles: concurrent imports into one dataset', () => {
  it('keeps every file when imports overlap (each store handle as if another process)', async () => {
    const dir = tempDir('tradelab-import-files-');
    const rounds = 20;
    const perRound = 3;
    const rows = 500;
    const paths: string[] = [];
    for (let r = 0; r < rounds; r++) {
      const batch = Array.from({ length: perRound }, (_, f) => {
        const k = r * perRound + f;
        const path = join(dir, `part-${String(k).padStart(2, '0')}.csv`);
        writeFileSync(path, csv(T0 + k * rows * MINUTE_MS, rows));
        return path;
      });
      await Promise.all(
        batch.map((path) =>
          importFiles(openDatasetStore(join(dir, 'data')), {
            inputs: [path],
            baseDir: dir,
            key: KEY,
          }),
        ),
      );
      paths.push(...batch);
    }
    const store = openDatasetStore(join(dir, 'data'));
    const entry = store.require(KEY);
    expect(entry.sources.map((s) => s.path).sort()).toEqual(paths);
    const { bars } = await store.read(KEY);
    expect(bars.timestamps.length).toBe(paths.length * rows);
    expect(bars.timestamps.every((t, i) => t === T0 + i * MINUTE_MS)).toBe(true);
  });

  it('skips a file another import added meanwhile: it is imported once', async () => {
    const dir = tempDir('tradelab-import-files-');
    const path = join(dir, 'a.csv');
    writeFileSync(path, csv(T0, 300));
    const results = await Promise.all(
      [0, 1, 2].map(() =>
        importFiles(openDatasetStore(join(dir, 'data')), {
          inputs: [path],
          baseDir: dir,
          key: KEY,
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['imported', 'unchanged', 'unchanged']);
    const entry = openDatasetStore(join(dir, 'data')).require(KEY);
    expect(entry.sources.map((s) => s.path)).toEqual([path]);
    expect(entry.rows).toBe(300);
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, T0, walkCsv } from './support/minute-csv.js';
import { jsonLines, runCli, tempDir } from './support/run-cli.js';
import { mountTmpfs, unmountTmpfs } from './support/tmpfs.js';

/*
 * A full disk for real: a 256 KB tmpfs mounted for this file, the store on it, an import bigger
 * than the room left. Mounting needs root (CI runs as root); elsewhere the file is skipped, saying
 * why. What must hold: FILE_ACCESS naming the store and the disk's room, not INTERNAL, and the
 * store exactly as it was (no half-written Parquet file, temp or lock left behind).
 */

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(dir, name);
    if (statSync(path).isFile()) files.set(name, readFileSync(path));
  }
  return files;
}

const work = tempDir('tradelab-full-disk-');
const disk = join(work, 'disk');
mkdirSync(disk);
/** Why the tmpfs could not be mounted here; undefined when it is. */
const cannotMount = mountTmpfs(disk, '256k');

describe.skipIf(cannotMount !== undefined)(
  `data import onto a full disk${cannotMount === undefined ? '' : ` (skipped: ${cannotMount})`}`,
  () => {
    const store = join(disk, 'store');
    beforeAll(() => {
      writeFileSync(join(work, 'small.csv'), walkCsv(T0, 10));
      // About 1 MB of Parquet: four times the disk.
      writeFileSync(join(work, 'big.csv'), walkCsv(T0 + 10 * MINUTE_MS, 40_000));
    });
    afterAll(() => {
      unmountTmpfs(disk);
    });

    const importFile = (file: string): ReturnType<typeof runCli> =>
      runCli(
        ['data', 'import', file, '--symbol', 'BTCUSDT', '--timeframe', '1m', '--data-dir', store],
        { cwd: work },
      );

    it('is FILE_ACCESS naming the store and the room on its disk, and leaves the store as it was', async () => {
      expect((await importFile('small.csv')).code).toBe(0);
      const before = snapshot(store);
      const result = await importFile('big.csv');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^error \\[FILE_ACCESS\\]: cannot write BTCUSDT:1m into the data store ${store}: no space left on device \\(it needs [\\d.]+ [KM]B; the disk holding the store has [\\d.]+ (KB|bytes) free\\); the store is as it was$`,
          'm',
        ),
      );
      expect(result.stderr).toContain(
        `hint: free some space on the disk holding ${store}, or move the store to a disk with room (paths.data in the config, or --data-dir), then run the command again`,
      );
      expect(result.stderr).not.toContain('INTERNAL');
      expect(snapshot(store)).toEqual(before);
      const show = await runCli(['data', 'show', 'BTCUSDT:1m', '--json', '--data-dir', store], {
        cwd: work,
      });
      expect(show.code).toBe(0);
      expect(jsonLines(show.stdout)[0]).toMatchObject({ dataset: 'BTCUSDT:1m', rows: 10 });
    });

    it('leaves no store behind when the first import does not fit', async () => {
      const fresh = join(disk, 'fresh');
      const result = await runCli(
        [
          'data',
          'import',
          'big.csv',
          '--symbol',
          'ETHUSDT',
          '--timeframe',
          '1m',
          '--data-dir',
          fresh,
        ],
        { cwd: work },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error [FILE_ACCESS]: cannot write ETHUSDT:1m into the data store ${fresh}: no space left on device`,
      );
      expect(existsSync(fresh)).toBe(false);
    });
  },
);

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatasetStore } from '../src/data/store/dataset-store.js';
import { BIN, runCli, tempDir } from './support/run-cli.js';
import { minuteCsv, MINUTE_MS, T0 } from './support/minute-csv.js';

const csv = (start: number, n: number): string => minuteCsv(start, n);

describe('data import: concurrent imports into one dataset', () => {
  it(
    'keeps every file: rounds of two imports at once, each exits 0 and all bars and sources stay',
    // 20 CLI processes, about 1.2 s of CPU each: some 15 s on two idle cores, minutes on a
    // crowded machine. No timing is asserted; the limit only stops a hang.
    { timeout: 600_000 },
    async () => {
      const dir = tempDir('tradelab-concurrent-import-');
      const rounds = 10;
      const perRound = 2;
      const rowsPerFile = 2_000;
      const files: string[] = [];
      for (let r = 0; r < rounds; r++) {
        const batch: string[] = [];
        for (let f = 0; f < perRound; f++) {
          const k = r * perRound + f;
          const path = join(dir, 'in', `part-${String(k).padStart(2, '0')}.csv`);
          mkdirSync(join(dir, 'in'), { recursive: true });
          writeFileSync(path, csv(T0 + k * rowsPerFile * MINUTE_MS, rowsPerFile));
          batch.push(path);
        }
        const results = await Promise.all(
          batch.map((path) =>
            runCli(['data', 'import', path, '--symbol', 'BTC', '--timeframe', '1m'], { cwd: dir }),
          ),
        );
        for (const result of results) expect(result.stderr).toBe('');
        expect(results.map((x) => x.code)).toEqual(batch.map(() => 0));
        files.push(...batch);
      }
      const store = openDatasetStore(join(dir, '.tradelab', 'data'));
      const entry = store.require({ symbol: 'BTC', timeframe: '1m' });
      expect(entry.sources.map((s) => s.path).sort()).toEqual([...files].sort());
      const { bars } = await store.read({ symbol: 'BTC', timeframe: '1m' });
      expect(bars.timestamps.length).toBe(files.length * rowsPerFile);
      expect(entry.rows).toBe(files.length * rowsPerFile);
      // One bar a minute from T0, none missing and none twice.
      let wrong = 0;
      bars.timestamps.forEach((t, i) => {
        if (t !== T0 + i * MINUTE_MS) wrong++;
      });
      expect(wrong).toBe(0);
    },
  );
});

describe('data import: an import killed mid-write', () => {
  /**
   * Holds the store's catalog lock (as a live process, this one), starts an import, waits until it
   * has begun writing its Parquet file into the dataset's folder, and SIGKILLs it there: it can
   * never finish while the lock is held, so whatever it wrote is left behind, as after a kill in
   * the middle of a write. Returns the names of the Parquet files it left.
   */
  async function killMidWrite(dir: string, file: string): Promise<string[]> {
    const store = join(dir, '.tradelab', 'data');
    const folder = join(store, 'BTC');
    const before = new Set(readdirSync(folder));
    const lock = join(store, 'catalog.lock');
    writeFileSync(lock, String(process.pid));
    const child = spawn(
      process.execPath,
      [BIN, 'data', 'import', file, '--symbol', 'BTC', '--timeframe', '1m'],
      { cwd: dir, env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } },
    );
    const exited = new Promise<void>((resolve) => {
      child.on('exit', () => {
        resolve();
      });
    });
    // Its Parquet file, under whatever temp or final name it has at that moment.
    const written = (): string[] =>
      readdirSync(folder).filter((n) => !before.has(n) && n.includes('.parquet'));
    const deadline = Date.now() + 60_000;
    while (written().length === 0 && child.exitCode === null && Date.now() < deadline)
      await sleep(5);
    child.kill('SIGKILL');
    await exited;
    rmSync(lock);
    return written();
  }

  it(
    "the next import and `data rm` remove what a killed import left, not a live writer's temp",
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('tradelab-killed-import-');
      mkdirSync(join(dir, 'in'));
      const path = (k: number): string => join(dir, 'in', `part-${k}.csv`);
      for (let k = 0; k < 4; k++) writeFileSync(path(k), csv(T0 + k * 2_000 * MINUTE_MS, 2_000));
      const first = await runCli(
        ['data', 'import', path(0), '--symbol', 'BTC', '--timeframe', '1m'],
        {
          cwd: dir,
        },
      );
      expect(first.code).toBe(0);
      const folder = join(dir, '.tradelab', 'data', 'BTC');
      const store = openDatasetStore(join(dir, '.tradelab', 'data'));
      const key = { symbol: 'BTC', timeframe: '1m' } as const;

      const left = await killMidWrite(dir, path(1));
      expect(left.length).toBeGreaterThan(0);
      // A temp of a writer that is alive (this test process): nobody else's to remove.
      const live = `.1m.0123abcd.parquet.tmp-${process.pid}-live`;
      writeFileSync(join(folder, live), 'still being written');

      const next = await runCli(
        ['data', 'import', path(2), '--symbol', 'BTC', '--timeframe', '1m'],
        {
          cwd: dir,
        },
      );
      expect(next.stderr).toBe('');
      expect(next.code).toBe(0);
      const entry = store.require(key);
      expect(entry.sources.map((s) => s.path)).toEqual([path(0), path(2)]);
      for (const name of left) expect(existsSync(join(folder, name)), name).toBe(false);
      expect(readdirSync(folder).sort()).toEqual([live, entry.file.split('/')[1]].sort());
      expect((await store.read(key)).bars.timestamps.length).toBe(4_000);

      const leftAgain = await killMidWrite(dir, path(3));
      expect(leftAgain.length).toBeGreaterThan(0);
      const removed = await runCli(['data', 'rm', 'BTC:1m'], { cwd: dir });
      expect(removed.stderr).toBe('');
      expect(removed.code).toBe(0);
      for (const name of leftAgain) expect(existsSync(join(folder, name)), name).toBe(false);
      expect(readdirSync(folder)).toEqual([live]);
    },
  );
});

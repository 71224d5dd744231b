import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatasetStore } from '../src/data/store/dataset-store.js';
import { BIN, type CliResult, runCli, runCliInProcess, tempDir } from './support/run-cli.js';
import { minuteCsv, MINUTE_MS, T0 } from './support/minute-csv.js';

const csv = (start: number, n: number): string => minuteCsv(start, n);

/** The environment of the CLI processes: the machine's tools, nothing of this one's. */
const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

/** Starts `tradelab ARGS` in `cwd` as a real process: the child, and what it printed once closed. */
function spawnCli(
  args: readonly string[],
  cwd: string,
): { child: ChildProcess; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
  return { child, result };
}

describe('data import: concurrent imports into one dataset', () => {
  it(
    'keeps every file: imports that wait on the lock at once each exit 0, and all bars and sources stay',
    // A lost bar needs two imports between their read of the dataset and their write at the same
    // time. Rather than hope for that over many rounds of racing processes, this test holds the
    // dataset's lock (as a live process, this one) until both imports are seen waiting for it, then
    // lets them go together: an import that read or merged the dataset before taking the lock has
    // then read it before the other one wrote, and loses its bars or the other's. No timing is
    // asserted; the limit only stops a hang.
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('tradelab-concurrent-import-');
      mkdirSync(join(dir, 'in'));
      const rowsPerFile = 2_000;
      const files = [0, 1, 2].map((k) => {
        const path = join(dir, 'in', `part-${k}.csv`);
        writeFileSync(path, csv(T0 + k * rowsPerFile * MINUTE_MS, rowsPerFile));
        return path;
      });
      const [setup, ...racing] = files as [string, ...string[]];
      // Setup, not the subject: a dataset for the racing imports to merge into.
      const first = await runCliInProcess(
        ['data', 'import', setup, '--symbol', 'BTC', '--timeframe', '1m'],
        { cwd: dir },
      );
      expect(first.code, first.stderr).toBe(0);

      const folder = join(dir, '.tradelab', 'data', 'BTC');
      const lock = join(folder, '1m.lock');
      writeFileSync(lock, String(process.pid));
      // A process waiting for the lock tries it every few tens of ms, each time through a temp file
      // named after its pid beside the lock (pid-lock.ts): seeing one is seeing it wait.
      const waiting = new Set<number>();
      const watcher = watch(folder, (_event, name) => {
        const pid = /^1m\.lock\.tmp-(\d+)-/.exec(name ?? '')?.[1];
        if (pid !== undefined) waiting.add(Number(pid));
      });
      const children = racing.map((path) =>
        spawnCli(['data', 'import', path, '--symbol', 'BTC', '--timeframe', '1m'], dir),
      );
      const pids = children.map(({ child }) => child.pid);
      const deadline = Date.now() + 240_000;
      let released = false;
      try {
        while (
          !pids.every((pid) => pid !== undefined && waiting.has(pid)) &&
          children.every(({ child }) => child.exitCode === null) &&
          Date.now() < deadline
        )
          await sleep(20);
        // Every import waited for the lock: none wrote while this process held it.
        expect(
          pids.filter((pid) => pid === undefined || !waiting.has(pid)),
          'imports not seen waiting for the lock this process held',
        ).toEqual([]);
        rmSync(lock);
        released = true;
      } finally {
        watcher.close();
        if (!released) for (const { child } of children) child.kill('SIGKILL');
      }
      const results = await Promise.all(children.map(({ result }) => result));
      for (const result of results) expect(result.stderr).toBe('');
      expect(results.map((x) => x.code)).toEqual(racing.map(() => 0));

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
    const { child, result } = spawnCli(
      ['data', 'import', file, '--symbol', 'BTC', '--timeframe', '1m'],
      dir,
    );
    // Its Parquet file, under whatever temp or final name it has at that moment.
    const written = (): string[] =>
      readdirSync(folder).filter((n) => !before.has(n) && n.includes('.parquet'));
    const deadline = Date.now() + 60_000;
    while (written().length === 0 && child.exitCode === null && Date.now() < deadline)
      await sleep(5);
    child.kill('SIGKILL');
    await result;
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
      // Setup and `data rm` run in this process; the killed imports and the import after the first
      // kill, which finds what it left, are real processes.
      const first = await runCliInProcess(
        ['data', 'import', path(0), '--symbol', 'BTC', '--timeframe', '1m'],
        { cwd: dir },
      );
      expect(first.code, first.stderr).toBe(0);
      const folder = join(dir, '.tradelab', 'data', 'BTC');
      const store = openDatasetStore(join(dir, '.tradelab', 'data'));
      const key = { symbol: 'BTC', timeframe: '1m' } as const;

      const left = await killMidWrite(dir, path(1));
      expect(left.length).toBeGreaterThan(0);
      // A temp of a writer that is alive (vitest's main process, neither the importer nor this
      // process, which runs `data rm`): nobody else's to remove.
      const live = `.1m.0123abcd.parquet.tmp-${process.ppid}-live`;
      writeFileSync(join(folder, live), 'still being written');

      const next = await runCli(
        ['data', 'import', path(2), '--symbol', 'BTC', '--timeframe', '1m'],
        { cwd: dir },
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
      const removed = await runCliInProcess(['data', 'rm', 'BTC:1m'], { cwd: dir });
      expect(removed.stderr).toBe('');
      expect(removed.code).toBe(0);
      for (const name of leftAgain) expect(existsSync(join(folder, name)), name).toBe(false);
      expect(readdirSync(folder)).toEqual([live]);
    },
  );
});

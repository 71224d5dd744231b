import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatasetStore } from '../src/data/store/dataset-store.js';
import { jsonLines, runCli, runCliInProcess, tempDir, type CliResult } from './support/run-cli.js';
import { minuteCsv, MINUTE_MS, T0, walkCsv } from './support/minute-csv.js';

const KEY = { symbol: 'BTC', timeframe: '1m' } as const;

const csv = (start: number, n: number, base = 100): string =>
  minuteCsv(start, n, { base, cycle: 89 });

/*
 * A dataset store repaired by hand-made damage, through the CLI. Each command that meets the damage
 * runs as a real process at least once (on a missing file); the setup imports, the variants of a
 * message and the same commands on a damaged file run in this process (runCliInProcess), through
 * the same entry function.
 */

/** A project with BTC:1m imported from two files (`a.csv`, then `b.csv`), 300 bars each. */
async function project(): Promise<{ dir: string; a: string; b: string; storeDir: string }> {
  const dir = tempDir('tradelab-store-repair-');
  const a = join(dir, 'a.csv');
  const b = join(dir, 'b.csv');
  writeFileSync(a, csv(T0, 300));
  writeFileSync(b, csv(T0 + 300 * MINUTE_MS, 300, 120));
  for (const file of [a, b]) {
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      file,
      '--symbol',
      'BTC',
      '--timeframe',
      '1m',
    );
    expect(result.code, result.stderr).toBe(0);
  }
  return { dir, a, b, storeDir: join(dir, '.tradelab', 'data') };
}

const cli = (dir: string, ...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir });
const cliInProcess = (dir: string, ...args: string[]): Promise<CliResult> =>
  runCliInProcess(args, { cwd: dir });

/** The file names in the dataset's folder and the catalog's bytes: what "untouched" compares. */
function snapshot(storeDir: string): { files: string[]; catalog: string } {
  return {
    files: readdirSync(join(storeDir, 'BTC')).sort(),
    catalog: readFileSync(join(storeDir, 'catalog.json'), 'utf8'),
  };
}

describe('a store file deleted by hand', () => {
  it(
    'is marked by `data list`, named by the commands that need it, and rebuilt by re-importing its files',
    { timeout: 300_000 },
    async () => {
      const { dir, a, b, storeDir } = await project();
      const store = openDatasetStore(storeDir);
      const file = store.require(KEY).file;
      rmSync(join(storeDir, file));

      const list = await cli(dir, 'data', 'list');
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^BTC:1m\s.*\bfile missing$/m);
      expect(list.stdout).toContain(`BTC:1m: ${join(storeDir, file)} is missing`);
      expect(list.stdout).toContain('tradelab data rm BTC:1m');
      const listed = jsonLines((await cliInProcess(dir, 'data', 'list', '--json')).stdout);
      expect(listed[0]).toMatchObject({ dataset: 'BTC:1m', status: 'missing' });

      const show = await cli(dir, 'data', 'show', 'BTC:1m');
      expect(show.code).toBe(1);
      expect(show.stderr).toContain('[DATA_STORE_INVALID]');
      expect(show.stderr).toContain(join(storeDir, file));
      expect(show.stderr).toContain(a);
      expect(show.stderr).toContain('tradelab data rm BTC:1m');

      // One of its two files is not enough to rebuild it: an error that says what to do; nothing changes.
      const before = snapshot(storeDir);
      const partial = await cli(dir, 'data', 'import', a, '--symbol', 'BTC', '--timeframe', '1m');
      expect(partial.code).toBe(1);
      expect(partial.stderr).toContain('[DATA_STORE_INVALID]');
      expect(partial.stderr).toContain(`${join(storeDir, file)} is missing`);
      expect(partial.stderr).toContain(b);
      expect(partial.stderr).toContain('tradelab data rm BTC:1m');
      expect(snapshot(storeDir)).toEqual(before);

      // Both files: the dataset is rebuilt from them.
      const rebuilt = await cli(
        dir,
        'data',
        'import',
        a,
        b,
        '--symbol',
        'BTC',
        '--timeframe',
        '1m',
      );
      expect(rebuilt.stderr).toBe('');
      expect(rebuilt.code).toBe(0);
      expect(rebuilt.stdout).toContain('Rebuilt BTC:1m');
      const entry = store.require(KEY);
      expect(entry.sources.map((s) => s.path)).toEqual([a, b]);
      expect((await store.read(KEY)).bars.timestamps.length).toBe(600);
      expect(readdirSync(join(storeDir, 'BTC')).filter((n) => n.endsWith('.parquet'))).toEqual([
        entry.file.split('/')[1],
      ]);
      const after = await cliInProcess(dir, 'data', 'list');
      expect(after.stdout).not.toContain('missing');
    },
  );
});

describe('a store file damaged by hand', () => {
  it(
    'is marked by `data list` and rebuilt by re-importing its files',
    { timeout: 300_000 },
    async () => {
      const { dir, a, b, storeDir } = await project();
      const store = openDatasetStore(storeDir);
      const path = join(storeDir, store.require(KEY).file);
      writeFileSync(path, readFileSync(path).subarray(0, 100));

      const list = jsonLines((await cliInProcess(dir, 'data', 'list', '--json')).stdout);
      expect(list[0]).toMatchObject({ dataset: 'BTC:1m', status: 'damaged' });

      const before = snapshot(storeDir);
      // The same commands as for a missing file, which run as real processes above: here in this
      // process.
      const partial = await cliInProcess(
        dir,
        'data',
        'import',
        b,
        '--symbol',
        'BTC',
        '--timeframe',
        '1m',
      );
      expect(partial.code).toBe(1);
      expect(partial.stderr).toContain('[DATA_STORE_INVALID]');
      expect(partial.stderr).toContain(a);
      expect(snapshot(storeDir)).toEqual(before);

      const rebuilt = await cliInProcess(
        dir,
        'data',
        'import',
        b,
        a,
        '--symbol',
        'BTC',
        '--timeframe',
        '1m',
      );
      expect(rebuilt.stderr).toBe('');
      expect(rebuilt.code).toBe(0);
      expect(rebuilt.stdout).toContain('Rebuilt BTC:1m');
      expect((await store.read(KEY)).bars.timestamps.length).toBe(600);
    },
  );
});

describe('a store file damaged inside a page (its size and magic bytes as they were)', () => {
  it('is found by its CRC-32, or by its bars when the catalog has none, not read as prices', async () => {
    const dir = tempDir('tradelab-store-repair-');
    const a = join(dir, 'a.csv');
    writeFileSync(a, walkCsv(T0, 300));
    expect(
      (await cliInProcess(dir, 'data', 'import', a, '--symbol', 'BTC', '--timeframe', '1m')).code,
    ).toBe(0);
    const storeDir = join(dir, '.tradelab', 'data');
    const store = openDatasetStore(storeDir);
    const { entry, bars } = await store.read(KEY);
    // What the outside probe did: bar 18's open, 8 bytes kept as they are by Snappy, made 1.78e+127.
    const path = join(storeDir, entry.file);
    const bytes = readFileSync(path);
    const at = bytes.indexOf(Buffer.from(Float64Array.of(bars.open[17] ?? Number.NaN).buffer));
    expect(at).toBeGreaterThan(0);
    Buffer.from(Float64Array.of(1.78e127).buffer).copy(bytes, at);
    writeFileSync(path, bytes);

    const show = await cli(dir, 'data', 'show', 'BTC:1m');
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(
      new RegExp(
        `^error \\[DATA_STORE_INVALID\\]: BTC:1m: "${path}" is damaged: its CRC-32 is [0-9a-f]{8}, not the [0-9a-f]{8} it was written with$`,
        'm',
      ),
    );
    expect(show.stderr).toContain(
      `import all of its files again to rebuild it: \`tradelab data import ${a} --symbol BTC --timeframe 1m\``,
    );
    expect(show.stdout).toBe('');

    // A catalog written before checksums were kept: the bars read back are checked instead.
    const catalogPath = join(storeDir, 'catalog.json');
    const catalog = JSON.parse(readFileSync(catalogPath, 'utf8')) as {
      datasets: Record<string, Record<string, unknown>>;
    };
    const stored = catalog.datasets['BTC:1m'] ?? {};
    delete stored.fileCrc32;
    delete stored.fileBytes;
    writeFileSync(catalogPath, JSON.stringify(catalog));
    const features = await cliInProcess(dir, 'data', 'features', 'BTC:1m');
    expect(features.code).toBe(1);
    expect(features.stderr).toContain(
      `error [DATA_STORE_INVALID]: BTC:1m: ${path} holds a bar no import would have stored: row 18 (2024-01-01T00:17:00.000Z): high ${bars.high[17]} is below max(open 1.78e+127, close ${bars.close[17]})`,
    );

    const rebuilt = await cliInProcess(
      dir,
      'data',
      'import',
      a,
      '--symbol',
      'BTC',
      '--timeframe',
      '1m',
    );
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain('Rebuilt BTC:1m');
    expect((await store.read(KEY)).bars.open[17]).toBe(bars.open[17]);
  });
});

describe('a catalog of the wrong shape', () => {
  let dir = '';
  let path = '';
  beforeAll(async () => {
    const made = await project();
    dir = made.dir;
    path = join(made.storeDir, 'catalog.json');
    const catalog = JSON.parse(readFileSync(path, 'utf8')) as {
      datasets: Record<string, Record<string, unknown>>;
    };
    const entry = catalog.datasets['BTC:1m'];
    if (entry === undefined) throw new Error('no BTC:1m in the catalog');
    entry.file = 42;
    writeFileSync(path, JSON.stringify(catalog));
  }, 300_000);

  it.each([
    ['data', 'list'],
    ['data', 'show', 'BTC:1m'],
    ['data', 'features', 'BTC:1m'],
    ['data', 'import', 'a.csv', '--symbol', 'ETH', '--timeframe', '1m'],
  ])(
    'is a clear error naming the catalog file and the field: %s %s',
    { timeout: 120_000 },
    async (...args) => {
      const result = await cliInProcess(dir, ...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('[DATA_STORE_INVALID]');
      expect(result.stderr).not.toContain('INTERNAL');
      expect(result.stderr).toContain(path);
      expect(result.stderr).toContain('datasets["BTC:1m"].file');
      expect(result.stderr).toMatch(/hint: .*(restore|fix)/);
    },
  );
});

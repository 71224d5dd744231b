import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bars } from '../src/data/bars.js';
import { writeParquetFile, type ParquetColumnInput } from '../src/data/parquet/index.js';
import type { DatasetKey } from '../src/data/store/dataset-key.js';
import { openDatasetStore } from '../src/data/store/dataset-store.js';
import { jsonLines, runCli, runCliInProcess, tempDir, type CliResult } from './support/run-cli.js';

/*
 * `tradelab data …` end to end. Each command, and an import that fails (exit 1, no store), runs as
 * a real process once; setup, second runs of a command and the many variants of an import (bad
 * files, policies, inputs, formats) run in this process (runCliInProcess), through the same entry
 * function, on real files and stores.
 */

const MIN = 60_000;
const T0 = Date.UTC(2024, 0, 1);
const HEADER = 'timestamp,open,high,low,close,volume';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project directory (no config: the store is `.tradelab/data` in it). */
function project(): string {
  const dir = tempDir('tradelab-data-cli-');
  made.push(dir);
  return dir;
}

/** Writes a file into `dir` (parents created) and returns its absolute path. */
function put(dir: string, name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const cli = (dir: string, ...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir });
/** {@link cli} in this process (runCliInProcess): for setup and the many variants of a command. */
const cliInProcess = (dir: string, ...args: string[]): Promise<CliResult> =>
  runCliInProcess(args, { cwd: dir });
/** `data import FILE --symbol SYMBOL --timeframe TIMEFRAME` in this process (setup, second runs). */
const importInProcess = (
  dir: string,
  file: string,
  symbol: string,
  timeframe: string,
): Promise<CliResult> =>
  cliInProcess(dir, 'data', 'import', file, '--symbol', symbol, '--timeframe', timeframe);

/** A generic CSV row with an ISO timestamp. */
const row = (t: number, o: number, h: number | string, l: number, c: number, v: number): string =>
  `${new Date(t).toISOString()},${o},${h},${l},${c},${v}`;

/** `n` valid bars `stepMs` apart from `start`, prices with two decimals. */
function rows(start: number, n: number, stepMs = MIN, base = 100): string[] {
  return Array.from({ length: n }, (_, i) => {
    const open = Number((base + i * 0.37).toFixed(2));
    const close = Number((open + 0.21).toFixed(2));
    const high = Number((close + 0.5).toFixed(2));
    const low = Number((open - 0.5).toFixed(2));
    return row(start + i * stepMs, open, high, low, close, 10 + i);
  });
}
const csv = (lines: readonly string[]): string => `${HEADER}\n${lines.join('\n')}\n`;

/** The bytes of a Parquet file of bars: `timestamps` in a column of `timeType`, flat prices. */
async function parquetBars(
  timestamps: readonly number[],
  timeType: ParquetColumnInput['type'],
): Promise<Uint8Array> {
  const path = join(tempDir('tradelab-parquet-'), 'bars.parquet');
  const flat = (value: number): Float64Array => new Float64Array(timestamps.length).fill(value);
  await writeParquetFile(path, {
    columns: [
      { name: 'timestamp', type: timeType, values: Float64Array.from(timestamps) },
      { name: 'open', type: 'double', values: flat(100) },
      { name: 'high', type: 'double', values: flat(101) },
      { name: 'low', type: 'double', values: flat(99) },
      { name: 'close', type: 'double', values: flat(100.5) },
      { name: 'volume', type: 'double', values: flat(7) },
    ],
  });
  return readFileSync(path);
}
/** Epoch ms no date can hold (year 318,857): it imported, then broke `data list` and `data show`. */
const BEYOND_DATES = await parquetBars([1e16, 1e16 + MIN, 1e16 + 2 * MIN], 'timestamp-ms');

/** Every file under the project's store, with its bytes; undefined when there is no store. */
function storeSnapshot(dir: string): Map<string, Buffer> | undefined {
  const root = join(dir, '.tradelab');
  if (!existsSync(root)) return undefined;
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(root, name);
    if (statSync(path).isFile()) files.set(name, readFileSync(path));
  }
  return files;
}

async function readBars(dir: string, key: DatasetKey, raw = false): Promise<Bars> {
  return (await openDatasetStore(join(dir, '.tradelab', 'data')).read(key, { raw })).bars;
}

function expectSameBars(actual: Bars, expected: Bars): void {
  for (const field of ['timestamps', 'open', 'high', 'low', 'close', 'volume'] as const)
    expect([...actual[field]], field).toEqual([...expected[field]]);
}

const BTC_1M: DatasetKey = { symbol: 'BTCUSDT', timeframe: '1m' };

describe('data import, list, show, export, rm', () => {
  it('imports a generic CSV and shows, lists, exports and removes it', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 30)));
    const imported = await cli(
      dir,
      'data',
      'import',
      'btc.csv',
      '--symbol',
      'btcusdt',
      '--timeframe',
      '1m',
    );
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(
      `${join(dir, 'btc.csv')}: generic (auto: header with timestamp, open, high, low, close, volume), 30 rows; timestamps: ISO-8601`,
    );
    expect(imported.stdout).toContain('Imported 30 rows into BTCUSDT:1m');
    expect(imported.stdout).toContain(
      'Range: 2024-01-01T00:00Z → 2024-01-01T00:29Z, calendar 24/7',
    );
    expect(imported.stdout).toContain('Values: all rows valid.');
    expect(imported.stdout).toContain('Gaps: no missing bars.');

    const list = await cli(dir, 'data', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^BTCUSDT:1m\s+30\s+2024-01-01 00:00\s+2024-01-01 00:29\s+24\/7\s+-\s+1 file$/m,
    );
    expect(list.stdout).toContain(`Store: ${join(dir, '.tradelab', 'data')}`);

    const show = await cli(dir, 'data', 'show', 'BTCUSDT:1m', '--json', '--rows', '2');
    expect(show.code).toBe(0);
    const records = jsonLines(show.stdout);
    expect(records[0]).toMatchObject({
      type: 'dataset',
      dataset: 'BTCUSDT:1m',
      rows: 30,
      firstMs: T0,
      lastMs: T0 + 29 * MIN,
      calendar: '24/7',
    });
    expect(records.slice(1).map((r) => r.time)).toEqual([
      '2024-01-01T00:00Z',
      '2024-01-01T00:01Z',
      '2024-01-01T00:28Z',
      '2024-01-01T00:29Z',
    ]);
    expect(records[1]).toMatchObject({
      type: 'bar',
      open: 100,
      high: 100.71,
      low: 99.5,
      close: 100.21,
      volume: 10,
    });

    const toCsv = await cli(dir, 'data', 'export', 'BTCUSDT:1m', '--out', 'out.csv');
    expect(toCsv.code).toBe(0);
    expect(toCsv.stdout).toContain(`Wrote 30 bars of BTCUSDT:1m to ${join(dir, 'out.csv')} (csv).`);
    const exported = readFileSync(join(dir, 'out.csv'), 'utf8').split('\n');
    expect(exported[0]).toBe(HEADER);
    expect(exported[1]).toBe('2024-01-01T00:00:00.000Z,100,100.71,99.5,100.21,10');
    expect(exported).toHaveLength(32);
    const toParquet = await cliInProcess(
      dir,
      'data',
      'export',
      'BTCUSDT:1m',
      '--out',
      'out.parquet',
    );
    expect(toParquet.code).toBe(0);
    expect(readFileSync(join(dir, 'out.parquet')).subarray(0, 4).toString()).toBe('PAR1');

    // What export writes, import reads back to the same bars.
    const original = await readBars(dir, BTC_1M);
    for (const [file, symbol] of [
      ['out.csv', 'FROMCSV'],
      ['out.parquet', 'FROMPARQUET'],
    ] as const) {
      const again = await importInProcess(dir, file, symbol, '1m');
      expect(again.code).toBe(0);
      expectSameBars(await readBars(dir, { symbol, timeframe: '1m' }), original);
    }

    const entry = openDatasetStore(join(dir, '.tradelab', 'data')).require(BTC_1M);
    const removed = await cli(dir, 'data', 'rm', 'BTCUSDT:1m');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('Removed BTCUSDT:1m (30 bars).\n');
    expect(existsSync(join(dir, '.tradelab', 'data', entry.file))).toBe(false);
    const after = await cliInProcess(dir, 'data', 'list', '--json');
    expect(jsonLines(after.stdout).map((r) => r.dataset)).toEqual(['FROMCSV:1m', 'FROMPARQUET:1m']);
  });

  it('treats importing the same file twice as a no-op: the store keeps its bytes', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 10)));
    expect((await importInProcess(dir, 'btc.csv', 'BTCUSDT', '1m')).code).toBe(0);
    const before = storeSnapshot(dir);
    expect([...(before?.keys() ?? [])].filter((f) => f.endsWith('.parquet'))).toHaveLength(1);
    const again = await importInProcess(dir, 'btc.csv', 'BTCUSDT', '1m');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${join(dir, 'btc.csv')}: unchanged, skipped`);
    expect(again.stdout).toContain(
      'Nothing to import: BTCUSDT:1m already holds these files (same SHA-256). The store is unchanged.',
    );
    expect(storeSnapshot(dir)).toEqual(before);
  });

  it('reports a missing dataset with a suggestion, exit 2', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 3)));
    await importInProcess(dir, 'btc.csv', 'BTCUSDT', '1m');
    const result = await cliInProcess(dir, 'data', 'show', 'BTCUSDT:1h');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error [DATASET_NOT_FOUND]: no dataset BTCUSDT:1h');
    expect(result.stderr).toContain('hint: did you mean BTCUSDT:1m?');
  });
});

describe('malformed files: exit 1 (bad data, not bad usage), the specified message, the store untouched', () => {
  let template = '';
  beforeAll(async () => {
    template = project();
    put(template, 'good.csv', csv(rows(T0, 10)));
    const result = await importInProcess(template, 'good.csv', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    rmSync(join(template, 'good.csv'));
  });

  const DAY2 = T0 + 86_400_000;
  /** A file of three 1m bars on the next day with `bad` as its second data row (line 3). */
  const withRow = (bad: string): string =>
    csv([
      row(DAY2, 100, 101, 99, 100.5, 10),
      bad,
      row(DAY2 + 2 * MIN, 101, 101.5, 100.2, 100.8, 9),
    ]);
  const at = new Date(DAY2 + MIN).toISOString();
  /** A file as a spreadsheet in Western Europe saves it: "café" in Latin-1 (byte 0xe9). */
  const LATIN1 = `${HEADER},note\n${row(DAY2, 100, 101, 99, 100.5, 10)},caf\u00e9\n`;
  const NUL_ROW = `${at},100.5,102,100,101,12`;

  const cases: {
    name: string;
    file: string;
    content: string | Uint8Array;
    args?: string[];
    messages: (path: string) => string[];
  }[] = [
    {
      name: 'an unparsable value',
      file: 'bad.csv',
      content: withRow(`${at},100.5,abc,100,101,12`),
      messages: (p) => [
        'error [DATA_INVALID]: 1 bad value in the input:',
        `${p}:3:3 (high): "abc" is not a number`,
      ],
    },
    {
      name: 'an empty field',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,,101,12`),
      messages: (p) => [`${p}:3:4 (low): empty field`],
    },
    {
      name: 'NaN',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,100,NaN,12`),
      messages: (p) => [`${p}:3:5 (close): "NaN" (NaN) is not a value`],
    },
    {
      name: 'Inf',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,100,101,Inf`),
      messages: (p) => [`${p}:3:6 (volume): "Inf" is infinite`],
    },
    {
      name: 'a bad timestamp',
      file: 'bad.csv',
      content: withRow('2024-01-02T00:0X:00Z,100.5,102,100,101,12'),
      messages: (p) => [
        `${p}:3:1 (timestamp): timestamp "2024-01-02T00:0X:00Z" is not an ISO-8601 date-time or an epoch number`,
      ],
    },
    {
      name: 'a non-positive price',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,100,-101,12`),
      messages: (p) => [
        `${p}:3:5`,
        'non-positive price (open 100.5, high 102, low 100, close -101)',
      ],
    },
    {
      name: 'high < max(open, close)',
      file: 'bad.csv',
      content: withRow(`${at},100.5,100.8,100,101,12`),
      messages: (p) => [`${p}:3:3`, 'high 100.8 is below max(open 100.5, close 101)'],
    },
    {
      name: 'low > min(open, close)',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,100.7,101,12`),
      messages: (p) => [`${p}:3:4`, 'low 100.7 is above min(open 100.5, close 101)'],
    },
    {
      name: 'a negative volume',
      file: 'bad.csv',
      content: withRow(`${at},100.5,102,100,101,-12`),
      messages: (p) => [`${p}:3:6`, 'negative volume -12'],
    },
    {
      name: 'a conflicting duplicate',
      file: 'bad.csv',
      content: csv([...rows(DAY2, 3), row(DAY2 + MIN, 100.37, 101.08, 99.87, 100.99, 11)]),
      messages: (p) => [
        'error [DATA_INVALID]: 1 conflicting duplicate timestamp (same time, different values):',
        `${at}: ${p}:3 has close 100.58, ${p}:5 has close 100.99`,
      ],
    },
    {
      name: 'a conflict with the stored bars',
      file: 'bad.csv',
      content: csv([row(T0 + 9 * MIN, 103.33, 104.04, 102.83, 103.6, 19)]),
      messages: (p) => [`existing dataset has close 103.54, ${p}:2 has close 103.6`],
    },
    {
      name: 'a wrong timeframe (1m data declared 1h)',
      file: 'minutes.csv',
      content: csv(rows(DAY2, 10)),
      args: ['--timeframe', '1h'],
      messages: () => [
        'error [DATA_MISMATCH]: 9 of 9 bars are closer than 1h to the previous one',
        'hint: this looks like 1m data: import it with --timeframe 1m',
      ],
    },
    {
      name: 'an unknown format',
      file: 'what.csv',
      content: 'foo,bar\n1,2\n',
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p}: cannot tell its format from the first line: "foo,bar"`,
      ],
    },
    {
      name: 'a truncated gzip file',
      file: 'btc.csv.gz',
      content: gzipSync(csv(rows(DAY2, 200))).subarray(0, 300),
      messages: (p) => [
        `error [DATA_INVALID]: ${p} is not a valid gzip file`,
        'hint: the download may be truncated',
      ],
    },
    {
      name: 'a semicolon-delimited file with decimal commas',
      file: 'semi.csv',
      content: `${HEADER.replaceAll(',', ';')}\n${at};100,5;102,25;100;101;12\n`,
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p}:1: the columns are separated by semicolons (;), and the numbers use decimal commas (100,5); tradelab reads comma-separated files with decimal points`,
        `hint: convert it, e.g. sed -e 's/,/./g' -e 's/;/,/g' ${p} > ${p.replace(/\.csv$/, '-comma.csv')}`,
      ],
    },
    {
      name: 'a semicolon-delimited file read as --format generic',
      file: 'semi.csv',
      content: `${HEADER.replaceAll(',', ';')}\n${at};100.5;102;100;101;12\n`,
      args: ['--timeframe', '1m', '--format', 'generic'],
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p}:1: the columns are separated by semicolons (;); tradelab reads comma-separated files`,
        `hint: convert it, e.g. sed -e 's/;/,/g' ${p} > ${p.replace(/\.csv$/, '-comma.csv')}`,
      ],
    },
    {
      name: 'a tab-separated file',
      file: 'tabs.tsv',
      content: `${HEADER.replaceAll(',', '\t')}\n${at}\t100.5\t102\t100\t101\t12\n`,
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p}:1: the columns are separated by tabs; tradelab reads comma-separated files`,
        `hint: convert it, e.g. tr '\\t' , < ${p} > ${p.replace(/\.tsv$/, '-comma.tsv')}`,
      ],
    },
    {
      name: 'quoted decimal commas in a comma-separated file',
      file: 'bad.csv',
      content: withRow(`${at},"100,5",102,100,101,12`),
      messages: (p) => [
        `${p}:3:2 (open): "100,5" is not a number`,
        'hint: "100,5" looks like a decimal comma: tradelab reads decimal points (100.5)',
      ],
    },
    {
      name: 'an empty file',
      file: 'empty.csv',
      content: '',
      messages: (p) => [`error [DATA_INVALID]: ${p} is empty (0 bytes)`],
    },
    {
      name: 'a file of blank lines',
      file: 'blank.csv',
      content: '\n\n  \n',
      messages: (p) => [`error [DATA_INVALID]: ${p} is empty (only blank lines)`],
    },
    {
      name: 'an empty gzip file',
      file: 'empty.csv.gz',
      content: gzipSync(''),
      messages: (p) => [`error [DATA_INVALID]: ${p} is empty once gunzipped (0 bytes)`],
    },
    {
      name: 'a UTF-16 file',
      file: 'wide.csv',
      content: Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from(csv(rows(DAY2, 3)), 'utf16le'),
      ]),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is UTF-16 (little-endian) text; tradelab reads UTF-8`,
        `hint: convert it, e.g. iconv -f UTF-16 -t UTF-8 ${p} > ${p.replace(/\.csv$/, '-utf8.csv')}`,
      ],
    },
    {
      name: 'a UTF-16 file without a byte-order mark',
      file: 'wide.csv',
      content: Buffer.from(csv(rows(DAY2, 3)), 'utf16le'),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is UTF-16 (little-endian) text; tradelab reads UTF-8`,
      ],
    },
    {
      name: 'a binary file named .gz that is not gzip',
      file: 'btc.csv.gz',
      content: Uint8Array.from({ length: 300 }, (_, i) => (i * 37 + 11) % 256),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is named .gz but is not gzip-compressed, and it is not text: control byte 0x0b at offset 0 (line 1)`,
        `hint: the download may be damaged; fetch it again (\`file ${p}\` says what it holds)`,
      ],
    },
    {
      name: 'a Latin-1 file',
      file: 'latin1.csv',
      content: Buffer.from(LATIN1, 'latin1'),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is not UTF-8 text: byte 0xe9 at offset ${LATIN1.indexOf('\u00e9')} (line 2) is not valid UTF-8; the file looks like Latin-1 or Windows-1252 text`,
        `hint: convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8 ${p} > ${p.replace(/\.csv$/, '-utf8.csv')}`,
      ],
    },
    {
      name: 'a NUL byte in a row',
      file: 'nul.csv',
      content: withRow(`${NUL_ROW}\u0000`),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is not text: NUL byte 0x00 at offset ${withRow(NUL_ROW).indexOf(NUL_ROW) + NUL_ROW.length} (line 3)`,
      ],
    },
    {
      name: 'a byte-order mark inside a row (files joined with cat)',
      file: 'joined.csv',
      content: withRow(`\ufeff${at},100.5,102,100,101,12`),
      messages: (p) => [
        `${p}:3:1 (timestamp): timestamp "<U+FEFF>${at}" is not an ISO-8601 date-time or an epoch number: it holds U+FEFF (a byte-order mark), which does not show on screen`,
        `hint: remove the byte-order marks inside the file (\`sed -i 's/\\xEF\\xBB\\xBF//g' ${p}\`), then import again.`,
      ],
    },
    {
      name: 'two close columns',
      file: 'two-closes.csv',
      content: `${HEADER},Close\n${row(DAY2, 100, 101, 99, 100.5, 10)},100.7\n`,
      messages: (p) => [
        `error [DATA_INVALID]: ${p}:1: the header has 2 close columns: "close" (column 5), "Close" (column 7); tradelab cannot tell which one holds the close`,
        'hint: rename or remove all but one of them (e.g. `cut -d, --complement -f7` drops column 7), then import again',
      ],
    },
    {
      name: 'a Parquet timestamp outside the dates tradelab handles',
      file: 'far.parquet',
      content: BEYOND_DATES,
      messages: (p) => [
        'error [DATA_INVALID]: 3 bad values in the input:',
        `${p}:1:1 (timestamp): timestamp "10000000000000000 ms" is outside the dates tradelab handles (years 0000 to 9999)`,
      ],
    },
    {
      name: 'a ZIP archive',
      file: 'btc.csv',
      content: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60, 7)]),
      messages: (p) => [
        `error [FORMAT_UNSUPPORTED]: ${p} is a ZIP archive, not a CSV file`,
        'hint: unzip it and import the CSV inside',
      ],
    },
  ];

  it.each(cases)('rejects $name', async ({ file, content, args, messages }) => {
    const dir = project();
    cpSync(join(template, '.tradelab'), join(dir, '.tradelab'), { recursive: true });
    const before = storeSnapshot(dir);
    const path = put(dir, file, content);
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      file,
      '--symbol',
      'BTCUSDT',
      ...(args ?? ['--timeframe', '1m']),
    );
    expect(result.code).toBe(1);
    for (const message of messages(path)) expect(result.stderr).toContain(message);
    // Never raw bytes of a file on the terminal: no control or invisible format characters, no
    // replacement characters.
    const raw = Array.from(result.stderr.matchAll(/\p{Cc}|\p{Cf}|\ufffd/gu), (m) => m[0]).filter(
      (c) => c !== '\n',
    );
    expect(raw).toEqual([]);
    expect(result.stderr).not.toContain('\\u00');
    expect(result.stdout).toBe('');
    expect(storeSnapshot(dir)).toEqual(before);
  });

  it('creates no store when the first import fails', async () => {
    const dir = project();
    put(dir, 'bad.csv', withRow(`${at},100.5,102,100,101,-12`));
    const result = await cli(
      dir,
      'data',
      'import',
      'bad.csv',
      '--symbol',
      'BTCUSDT',
      '--timeframe',
      '1m',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was imported');
    expect(existsSync(join(dir, '.tradelab'))).toBe(false);
  });
});

describe('bad-row policies', () => {
  const messy = csv([
    ...rows(T0, 2),
    row(T0 + 2 * MIN, 100.74, 'x', 100.2, 100.9, 12),
    row(T0 + 3 * MIN, 100.9, 101.4, 100.4, 101.1, -5),
    row(T0 + 4 * MIN, 101.1, 101.0, 100.6, 101.2, 7),
    ...rows(T0 + 5 * MIN, 3, MIN, 101.2),
  ]);

  it('--on-bad drop skips bad rows and says how many', async () => {
    const dir = project();
    put(dir, 'messy.csv', messy);
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'messy.csv',
      '--symbol',
      'BTCUSDT',
      '--timeframe',
      '1m',
      '--on-bad',
      'drop',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Values: 1 unparsable, 1 high below open/close, 1 negative volume → dropped 3 rows (--on-bad drop). First ones:',
    );
    expect(result.stdout).toContain(`${join(dir, 'messy.csv')}:4:3 (high): "x" is not a number`);
    expect(result.stdout).toContain('Imported 8 rows into BTCUSDT:1m');
    expect(result.stdout).toContain('5 bars now');
    expect(result.stdout).toContain('Gaps: 1 gap with missing data, 3 bars missing in all');
  });

  it('--on-bad repair forward-fills and clamps, and says how many', async () => {
    const dir = project();
    put(dir, 'messy.csv', messy);
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'messy.csv',
      '--symbol',
      'BTCUSDT',
      '--timeframe',
      '1m',
      '--on-bad',
      'repair',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '→ repaired 2 fields (forward fill), clamped 1 high/low, dropped 0 rows (--on-bad repair)',
    );
    expect(result.stdout).toContain('8 bars now');
    const bars = await readBars(dir, BTC_1M);
    expect(bars.high[2]).toBe(100.9); // max(open, close) for the unreadable high
    expect(bars.volume[3]).toBe(12); // the previous bar's volume
    expect(bars.high[4]).toBe(101.2); // raised to the close
  });
});

describe('inputs: directories, globs, gzip', () => {
  /** Binance klines (ms) for `n` minutes from `start`. */
  const klines = (start: number, n: number): string =>
    Array.from({ length: n }, (_, i) => {
      const t = start + i * MIN;
      return `${t},${100 + i},${101 + i},${99 + i},${100.5 + i},1.5,${t + MIN - 1},150,42,0.7,70,0`;
    }).join('\n') + '\n';
  const FEB = Date.UTC(2024, 1, 1);

  function monthlyDumps(dir: string): void {
    put(dir, 'dumps/BTCUSDT-1m-2024-01.csv', klines(FEB - 3 * MIN, 3));
    put(dir, 'dumps/BTCUSDT-1m-2024-02.csv', klines(FEB, 3));
    put(dir, 'dumps/README.md', 'not data\n');
  }

  it('merges a directory of monthly files into one series', async () => {
    const dir = project();
    monthlyDumps(dir);
    const result = await importInProcess(dir, 'dumps', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('BTCUSDT-1m-2024-01.csv: binance (auto: 12 columns, no header');
    expect(result.stdout).toContain('Imported 6 rows into BTCUSDT:1m');
    expect(result.stdout).toContain('Range: 2024-01-31T23:57Z → 2024-02-01T00:02Z');
    expect(result.stdout).toContain('Gaps: no missing bars.');
    const bars = await readBars(dir, BTC_1M);
    expect([...bars.timestamps]).toEqual([-3, -2, -1, 0, 1, 2].map((i) => FEB + i * MIN));
    const entry = openDatasetStore(join(dir, '.tradelab', 'data')).require(BTC_1M);
    expect(entry.sources.map((s) => s.path)).toEqual([
      join(dir, 'dumps', 'BTCUSDT-1m-2024-01.csv'),
      join(dir, 'dumps', 'BTCUSDT-1m-2024-02.csv'),
    ]);
  });

  it('merges the files a glob matches into one series', async () => {
    const dir = project();
    monthlyDumps(dir);
    put(dir, 'dumps/ETHUSDT-1m-2024-01.csv', klines(FEB - 3 * MIN, 3).replaceAll(',100', ',200'));
    const result = await importInProcess(dir, 'dumps/BTCUSDT-1m-2024-*.csv', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Imported 6 rows into BTCUSDT:1m');
    expect(result.stdout).not.toContain('ETHUSDT');
    expect((await readBars(dir, BTC_1M)).timestamps.length).toBe(6);
    const none = await importInProcess(dir, 'dumps/*.parquet', 'BTCUSDT', '1m');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no file matches dumps/*.parquet');
  });

  it('reads a .csv.gz file', async () => {
    const dir = project();
    put(dir, 'btc.csv.gz', gzipSync(csv(rows(T0, 5))));
    const result = await importInProcess(dir, 'btc.csv.gz', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('btc.csv.gz: generic');
    expect(result.stdout).toContain('Imported 5 rows into BTCUSDT:1m');
    expect((await readBars(dir, BTC_1M)).close[4]).toBe(101.69);
  });
});

describe('inputs that are not regular files, or not there', () => {
  it('refuses a device or a named pipe instead of reading it forever (exit 2)', async () => {
    const dir = project();
    execFileSync('mkfifo', [join(dir, 'pipe.csv')]);
    for (const [input, kind] of [
      ['/dev/zero', 'a character device'],
      ['pipe.csv', 'a named pipe (FIFO)'],
    ] as const) {
      // A real process: the import it replaces never ended, and a test must not hang with it.
      const result = await cli(dir, 'data', 'import', input, '--symbol', 'Z', '--timeframe', '1m');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `error [INVALID_ARGUMENT]: ${input.startsWith('/') ? input : join(dir, input)} is ${kind}, not a regular file`,
      );
      expect(result.stderr).toContain('hint: save the data to a file first');
    }
    expect(existsSync(join(dir, '.tradelab'))).toBe(false);
  });

  it('says where a relative path that is not there was looked for', async () => {
    const dir = project();
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'missing.csv',
      '--symbol',
      'BTCUSDT',
      '--timeframe',
      '1m',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no such file or directory: ${join(dir, 'missing.csv')}`);
    expect(result.stderr).toContain(
      `hint: check the path: relative paths start from the working directory, ${dir}`,
    );
  });
});

describe('a store holding a time from before imports refused it', () => {
  it('still lists, the time said as not a date, instead of INTERNAL for the whole store', async () => {
    const dir = project();
    expect((await cliInProcess(dir, 'data', 'synth', '--symbols', '2', '--bars', '50')).code).toBe(
      0,
    );
    // The catalog as an older tradelab could leave it: a last bar past year 275,000.
    const catalogPath = join(dir, '.tradelab', 'data', 'catalog.json');
    const catalog = JSON.parse(readFileSync(catalogPath, 'utf8')) as {
      datasets: Record<string, { lastMs: number }>;
    };
    const entry = catalog.datasets['SYN0:1h'];
    if (entry === undefined) throw new Error('no SYN0:1h in the catalog');
    entry.lastMs = 1e16;
    writeFileSync(catalogPath, JSON.stringify(catalog));
    const list = await cliInProcess(dir, 'data', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^SYN0:1h .* not a date \(10000000000000000 ms\)/m);
    expect(list.stdout).toMatch(/^SYN1:1h /m);
  });
});

describe('a data spec naming one symbol twice', () => {
  it('is a usage error naming the symbol, for every command that takes one', async () => {
    const dir = project();
    expect((await cliInProcess(dir, 'data', 'synth', '--symbols', '1', '--bars', '300')).code).toBe(
      0,
    );
    const features = await cliInProcess(dir, 'data', 'features', 'SYN0,syn0:1h');
    expect(features.code).toBe(2);
    expect(features.stderr).toContain(
      'error [INVALID_ARGUMENT]: "SYN0,syn0:1h" names SYN0 twice (symbols 1 and 2: "SYN0" and "syn0"); each symbol is one asset',
    );
    expect(features.stderr).toContain('hint: name each symbol once, e.g. SYN0:1h');
    // It trained on one asset as two; a real process, as training needs one.
    const train = await cli(
      dir,
      'train',
      'ppo',
      '--data',
      'SYN0,SYN0:1h',
      '--steps',
      '64',
      '--no-test',
      '--out',
      'run',
    );
    expect(train.code).toBe(2);
    expect(train.stderr).toContain('names SYN0 twice');
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });
});

describe('writing over a dataset of another origin', () => {
  /** `n` hourly bars from T0 as a CSV. */
  const hourly = (n: number): string => csv(rows(T0, n, 60 * MIN));

  it('data synth refuses to replace an imported dataset without --force, saying what is there', async () => {
    const dir = project();
    const file = put(dir, 'syn0.csv', hourly(30));
    expect((await importInProcess(dir, 'syn0.csv', 'SYN0', '1h')).code).toBe(0);
    const before = storeSnapshot(dir);
    // A real process: the service runs data synth as a job, through the same command.
    const refused = await cli(dir, 'data', 'synth', '--symbols', '1', '--bars', '300');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `error [DATASET_EXISTS]: SYN0:1h already exists: imported from 1 file (${file}), 30 bars from 2024-01-01 to 2024-01-02; writing synthetic bars (synth --seed 1 --signal 0 --bars 300 --calendar 24/7) would replace it`,
    );
    expect(refused.stderr).toContain(
      'hint: pass --force to replace it (the record of its files goes too), or remove it first with `tradelab data rm SYN0:1h`',
    );
    expect(storeSnapshot(dir)).toEqual(before);

    const forced = await cliInProcess(
      dir,
      'data',
      'synth',
      '--symbols',
      '1',
      '--bars',
      '300',
      '--force',
    );
    expect(forced.code).toBe(0);
    const entry = openDatasetStore(join(dir, '.tradelab', 'data')).require({
      symbol: 'SYN0',
      timeframe: '1h',
    });
    expect(entry).toMatchObject({
      rows: 300,
      sources: [],
      derivedFrom: 'synth --seed 1 --signal 0 --bars 300 --calendar 24/7',
    });
    // Synthetic over synthetic stays allowed, whatever the options.
    const again = await cliInProcess(
      dir,
      'data',
      'synth',
      '--symbols',
      '1',
      '--bars',
      '200',
      '--seed',
      '2',
    );
    expect(again.code).toBe(0);
  });

  it('data synth says what its planted signal earns in the env after fees, at both fills', async () => {
    const dir = project();
    const args = ['data', 'synth', '--symbols', '2', '--bars', '3000', '--seed', '7'];
    const weak = await cliInProcess(dir, ...args, '--signal', '0.05', '--force');
    const strong = await cliInProcess(dir, ...args, '--signal', '0.3', '--force', '--json');
    expect(weak.code).toBe(0);
    const line =
      /traded perfectly in the env .* at its default fees of 10 bps a side: Sharpe (-?[\d.]+) filling at the next bar's open \(the default\), (-?[\d.]+) at its close/.exec(
        weak.stdout,
      );
    expect(line).not.toBeNull();
    // A bar of latency costs a momentum signal: the close fills earn less.
    expect(Number(line?.[2])).toBeLessThan(Number(line?.[1]));
    const record = JSON.parse(strong.stdout) as {
      afterFees: { feeBps: number; open: number; close: number };
    };
    expect(record.afterFees.feeBps).toBe(10);
    // A strong signal survives the fees; a weak one at this length may not.
    expect(record.afterFees.open).toBeGreaterThan(3);
    expect(record.afterFees.open).toBeGreaterThan(Number(line?.[1]));
    const none = await cliInProcess(dir, ...args, '--force');
    expect(none.stdout).not.toContain('traded perfectly');
  });

  it('data synth writes none of its symbols when one of them is refused', async () => {
    const dir = project();
    put(dir, 'syn1.csv', hourly(30));
    expect((await importInProcess(dir, 'syn1.csv', 'SYN1', '1h')).code).toBe(0);
    const refused = await cliInProcess(dir, 'data', 'synth', '--symbols', '2', '--bars', '300');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error [DATASET_EXISTS]: SYN1:1h already exists');
    const list = jsonLines((await cliInProcess(dir, 'data', 'list', '--json')).stdout);
    expect(list.map((r) => r.dataset)).toEqual(['SYN1:1h']);
  });

  it('data resample refuses to replace an imported timeframe, writes no target then, and may redo its own', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 180)));
    const hours = put(dir, 'btc-1h.csv', hourly(5));
    expect((await importInProcess(dir, 'btc.csv', 'BTCUSDT', '1m')).code).toBe(0);
    expect((await importInProcess(dir, 'btc-1h.csv', 'BTCUSDT', '1h')).code).toBe(0);
    const before = storeSnapshot(dir);
    const refused = await cliInProcess(dir, 'data', 'resample', 'BTCUSDT:1m', '--to', '5m,1h');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `error [DATASET_EXISTS]: BTCUSDT:1h already exists: imported from 1 file (${hours}), 5 bars from 2024-01-01 to 2024-01-01; writing bars resampled from BTCUSDT:1m would replace it`,
    );
    expect(storeSnapshot(dir)).toEqual(before);

    const forced = await cliInProcess(
      dir,
      'data',
      'resample',
      'BTCUSDT:1m',
      '--to',
      '5m,1h',
      '--force',
    );
    expect(forced.code).toBe(0);
    const store = openDatasetStore(join(dir, '.tradelab', 'data'));
    expect(store.require({ symbol: 'BTCUSDT', timeframe: '1h' })).toMatchObject({
      rows: 3,
      derivedFrom: 'BTCUSDT:1m',
    });
    // The same resample again replaces its own datasets, as before.
    expect((await cliInProcess(dir, 'data', 'resample', 'BTCUSDT:1m', '--to', '5m')).code).toBe(0);
  });

  it('data import refuses to mix files into a synthetic dataset', async () => {
    const dir = project();
    expect((await cliInProcess(dir, 'data', 'synth', '--symbols', '1', '--bars', '300')).code).toBe(
      0,
    );
    const before = storeSnapshot(dir);
    put(dir, 'later.csv', csv(rows(Date.UTC(2021, 0, 1), 3, 60 * MIN)));
    const refused = await importInProcess(dir, 'later.csv', 'SYN0', '1h');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'error [DATASET_EXISTS]: SYN0:1h already exists: synthetic (synth --seed 1 --signal 0 --bars 300 --calendar 24/7), 300 bars from 2020-01-01 to 2020-01-13; importing files into it would mix their bars with these',
    );
    expect(refused.stderr).toContain(
      'hint: remove it first with `tradelab data rm SYN0:1h`, or import under another --symbol',
    );
    expect(storeSnapshot(dir)).toEqual(before);
  });
});

describe('formats', () => {
  it('reads epoch seconds in a Parquet file as seconds, as in a CSV', async () => {
    const dir = project();
    const seconds = [0, 1, 2].map((i) => (T0 + i * MIN) / 1000);
    put(dir, 'seconds.parquet', await parquetBars(seconds, 'int64'));
    const result = await importInProcess(dir, 'seconds.parquet', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '3 rows; Parquet: positions are row numbers; timestamps: seconds since the epoch',
    );
    expect(result.stdout).toContain('Range: 2024-01-01T00:00Z → 2024-01-01T00:02Z');
    expect([...(await readBars(dir, BTC_1M)).timestamps]).toEqual([T0, T0 + MIN, T0 + 2 * MIN]);
  });

  it('imports Yahoo with --adjusted: close is the adjusted close, the raw bars are kept', async () => {
    const dir = project();
    put(
      dir,
      'SPY.csv',
      'Date,Open,High,Low,Close,Adj Close,Volume\n' +
        '2024-01-02,472.16,473.67,470.49,472.65,465.00,123623700\n' +
        '2024-01-03,470.43,471.19,468.17,468.79,461.21,103585900\n' +
        '2024-01-04,468.30,470.96,467.05,467.28,459.72,84232200\n' +
        '2024-01-05,467.49,470.44,466.43,467.92,460.35,86060800\n' +
        '2024-01-08,468.43,474.75,468.30,474.60,466.92,74879100\n',
    );
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'SPY.csv',
      '--symbol',
      'SPY',
      '--timeframe',
      '1d',
      '--adjusted',
      '--json',
    );
    expect(result.code).toBe(0);
    const [record] = jsonLines(result.stdout);
    expect(record).toMatchObject({
      type: 'import',
      dataset: 'SPY:1d',
      status: 'imported',
      entry: { calendar: 'us-equities', adjusted: true, rows: 5 },
      files: [{ format: 'yahoo', rows: 5 }],
    });
    const key = { symbol: 'SPY', timeframe: '1d' } as const;
    const adjusted = await readBars(dir, key);
    expect([...adjusted.close]).toEqual([465, 461.21, 459.72, 460.35, 466.92]);
    expect(adjusted.open[0]).toBeCloseTo((472.16 * 465) / 472.65, 9);
    const raw = await readBars(dir, key, true);
    expect([...raw.close]).toEqual([472.65, 468.79, 467.28, 467.92, 474.6]);
    expect([...(raw.adjClose ?? [])]).toEqual([465, 461.21, 459.72, 460.35, 466.92]);
  });

  it('refuses --adjusted for a file without an adjusted close', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 3)));
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'btc.csv',
      '--symbol',
      'BTCUSDT',
      '--timeframe',
      '1m',
      '--adjusted',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--adjusted needs an adjusted close column');
    expect(existsSync(join(dir, '.tradelab'))).toBe(false);
  });

  it('imports Binance klines with open times in microseconds', async () => {
    const dir = project();
    const start = 1735689600000000;
    put(
      dir,
      'BTCUSDT-1m-2025-01-01.csv',
      [0, 1, 2]
        .map((i) => {
          const t = start + i * 60_000_000;
          return `${t},${93576 + i},${93610 + i},${93537 + i},${93600 + i},8.2,${t + 59_999_999},768978.5,1234,4.5,420000.1,0`;
        })
        .join('\n') + '\n',
    );
    const result = await importInProcess(dir, 'BTCUSDT-1m-2025-01-01.csv', 'BTCUSDT', '1m');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'binance (auto: 12 columns, no header, first field is an epoch time (1735689600000000)), 3 rows; timestamps: microseconds since the epoch',
    );
    expect(result.stdout).toContain('Range: 2025-01-01T00:00Z → 2025-01-01T00:02Z, calendar 24/7');
    expect([...(await readBars(dir, BTC_1M)).timestamps]).toEqual([
      1735689600000, 1735689660000, 1735689720000,
    ]);
  });

  it('reads zone-less timestamps in the --tz zone, and rejects an unknown zone', async () => {
    const dir = project();
    put(
      dir,
      'spy.csv',
      csv(rows(Date.UTC(2024, 6, 1, 9, 30), 3, 30 * MIN).map((r) => r.replace('.000Z', ''))),
    );
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'spy.csv',
      '--symbol',
      'SPY',
      '--timeframe',
      '30m',
      '--tz',
      'America/New_York',
      '--calendar',
      'us-equities',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Range: 2024-07-01T13:30Z → 2024-07-01T14:30Z, calendar us-equities',
    );
    const bad = await cliInProcess(
      dir,
      'data',
      'import',
      'spy.csv',
      '--symbol',
      'QQQ',
      '--timeframe',
      '30m',
      '--tz',
      'Mars/Olympus',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tz "Mars/Olympus" is not a time zone');
  });
});

describe('gaps and resampling', () => {
  it("says when bars are off the timeframe's UTC grid, and imports them as they are", async () => {
    const dir = project();
    put(dir, 'half-past.csv', csv(rows(T0 + 30 * MIN, 3, 60 * MIN)));
    const result = await importInProcess(dir, 'half-past.csv', 'BTCUSDT', '1h');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Grid: 3 of 3 bars do not start on a multiple of 1h in UTC (the first at 2024-01-01T00:30Z); they were imported as they are',
    );
    expect(result.stdout).toContain(
      'If the times are bar closes or local times, re-export bar open times in UTC, or pass --tz.',
    );
    put(dir, 'on-the-hour.csv', csv(rows(T0, 3, 60 * MIN)));
    const aligned = await importInProcess(dir, 'on-the-hour.csv', 'ETHUSDT', '1h');
    expect(aligned.code).toBe(0);
    expect(aligned.stdout).not.toContain('Grid:');
  });

  it('says that closures are normal for us-equities, and counts missing bars apart', async () => {
    const dir = project();
    /** 30-minute bars of one NYSE session in January (09:30–15:30 New York = 14:30–20:30 UTC). */
    const session = (day: number): string[] => rows(Date.UTC(2024, 0, day, 14, 30), 13, 30 * MIN);
    const thursday = session(4).filter((_, i) => i !== 6); // 12:30 New York missing
    put(dir, 'spy.csv', csv([...thursday, ...session(5), ...session(8)]));
    const result = await cliInProcess(
      dir,
      'data',
      'import',
      'spy.csv',
      '--symbol',
      'SPY',
      '--timeframe',
      '30m',
      '--calendar',
      'us-equities',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Gaps: 1 gap with missing data, 1 bar missing in all; the largest 1 bar (60 min) from 2024-01-04T17:00Z to 2024-01-04T18:00Z; 2 gaps where the us-equities market was closed (nights, weekends, holidays: normal).',
    );
  });

  it('resamples through the CLI into new datasets', async () => {
    const dir = project();
    put(dir, 'btc.csv', csv(rows(T0, 191)));
    expect((await importInProcess(dir, 'btc.csv', 'BTCUSDT', '1m')).code).toBe(0);
    const result = await cli(dir, 'data', 'resample', 'BTCUSDT:1m', '--to', '5m,1h', '--json');
    expect(result.code).toBe(0);
    const records = jsonLines(result.stdout);
    expect(records.map((r) => [r.dataset, r.rows, r.droppedIncomplete])).toEqual([
      ['BTCUSDT:5m', 38, true],
      ['BTCUSDT:1h', 3, true],
    ]);
    const hourly = await readBars(dir, { symbol: 'BTCUSDT', timeframe: '1h' });
    const minutes = await readBars(dir, BTC_1M);
    expect([...hourly.timestamps]).toEqual([0, 1, 2].map((h) => T0 + h * 3_600_000));
    expect(hourly.open[1]).toBe(minutes.open[60]);
    expect(hourly.close[1]).toBe(minutes.close[119]);
    expect(hourly.volume[1]).toBe(minutes.volume.subarray(60, 120).reduce((a, b) => a + b, 0));
    const list = jsonLines((await cliInProcess(dir, 'data', 'list', '--json')).stdout);
    expect(list.find((r) => r.dataset === 'BTCUSDT:5m')).toMatchObject({
      rows: 38,
      derivedFrom: 'BTCUSDT:1m',
    });
    const finer = await cliInProcess(dir, 'data', 'resample', 'BTCUSDT:1h', '--to', '1m');
    expect(finer.code).toBe(2);
    expect(finer.stderr).toContain('cannot resample 1h to 1m');
  });
});

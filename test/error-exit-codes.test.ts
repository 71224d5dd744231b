import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../src/core/index.js';
import { runCli, tempDir } from './support/run-cli.js';

/*
 * The exit code of a failed command is its error code's class (docs/errors.md): 2 for usage and
 * configuration errors, 1 for runtime failures. Real CLI processes, commands that load no tfjs.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project directory holding `files` (path → content). */
function project(files: Record<string, string> = {}): string {
  const dir = tempDir('tradelab-exit-codes-');
  made.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/** A CSV of three 1m bars, the second with a negative volume. */
const BAD_VOLUME = [
  'timestamp,open,high,low,close,volume',
  '2024-01-01T00:00:00.000Z,100,101,99,100.5,10',
  '2024-01-01T00:01:00.000Z,100.5,102,100,101,-12',
  '2024-01-01T00:02:00.000Z,101,101.5,100.2,100.8,9',
].join('\n');

const cases: {
  name: string;
  files?: Record<string, string>;
  args: string[];
  code: ErrorCode;
  exit: 1 | 2;
}[] = [
  {
    name: 'a usage error',
    args: ['study', 'trials', 'x', '--csv', '--json'],
    code: 'USAGE',
    exit: 2,
  },
  { name: 'an unknown study', args: ['study', 'show', 'nope'], code: 'STUDY_NOT_FOUND', exit: 2 },
  {
    name: 'an unknown dataset',
    args: ['data', 'show', 'BTCUSDT:1h'],
    code: 'DATASET_NOT_FOUND',
    exit: 2,
  },
  {
    name: 'a missing input file',
    args: ['data', 'import', 'nope.csv', '--symbol', 'BTC', '--timeframe', '1m'],
    code: 'FILE_NOT_FOUND',
    exit: 2,
  },
  {
    name: 'a bad config file',
    files: { 'tradelab.config.yaml': 'planner:\n  safetyFactor: 7\n' },
    args: ['config', 'show'],
    code: 'CONFIG_INVALID',
    exit: 2,
  },
  {
    name: 'bad rows in an imported file',
    files: { 'bad.csv': BAD_VOLUME },
    args: ['data', 'import', 'bad.csv', '--symbol', 'BTC', '--timeframe', '1m'],
    code: 'DATA_INVALID',
    exit: 1,
  },
  {
    name: 'a damaged data store',
    files: { '.tradelab/data/catalog.json': '{"version": 1, "datasets": [' },
    args: ['data', 'list'],
    code: 'DATA_STORE_INVALID',
    exit: 1,
  },
  {
    name: 'a file in the way of a folder (a Node error, not a bug)',
    files: { blocker: '' },
    args: ['data', 'synth', '--symbols', '1', '--bars', '100', '--data-dir', 'blocker/data'],
    code: 'FILE_ACCESS',
    exit: 1,
  },
];

describe('exit codes by error class', () => {
  it.each(cases)('$name: $code, exit $exit', async ({ files, args, code, exit }) => {
    const result = await runCli(args, { cwd: project(files), env: { TRADELAB_DETECT: 'false' } });
    expect(result.stderr).toContain(`error [${code}]: `);
    expect(result.code).toBe(exit);
    expect(ERROR_CODES[code] === 'runtime' ? 1 : 2).toBe(exit);
  });
});

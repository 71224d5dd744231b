import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import { openSqliteStorage } from '../storage/index.js';
import { describeJobQueueConformance } from './conformance.js';
import { MAX_LOG_LINES } from './job-queue.js';
import { openSqliteJobQueue } from './sqlite-job-queue.js';

const dir = tempDir('tradelab-jobs-');
let files = 0;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const freshPath = (): string => join(dir, `jobs-${files++}.db`);

describeJobQueueConformance('sqlite:', () => Promise.resolve(openSqliteJobQueue(freshPath())));
describeJobQueueConformance('sqlite::memory:', () =>
  Promise.resolve(openSqliteJobQueue(':memory:')),
);

describe('SQLite job queue', () => {
  it('shares the study storage file, and survives a reopen', async () => {
    const path = freshPath();
    const storage = openSqliteStorage(path);
    await storage.createStudy({
      name: 's',
      direction: 'maximize',
      userAttrs: {},
      systemAttrs: {},
    });
    const queue = openSqliteJobQueue(path);
    const { id } = await queue.submit({
      request: { command: 'bench env', positionals: [], options: {} },
      argv: ['bench', 'env'],
      slots: 1,
    });
    await queue.close();
    const reopened = openSqliteJobQueue(path);
    expect((await reopened.get(id)).state).toBe('queued');
    expect((await storage.listStudies()).map((s) => s.name)).toEqual(['s']);
    await reopened.close();
    await storage.close();
  });

  it(`keeps the first ${MAX_LOG_LINES} log lines of a job`, async () => {
    const queue = openSqliteJobQueue(':memory:');
    const { id } = await queue.submit({
      request: { command: 'bench env', positionals: [], options: {} },
      argv: ['bench', 'env'],
      slots: 1,
    });
    const lines = Array.from({ length: MAX_LOG_LINES + 5 }, (_, i) => ({
      stream: 'stderr' as const,
      text: `line ${i + 1}`,
      at: i,
    }));
    await queue.appendLog(id, lines);
    const last = await queue.readLog(id, MAX_LOG_LINES - 1);
    expect(last.map((l) => l.text)).toEqual([`line ${MAX_LOG_LINES}`]);
    await queue.close();
  });
});

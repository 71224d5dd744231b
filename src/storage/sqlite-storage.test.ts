import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import { describeStorageConformance } from './conformance.js';
import { openSqliteStorage } from './sqlite-storage.js';

const dir = tempDir('tradelab-sqlite-');
let files = 0;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeStorageConformance('sqlite:', () =>
  Promise.resolve(openSqliteStorage(join(dir, `study-${files++}.db`))),
);

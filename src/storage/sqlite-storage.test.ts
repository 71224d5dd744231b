import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/run-cli.js';
import type { TradelabError } from '../core/index.js';
import { describeStorageConformance } from './conformance.js';
import { openSqliteStorage, SQLITE_SCHEMA_VERSION } from './sqlite-storage.js';

const dir = tempDir('tradelab-sqlite-');
let files = 0;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const freshPath = (): string => join(dir, `study-${files++}.db`);

describeStorageConformance('sqlite:', () => Promise.resolve(openSqliteStorage(freshPath())));

/** The TradelabError `fn` throws. */
function thrown(fn: () => unknown): TradelabError {
  try {
    fn();
  } catch (error) {
    return error as TradelabError;
  }
  throw new Error('expected a throw');
}

describe('SQLite storage', () => {
  it('refuses a file written by a newer tradelab, and changes nothing in it', async () => {
    const path = freshPath();
    await openSqliteStorage(path).close();
    const db = new Database(path);
    db.prepare('UPDATE tradelab_schema SET version = ?').run(SQLITE_SCHEMA_VERSION + 1);
    db.close();
    const error = thrown(() => openSqliteStorage(path));
    expect(error.code).toBe('STORAGE_SCHEMA');
    expect(error.message).toContain(`schema ${SQLITE_SCHEMA_VERSION + 1}`);
    expect(error.hint).toContain('upgrade');
    const after = new Database(path);
    expect(after.prepare('SELECT version FROM tradelab_schema').get()).toEqual({
      version: SQLITE_SCHEMA_VERSION + 1,
    });
    after.close();
  });

  it('says which file is not a study database', () => {
    const path = join(dir, 'not-a-db.db');
    writeFileSync(path, 'hello, this is text\n'.repeat(100));
    const error = thrown(() => openSqliteStorage(path));
    expect(error.code).toBe('STORAGE_UNAVAILABLE');
    expect(error.message).toContain(path);
  });

  it('opens read-only for reading: a missing file is not created, and a write says read-only', async () => {
    const missing = join(dir, 'nothing-here.db');
    const empty = openSqliteStorage(missing, {}, `sqlite:${missing}`, 'read-only');
    expect(await empty.listStudies()).toEqual([]);
    await empty.close();
    expect(existsSync(missing)).toBe(false);

    const path = freshPath();
    const writer = openSqliteStorage(path);
    const study = await writer.createStudy({ name: 'kept', direction: 'minimize' });
    await writer.close();
    const reader = openSqliteStorage(path, {}, `sqlite:${path}`, 'read-only');
    expect((await reader.getStudy('kept')).id).toBe(study.id);
    const refused = await reader.createStudy({ name: 'new', direction: 'minimize' }).then(
      () => undefined,
      (error: unknown) => error as TradelabError,
    );
    await reader.close();
    expect(refused?.code).toBe('STORAGE_UNAVAILABLE');
    expect(refused?.message).toContain(`${path} is read-only`);
  });

  // A real full disk for artifact files: a 256 KiB tmpfs, where this test may mount one (root).
  const mountable = ((): boolean => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
    const probe = tempDir('tradelab-mount-');
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status !== 0)
      return false;
    spawnSync('umount', [probe]);
    return true;
  })();

  it.runIf(mountable)(
    'says the disk is full when an artifact file does not fit, and leaves no partial file',
    async () => {
      const artifactDir = tempDir('tradelab-full-artifacts-');
      expect(
        spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', artifactDir]).status,
      ).toBe(0);
      try {
        const storage = openSqliteStorage(freshPath(), {
          artifactDir,
          maxInlineArtifactBytes: 100,
        });
        const study = await storage.createStudy({ name: 'full', direction: 'minimize' });
        const trial = await storage.claimTrial(study.id, 'w');
        const error = await storage
          .putArtifact(trial.id, 'model.bin', new Uint8Array(512 * 1024))
          .then(
            () => undefined,
            (e: unknown) => e as TradelabError,
          );
        await storage.close();
        // The artifact file is what did not fit: named, as every failed file write is.
        expect(error?.code).toBe('FILE_ACCESS');
        expect(error?.message).toMatch(
          new RegExp(
            `^cannot write ${artifactDir}/${study.id}/0/[0-9a-f-]+-model\\.bin: no space left on device`,
          ),
        );
        expect(error?.hint).toContain('the disk is full');
        expect(readdirSync(join(artifactDir, String(study.id), '0'))).toEqual([]);
      } finally {
        spawnSync('umount', [artifactDir]);
      }
    },
  );

  it('keeps large artifacts as files in artifactDir, and refuses them without one', async () => {
    const artifactDir = join(dir, 'artifacts');
    const storage = openSqliteStorage(freshPath(), { artifactDir, maxInlineArtifactBytes: 100 });
    const study = await storage.createStudy({ name: 's', direction: 'minimize' });
    const trial = await storage.claimTrial(study.id, 'w');
    const big = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    await storage.putArtifact(trial.id, 'model.bin', big);
    await storage.putArtifact(trial.id, 'small.bin', big.subarray(0, 100));
    const trialDir = join(artifactDir, String(study.id), '0');
    const files = (): string[] => readdirSync(trialDir);
    expect(files()).toHaveLength(1);
    expect(files()[0]).toMatch(/-model\.bin$/);
    expect(await storage.getArtifact(trial.id, 'model.bin')).toEqual(big);
    expect(await storage.getArtifact(trial.id, 'small.bin')).toEqual(big.subarray(0, 100));
    // A replaced artifact's file goes; so do a removed study's.
    const first = files()[0] ?? '';
    await storage.putArtifact(trial.id, 'model.bin', big.subarray(1));
    expect(files()).toHaveLength(1);
    expect(files()).not.toContain(first);
    expect(await storage.getArtifact(trial.id, 'model.bin')).toEqual(big.subarray(1));
    await storage.deleteStudy('s');
    expect(existsSync(join(trialDir, first))).toBe(false);
    expect(files()).toEqual([]);
    await storage.close();
    const without = openSqliteStorage(freshPath(), { maxInlineArtifactBytes: 100 });
    const s2 = await without.createStudy({ name: 's', direction: 'minimize' });
    const t2 = await without.claimTrial(s2.id, 'w');
    const error = await without.putArtifact(t2.id, 'model.bin', big).then(
      () => undefined,
      (e: unknown) => e as TradelabError,
    );
    expect(error?.message).toContain('over the 100-byte limit');
    expect(error?.hint).toContain('paths.artifacts');
    await without.close();
  });
});

import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectory } from './make-directory.js';
import { isTradelabError } from './tradelab-error.js';

describe('makeDirectory', () => {
  const root = mkdtempSync(join(tmpdir(), 'tradelab-make-directory-'));

  it('makes the missing folders and returns the first one it made, as mkdirSync does', () => {
    expect(makeDirectory(join(root, 'a', 'b', 'c'))).toBe(join(root, 'a'));
    expect(existsSync(join(root, 'a', 'b', 'c'))).toBe(true);
    expect(makeDirectory(join(root, 'a', 'b'))).toBeUndefined();
  });

  it('fails at once, as FILE_ACCESS, under a folder that refuses children (/proc)', () => {
    // mkdirSync(…, { recursive: true }) spins here for ever, synchronously, deaf to SIGTERM.
    let thrown: unknown;
    try {
      makeDirectory('/proc/tradelab-x/y');
    } catch (error) {
      thrown = error;
    }
    expect(isTradelabError(thrown, 'FILE_ACCESS')).toBe(true);
    expect((thrown as Error).message).toMatch(/cannot mkdir \/proc\/tradelab-x: /);
  });

  it('names the file in the way when part of the path is not a folder', () => {
    writeFileSync(join(root, 'file'), '');
    expect(() => makeDirectory(join(root, 'file', 'run'))).toThrow(
      `cannot make the folder ${join(root, 'file', 'run')}: ${join(root, 'file')} is not a folder`,
    );
  });
});

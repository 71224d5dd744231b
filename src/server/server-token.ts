import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TradelabError, writeFileAtomic, makeDirectory } from '../core/index.js';

/*
 * The token a service bound to anything but localhost requires. It is generated on the first
 * start, shown once, and only its SHA-256 is kept (a 256-bit random token needs no salt or slow
 * hash: there is nothing to guess).
 */

/** Where the hashed token lives, under the project root. */
export const TOKEN_FILE = join('.tradelab', 'server-token.json');

interface TokenFile {
  sha256: string;
  createdAt: string;
}

function hashOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The token check of a service: whether a presented token is the one whose hash is stored. */
export interface TokenCheck {
  /** The file holding the hash. */
  file: string;
  /** The token itself when this start created it (print it once), else undefined. */
  created: string | undefined;
  verify(token: string): boolean;
  /**
   * Stores a created token's hash (nothing for a loaded one). Called once the service listens,
   * so a start that fails never keeps a token nobody was shown.
   */
  save(): void;
}

/**
 * Loads the stored token hash of the project at `root`, or makes a new token (always with
 * `rotate`), which {@link TokenCheck.save} then stores.
 */
export function loadServerToken(root: string, options: { rotate?: boolean } = {}): TokenCheck {
  const file = join(root, TOKEN_FILE);
  let created: string | undefined;
  let stored: Buffer;
  let record: TokenFile | undefined;
  if (options.rotate === true || !existsSync(file)) {
    created = randomBytes(32).toString('base64url');
    stored = hashOf(created);
    record = { sha256: stored.toString('hex'), createdAt: new Date().toISOString() };
  } else {
    let found: Partial<TokenFile>;
    try {
      found = JSON.parse(readFileSync(file, 'utf8')) as Partial<TokenFile>;
    } catch (error) {
      throw new TradelabError('CONFIG_INVALID', `${file}: not the service's token file`, {
        hint: 'start with --new-token to make a new token (it replaces the file)',
        cause: error,
      });
    }
    if (typeof found.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(found.sha256)) {
      throw new TradelabError('CONFIG_INVALID', `${file}: field sha256 is not a SHA-256 in hex`, {
        hint: 'start with --new-token to make a new token (it replaces the file)',
      });
    }
    stored = Buffer.from(found.sha256, 'hex');
  }
  return {
    file,
    created,
    verify: (token) => timingSafeEqual(hashOf(token), stored),
    save() {
      if (record === undefined) return;
      makeDirectory(dirname(file));
      writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
      chmodSync(file, 0o600);
      record = undefined;
    },
  };
}

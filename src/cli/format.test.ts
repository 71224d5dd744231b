import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from './format.js';

describe('shellQuote', () => {
  it('leaves plain words alone and quotes the rest so a shell reads back the same text', () => {
    expect(shellQuote('ppo-btc_1h.v2')).toBe('ppo-btc_1h.v2');
    for (const text of ["it's mine", 'a b', '$HOME', 'x;rm -rf /', '"quoted"', ''])
      expect(
        execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' }),
      ).toBe(text);
  });
});

import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../profiles/index.js';
import { COMMANDS } from './command-table.js';
import { commandHelp, mainHelp } from './help.js';

/*
 * What users read uses words they can know. "seed 000", "seed 004's size" named the design
 * documents of the PyTorch system tradelab descends from, which users never see: a value's origin
 * is said as what it is ("RTX 3070 campaign (PyTorch original)"), a default as what it amounts to.
 */
const INTERNAL = /\bseeds? 0\d\d\b/i;

describe('words users read', () => {
  it('the help of every command names no internal document', () => {
    expect(mainHelp('0.0.0')).not.toMatch(INTERNAL);
    for (const spec of COMMANDS)
      expect(commandHelp(spec), spec.words.join(' ')).not.toMatch(INTERNAL);
  });

  it("the built-in profiles' sources and notes name no internal document", () => {
    for (const [name, profile] of Object.entries(BUILTIN_PROFILES))
      expect(JSON.stringify(profile), name).not.toMatch(INTERNAL);
  });
});

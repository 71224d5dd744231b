import { describe, expect, it } from 'vitest';
import { studyNote } from './campaign-bench.js';

describe("bench campaign's note on FinRL_Crypto", () => {
  it('at its 15,000 env steps a split, says what to compare with, not a ratio', () => {
    const note = studyNote(15_000);
    expect(note).toContain("FinRL_Crypto's own script run beside it on this machine");
    expect(note).not.toMatch(/\d×/);
  });

  it('says a quick look at fewer steps is not its study', () => {
    expect(studyNote(2_000)).toBe(
      "2,000 env steps a split, not FinRL_Crypto's 15,000: a quick look, not its study",
    );
  });
});

import { describe, expect, it } from 'vitest';
import { benchCampaign, studyNote } from './campaign-bench.js';

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

describe('bench campaign --runs gpu', () => {
  it('refuses a profile whose trials would not be resident on a card, and says how to get one', async () => {
    await expect(benchCampaign({ runs: ['gpu'], profile: 'cpu', steps: 1000 })).rejects.toThrow(
      'bench campaign --runs gpu: profile cpu puts no trial on a card (host), so nothing would be resident',
    );
  }, 120_000);
});

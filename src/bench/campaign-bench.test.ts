import { describe, expect, it } from 'vitest';
import { finrlComparison } from './campaign-bench.js';

describe("bench campaign's comparison with FinRL_Crypto", () => {
  it('compares at its 15,000 env steps a split, with the target and what it is', () => {
    expect(finrlComparison(15_000, 82)).toEqual({
      against: "4.00× FinRL_Crypto's 20.5",
      target: 82,
      targetSource:
        "4× FinRL_Crypto's 20.5 trials/hour: its CPCV study, run unmodified on the 2-core development machine",
    });
  });

  it('says a quick look at fewer steps is no comparison, and sets no target', () => {
    expect(finrlComparison(2_000, 78.7)).toEqual({
      against:
        "2,000 env steps a split, not FinRL_Crypto's 15,000: no comparison with its 20.5 trials/hour",
    });
  });
});

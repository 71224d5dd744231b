import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../core/index.js';
import { holdout } from './cv-holdout.js';

describe('holdout', () => {
  it('holds out the last 20% by default', () => {
    expect(holdout({ bars: 100 })).toEqual({ available: [0, 80], holdout: [80, 100] });
  });

  it('cuts at a fraction or at a bar', () => {
    expect(holdout({ bars: 1000, fraction: 0.1 })).toEqual({
      available: [0, 900],
      holdout: [900, 1000],
    });
    expect(holdout({ bars: 1000, at: 700 })).toEqual({ available: [0, 700], holdout: [700, 1000] });
  });

  it('rejects bad cuts with INVALID_ARGUMENT, the value and a hint', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [() => holdout({ bars: 100, fraction: 1.5 }), /fraction must be in \(0, 1\), got 1\.5/],
      [() => holdout({ bars: 100, fraction: 0 }), /got 0/],
      [() => holdout({ bars: 100, fraction: 0.2, at: 50 }), /both fraction 0\.2 and at 50 given/],
      [() => holdout({ bars: 100, at: 99 }), /cut at bar 99 of 100 leaves 99 bars .* 1 held out/],
      [() => holdout({ bars: 100, at: 1.5 }), /at must be an integer ≥ 0, got 1\.5/],
      [() => holdout({ bars: 3 }), /bars must be an integer ≥ 4, got 3/],
    ];
    for (const [run, message] of cases) {
      let error: unknown;
      try {
        run();
      } catch (caught) {
        error = caught;
      }
      expect(isTradelabError(error, 'INVALID_ARGUMENT')).toBe(true);
      if (isTradelabError(error)) {
        expect(error.message).toMatch(message);
        expect(error.hint).toMatch(/\w+/);
      }
    }
  });
});

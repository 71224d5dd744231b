import { describe, expect, it } from 'vitest';
import { fitParamsToProfile } from './profile-limits.js';

const limits = { profile: 'small_card', netDimMax: 256, batchSizeMax: 1024 };

describe('fitParamsToProfile', () => {
  it("narrows lists, ranges and fixed values to the profile's netDimMax and batchSize, saying what changed", () => {
    const { params, notes } = fitParamsToProfile(
      {
        netDim: [128, 256, 512, 1024],
        batchSize: { low: 256, high: 4096, step: 256 },
        learningRate: { low: 1e-5, high: 1e-3, log: true },
      },
      limits,
    );
    expect(params.netDim).toEqual([128, 256]);
    expect(params.batchSize).toEqual({ low: 256, high: 1024, step: 256 });
    expect(params.learningRate).toEqual({ low: 1e-5, high: 1e-3, log: true });
    expect(notes).toEqual([
      'netDim: [128, 256, 512, 1024] → [128, 256] (profile small_card: drl.netDimMax 256)',
      'batchSize: 256..4096 → 256..1024 (profile small_card: drl.batchSize 1024)',
    ]);
  });

  it('makes a choice or range wholly above the limit the limit itself, and leaves what fits alone', () => {
    expect(fitParamsToProfile({ netDim: [512, 1024], batchSize: 2048 }, limits).params).toEqual({
      netDim: 256,
      batchSize: 1024,
    });
    expect(fitParamsToProfile({ netDim: { low: 300, high: 900 } }, limits).params.netDim).toBe(256);
    const untouched = fitParamsToProfile({ netDim: [64, 128], batchSize: 512 }, limits);
    expect(untouched.notes).toEqual([]);
    expect(untouched.params).toEqual({ netDim: [64, 128], batchSize: 512 });
  });
});

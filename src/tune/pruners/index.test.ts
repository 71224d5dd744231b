import { describe, expect, it } from 'vitest';
import { trialRecord } from '../../storage/records.js';
import {
  HyperbandPruner,
  MedianPruner,
  NopPruner,
  PercentilePruner,
  SuccessiveHalvingPruner,
  createPruner,
  describePruner,
  parsePrunerSpec,
} from './index.js';

describe('createPruner', () => {
  it('builds each pruner type from its spec', () => {
    expect(createPruner({ type: 'nop' })).toBeInstanceOf(NopPruner);
    expect(createPruner({ type: 'median', nStartupTrials: 3 })).toBeInstanceOf(MedianPruner);
    expect(createPruner({ type: 'percentile', percentile: 25 })).toBeInstanceOf(PercentilePruner);
    expect(createPruner({ type: 'successive-halving' })).toBeInstanceOf(SuccessiveHalvingPruner);
    expect(createPruner({ type: 'hyperband', maxResource: 81 })).toBeInstanceOf(HyperbandPruner);
  });

  it('passes the options on', () => {
    expect(describePruner({ type: 'median', nStartupTrials: 3, nWarmupSteps: 10 })).toBe(
      'median (3 startup trials, 10 warm-up steps, interval 1, min 1 trials per step)',
    );
    expect(describePruner({ type: 'percentile', percentile: 25, intervalSteps: 5 })).toBe(
      'percentile 25 (5 startup trials, 0 warm-up steps, interval 5, min 1 trials per step)',
    );
    expect(describePruner({ type: 'hyperband', maxResource: 81, reductionFactor: 3 })).toBe(
      'hyperband (min resource 1, max resource 81, reduction factor 3)',
    );
  });

  it('rejects a value out of range with INVALID_ARGUMENT and a hint', () => {
    expect(() => createPruner({ type: 'median', intervalSteps: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => createPruner({ type: 'median', intervalSteps: 0 })).toThrow(
      expect.objectContaining({
        hint: 'Set intervalSteps to 1 or more, or leave it out for the default.',
      }),
    );
  });

  it('never prunes with nop', () => {
    const pruner = createPruner({ type: 'nop' });
    expect(pruner.description).toBe('nop (never prunes)');
    const trial = trialRecord({ number: 0, intermediate: { 0: NaN } });
    expect(pruner.shouldPrune({ direction: 'minimize', trials: [], trial, step: 0 })).toBe(false);
  });
});

describe('parsePrunerSpec', () => {
  it('accepts JSON specs and round-trips them', () => {
    const spec = parsePrunerSpec(JSON.parse('{"type":"successive-halving","minResource":"auto"}'));
    expect(spec).toEqual({ type: 'successive-halving', minResource: 'auto' });
    expect(parsePrunerSpec({ type: 'median' })).toEqual({ type: 'median' });
  });

  it('names an unknown type, the known ones and the likely one', () => {
    expect(() => parsePrunerSpec({ type: 'medain' })).toThrow(
      /unknown pruner type "medain"; known: nop, median, .*did you mean median\?/,
    );
    expect(() => parsePrunerSpec({})).toThrow(/unknown pruner type \(missing\)/);
    expect(() => parsePrunerSpec('median')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('names a bad or unknown option', () => {
    expect(() => parsePrunerSpec({ type: 'percentile' })).toThrow(/percentile pruner: percentile/);
    expect(() => parsePrunerSpec({ type: 'median', nStartupTrials: '5' })).toThrow(
      /nStartupTrials/,
    );
    expect(() => parsePrunerSpec({ type: 'median', nStartup: 5 })).toThrow(/nStartup/);
  });
});

import { describe, expect, it } from 'vitest';
import { describeComponents } from './study-components.js';

describe('describeComponents', () => {
  it('describes the stored sampler and pruner specs', () => {
    const described = describeComponents({
      sampler: { type: 'random', seed: 7 },
      pruner: { type: 'nop' },
    });
    expect(described.sampler).toBe('random (seed 7)');
    expect(described.pruner).toMatch(/nop|none/i);
  });

  it('describes the defaults (tpe, median) when a study stores no specs', () => {
    const described = describeComponents({});
    expect(described.sampler).toMatch(/^tpe/);
    expect(described.pruner).toMatch(/^median/);
  });

  it('says a spec is unreadable instead of failing', () => {
    const described = describeComponents({ sampler: { type: 'cmaes' } });
    expect(described.sampler).toMatch(/^unreadable spec \(unknown sampler type "cmaes"/);
  });
});

import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.js';
import { isTradelabError } from '../../core/index.js';
import type { Distribution } from '../../storage/records.js';
import { contains } from '../distributions.js';
import { RandomSampler, nameStream } from './random-sampler.js';
import { randomDistribution, samplerContext } from './sampler-test-support.js';

describe('RandomSampler', () => {
  it('is deterministic per seed, trial and name, whatever the asking order', () => {
    const dist: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };
    const a = new RandomSampler({ seed: 7 });
    const b = new RandomSampler({ seed: 7 });
    const x1 = a.sampleIndependent(samplerContext([], 3), 'x', dist);
    const y1 = a.sampleIndependent(samplerContext([], 3), 'y', dist);
    const y2 = b.sampleIndependent(samplerContext([], 3), 'y', dist);
    const x2 = b.sampleIndependent(samplerContext([], 3), 'x', dist);
    expect(x1).toBe(x2);
    expect(y1).toBe(y2);
    expect(x1).not.toBe(y1);
    expect(a.sampleIndependent(samplerContext([], 4), 'x', dist)).not.toBe(x1);
    expect(
      new RandomSampler({ seed: 8 }).sampleIndependent(samplerContext([], 3), 'x', dist),
    ).not.toBe(x1);
  });

  it('always returns a value inside the distribution', () => {
    const rng = new Rng(99);
    const sampler = new RandomSampler({ seed: 1 });
    for (let i = 0; i < 3000; i++) {
      const dist = randomDistribution(rng);
      const value = sampler.sampleIndependent(samplerContext([], i), `p${i % 7}`, dist);
      expect(contains(dist, value), `${JSON.stringify(dist)} → ${String(value)}`).toBe(true);
    }
  });

  it('is uniform on the sampling scale', () => {
    const sampler = new RandomSampler({ seed: 2 });
    const n = 4000;
    const lin: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };
    const log: Distribution = { type: 'float', low: 1e-4, high: 1, log: true, step: null };
    const int: Distribution = { type: 'int', low: 0, high: 3, log: false, step: 1 };
    let mean = 0;
    let below = 0;
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      mean += (sampler.sampleIndependent(samplerContext([], i), 'a', lin) as number) / n;
      if ((sampler.sampleIndependent(samplerContext([], i), 'b', log) as number) < 1e-2) below++;
      const k = sampler.sampleIndependent(samplerContext([], i), 'c', int) as number;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect(mean).toBeCloseTo(0.5, 1);
    expect(below / n).toBeCloseTo(0.5, 1); // 1e-2 is the log-scale midpoint
    for (const c of counts) expect(c / n).toBeCloseTo(0.25, 1); // end points as likely as inner ones
  });

  it('rejects a seed that is not an integer', () => {
    try {
      new RandomSampler({ seed: 1.5 });
      expect.unreachable();
    } catch (error) {
      expect(isTradelabError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('hashes names to distinct streams', () => {
    expect(nameStream('lr')).not.toBe(nameStream('rl'));
    expect(nameStream('x')).toBe(nameStream('x'));
  });
});

import { describe, expect, it } from 'vitest';
import { Rng } from '../../data/synth/random.js';
import { isTradelabError } from '../../errors/index.js';
import type { Distribution, TrialRecord } from '../../storage/records.js';
import { contains } from '../distributions.js';
import type { SamplerContext } from '../sampler.js';
import { RandomSampler, nameStream } from './random-sampler.js';

function trialRecord(number: number, state: TrialRecord['state'] = 'running'): TrialRecord {
  return {
    id: number,
    studyId: 1,
    number,
    state,
    params: {},
    distributions: {},
    value: null,
    intermediate: {},
    userAttrs: {},
    createdAt: 0,
    startedAt: 0,
    finishedAt: null,
    heartbeatAt: null,
    workerId: null,
    retryOf: null,
    failReason: null,
  };
}

function context(number: number): SamplerContext {
  return { direction: 'minimize', trials: [], trial: trialRecord(number) };
}

/** A random valid distribution of any kind (float, log, step, int, log-int, categorical). */
function randomDistribution(rng: Rng): Distribution {
  const kind = Math.floor(rng.uniform() * 6);
  const low = Math.round((rng.uniform() - 0.5) * 200) / 4;
  const width = 1 + Math.floor(rng.uniform() * 40);
  switch (kind) {
    case 0:
      return { type: 'float', low, high: low + width * rng.uniform(), log: false, step: null };
    case 1: {
      const l = 1e-4 * (1 + rng.uniform() * 100);
      return { type: 'float', low: l, high: l * (1 + width * 10), log: true, step: null };
    }
    case 2:
      return { type: 'float', low, high: low + width * 0.25, log: false, step: 0.25 };
    case 3: {
      const step = 1 + Math.floor(rng.uniform() * 3);
      const lo = Math.round(low);
      return { type: 'int', low: lo, high: lo + width * step, log: false, step };
    }
    case 4:
      return {
        type: 'int',
        low: 1 + Math.floor(rng.uniform() * 5),
        high: 10 + width * 20,
        log: true,
        step: 1,
      };
    default:
      return {
        type: 'categorical',
        choices: ['a', 1, true, null, 2.5, 'b'].slice(0, 1 + Math.floor(rng.uniform() * 6)),
      };
  }
}

describe('RandomSampler', () => {
  it('is deterministic per seed, trial and name, whatever the asking order', () => {
    const dist: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };
    const a = new RandomSampler({ seed: 7 });
    const b = new RandomSampler({ seed: 7 });
    const x1 = a.sampleIndependent(context(3), 'x', dist);
    const y1 = a.sampleIndependent(context(3), 'y', dist);
    const y2 = b.sampleIndependent(context(3), 'y', dist);
    const x2 = b.sampleIndependent(context(3), 'x', dist);
    expect(x1).toBe(x2);
    expect(y1).toBe(y2);
    expect(x1).not.toBe(y1);
    expect(a.sampleIndependent(context(4), 'x', dist)).not.toBe(x1);
    expect(new RandomSampler({ seed: 8 }).sampleIndependent(context(3), 'x', dist)).not.toBe(x1);
  });

  it('always returns a value inside the distribution', () => {
    const rng = new Rng(99);
    const sampler = new RandomSampler({ seed: 1 });
    for (let i = 0; i < 3000; i++) {
      const dist = randomDistribution(rng);
      const value = sampler.sampleIndependent(context(i), `p${i % 7}`, dist);
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
      mean += (sampler.sampleIndependent(context(i), 'a', lin) as number) / n;
      if ((sampler.sampleIndependent(context(i), 'b', log) as number) < 1e-2) below++;
      const k = sampler.sampleIndependent(context(i), 'c', int) as number;
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

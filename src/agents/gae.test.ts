import { describe, expect, it } from 'vitest';
import { computeGae, type GaeInput } from './gae.js';

/** A one-env rollout from per-step lists. */
function rollout(
  rewards: number[],
  values: number[],
  lastValue: number,
  flags: { term?: number[]; trunc?: number[]; invalid?: number[] } = {},
  gamma = 0.9,
  lambda = 0.8,
): GaeInput {
  const n = rewards.length;
  const mark = (steps: number[] | undefined, on: number): Uint8Array => {
    const out = new Uint8Array(n).fill(on === 1 ? 0 : 1);
    for (const t of steps ?? []) out[t] = on;
    return out;
  };
  return {
    nEnvs: 1,
    rewards: Float32Array.from(rewards),
    values: Float32Array.from(values),
    lastValues: Float32Array.of(lastValue),
    terminations: mark(flags.term, 1),
    truncations: mark(flags.trunc, 1),
    valid: mark(flags.invalid, 0),
    gamma,
    lambda,
  };
}

describe('GAE', () => {
  it('matches the textbook recursion without episode ends', () => {
    const { advantages, returns } = computeGae(rollout([1, 2, 3], [0.5, 0.4, 0.3], 0.2));
    const d2 = 3 + 0.9 * 0.2 - 0.3;
    const d1 = 2 + 0.9 * 0.3 - 0.4;
    const d0 = 1 + 0.9 * 0.4 - 0.5;
    const a2 = d2;
    const a1 = d1 + 0.72 * a2;
    const a0 = d0 + 0.72 * a1;
    expect([...advantages].map((v) => +v.toFixed(5))).toEqual(
      [a0, a1, a2].map((v) => +v.toFixed(5)),
    );
    expect(returns[0]).toBeCloseTo(a0 + 0.5, 5);
  });

  it('does not bootstrap after a termination, and stops the chain there', () => {
    // Step 1 terminates; step 2 is the autoreset step (invalid); step 3 starts a new episode.
    const input = rollout([1, 2, 0, 4], [0.5, 0.4, 9, 0.3], 0.2, { term: [1], invalid: [2] });
    const { advantages } = computeGae(input);
    expect(advantages[1]).toBeCloseTo(2 - 0.4, 5);
    expect(advantages[0]).toBeCloseTo(1 + 0.9 * 0.4 - 0.5 + 0.72 * (2 - 0.4), 5);
    expect(advantages[2]).toBe(0);
    expect(advantages[3]).toBeCloseTo(4 + 0.9 * 0.2 - 0.3, 5);
  });

  it('bootstraps a truncation from the final observation (the next row) and stops the chain', () => {
    // Step 1 is truncated; the env returns the final obs, whose value (9) sits in row 2.
    const { advantages } = computeGae(
      rollout([1, 2, 0, 4], [0.5, 0.4, 9, 0.3], 0.2, { trunc: [1], invalid: [2] }),
    );
    expect(advantages[1]).toBeCloseTo(2 + 0.9 * 9 - 0.4, 5);
    expect(advantages[0]).toBeCloseTo(1 + 0.9 * 0.4 - 0.5 + 0.72 * (advantages[1] ?? 0), 5);
  });

  it('keeps envs apart in a time-major layout', () => {
    const a = rollout([1, 2, 3], [0.1, 0.2, 0.3], 0.5, { term: [0] });
    const b = rollout([-1, 0.5, 2], [0.3, 0.1, 0.2], -0.4);
    const interleave = <T extends Float32Array | Uint8Array>(x: T, y: T): T => {
      const out = new (x.constructor as new (n: number) => T)(x.length * 2);
      for (let t = 0; t < x.length; t++) {
        out[2 * t] = x[t] as number;
        out[2 * t + 1] = y[t] as number;
      }
      return out;
    };
    const both = computeGae({
      ...a,
      nEnvs: 2,
      rewards: interleave(a.rewards, b.rewards),
      values: interleave(a.values, b.values),
      lastValues: Float32Array.of(0.5, -0.4),
      terminations: interleave(a.terminations, b.terminations),
      truncations: interleave(a.truncations, b.truncations),
      valid: interleave(a.valid, b.valid),
    });
    const alone = [computeGae(a), computeGae(b)];
    for (let t = 0; t < 3; t++)
      for (let e = 0; e < 2; e++)
        expect(both.advantages[2 * t + e]).toBeCloseTo(alone[e]?.advantages[t] ?? NaN, 6);
  });
});

import { describe, expect, it } from 'vitest';
import { PPO_DEFAULTS } from '../agents/index.js';
import { createProfileRegistry } from '../profiles/index.js';
import { memoryShortfall, workerThreads, type DrlWorkerSettings } from './drl-worker-objective.js';
import type { TrialShape } from './drl-objective.js';

const GIB = 2 ** 30;

/** The budget of a CPU machine with `gib` of free memory. */
function hostBudget(gib: number): Pick<DrlWorkerSettings, 'budget'> {
  return {
    budget: {
      profile: createProfileRegistry().resolve('cpu'),
      backend: 'wasm',
      memory: { kind: 'host', totalBytes: gib * GIB, freeBytes: gib * GIB, freeSource: 'test' },
      safetyFactor: 0.85,
    },
  };
}

const shape = (netDim: number): TrialShape => ({
  ppo: { ...PPO_DEFAULTS, netDim },
  obsDim: 37,
  assets: 2,
  features: 17,
  bars: 6000,
  lookback: 1,
});

describe("a trading trial's memory check", () => {
  it('judges memory only: more workers than CPU cores fit when the memory does', () => {
    // 8 workers on this (2-core) machine with 20 GiB free: a small model fits, whatever the cores.
    expect(memoryShortfall(hostBudget(20), 8, shape(128))).toBeUndefined();
  });

  it('fails a trial whose workers do not fit in memory, saying how much each needs', () => {
    const why = memoryShortfall(hostBudget(1), 8, shape(2048));
    expect(why).toMatch(/netDim 2048, .* [GM]iB per worker; 8 workers do not fit/);
  });
});

describe("an FT-Transformer trial's memory check", () => {
  it('counts the attention scores only where the kernels hold them', () => {
    // 150 observation values: 151 tokens, a 151 × 151 score matrix per head, block and sample.
    const ft: TrialShape = {
      ...shape(128),
      obsDim: 150,
      ppo: { ...PPO_DEFAULTS, netDim: 128, policy: 'ft_transformer', batchSize: 512 },
    };
    const tfjs = memoryShortfall(hostBudget(8), 4, ft);
    expect(tfjs).toMatch(/[GM]iB per worker; 4 workers do not fit/);
    expect(memoryShortfall(hostBudget(8), 4, ft, { fusedAttention: true })).toBeUndefined();
  });
});

describe("a trading worker's native threads", () => {
  it('shares the cores out among the workers, at least one each', () => {
    expect(workerThreads(1, 16)).toBe(16);
    expect(workerThreads(2, 16)).toBe(8);
    expect(workerThreads(3, 16)).toBe(5);
    expect(workerThreads(16, 16)).toBe(1);
    expect(workerThreads(40, 16)).toBe(1);
    expect(workerThreads(1, 2)).toBe(2);
  });
});

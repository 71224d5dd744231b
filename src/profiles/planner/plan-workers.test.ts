import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../../core/index.js';
import { createProfileRegistry } from '../profile-registry.js';
import { GIB, MIB } from './format-bytes.js';
import { mlpParamCount, mlpTrainingElementsPerSample, mlpUnitsPerSample } from './mlp-size.js';
import { ENV_FLOATS, ENV_WORD_BLOCKS } from '../../gpu/kernels/trading-env-step.js';
import { HEARTBEAT_SLOTS } from '../../tune/heartbeat.js';
import {
  MAX_TRIALS_PER_PROCESS,
  planWorkers,
  RESIDENT_ENV_SCALARS,
  type PlanInput,
} from './plan-workers.js';
import {
  SEED_TCN_SHAPE,
  tcnElementsPerBar,
  tcnEngineElementsPerBar,
  tcnEngineElementsPerChunk,
  tcnParamCount,
} from './tcn-size.js';

const registry = createProfileRegistry();
const profile = (name: string) => registry.resolve(name);

// A model small enough to size by hand: obs 4, act 2, two hidden layers of 8.
const tiny = { kind: 'mlp' as const, obsDim: 4, actDim: 2, netDim: 8, layers: 2 };

const base: PlanInput = {
  profile: profile('rtx_3070'),
  workload: 'drl',
  model: tiny,
  batchSize: 100,
  nEnvs: 10,
  targetStep: 1000,
  dataset: { bars: 100, assets: 2, features: 3 },
  backend: 'webgpu',
  memory: { kind: 'gpu', totalBytes: 8 * GIB },
  cpuCores: 4,
  safetyFactor: 0.85,
};

describe('mlp sizes', () => {
  it('counts parameters of actor and critic by hand', () => {
    // hidden stack: 4·8 + 8 + (8·8 + 8) = 112; actor: + 8·2 + 2 + 2 log-std = 132; critic: + 8 + 1 = 121.
    expect(mlpParamCount(tiny)).toBe(253);
    // ElegantRL-shaped default: obs 81, act 10, 3 × 1024.
    expect(mlpParamCount({ obsDim: 81, actDim: 10, netDim: 1024, layers: 3 })).toBe(4_377_621);
  });
  it('counts activation elements per training sample', () => {
    expect(mlpUnitsPerSample(tiny)).toBe(2 * 2 * 8 + 2 + 1);
    expect(mlpTrainingElementsPerSample(tiny)).toBe(2 * 35 + 4);
  });
});

describe('planWorkers', () => {
  it('plans resident trials: one trial per term, the context and dataset once, no core limit', () => {
    const plan = planWorkers({
      ...base,
      backend: 'gpu',
      residentTrials: true,
      repeatTimes: 2,
      cpuCores: 1,
      memory: { kind: 'gpu', totalBytes: 1 * GIB },
    });
    const bytes = Object.fromEntries(plan.perWorker.map((t) => [t.label, t.bytes]));
    // 1000 rows (100 steps of 10 envs): 2 copies of (4 obs + 2 act + 4) + 7 per step + 2 passes.
    expect(bytes).toEqual({
      weights: 253 * 4,
      gradients: 253 * 4,
      'Adam state': 253 * 8,
      activations: 100 * 74 * 4,
      'rollout forward pass': 10 * 39 * 4,
      'rollout on the card': 1000 * (2 * 10 + 7 + 2) * 4 + 100 * 256,
      'minibatch gather': 100 * (2 + 4) * 4 + 2 * 10 * 256,
      'env state': 10 * (17 + 3 * 2 + 4 + 3) * 4,
    });
    expect(Object.fromEntries(plan.shared.map((t) => [t.label, t.bytes]))).toEqual({
      'framework/context': 256 * MIB,
      'dataset on the card': 100 * 2 * (8 + 3 * 4),
    });
    const perTrial = plan.perWorkerBytes;
    const byMemory = Math.floor((0.85 * GIB - plan.sharedBytes) / perTrial);
    // Not the profile's maxWorkers: that counts processes, each with its own context.
    expect(plan.limits.map((l) => [l.by, l.workers])).toEqual([
      ['memory', byMemory],
      ['trialsPerProcess', HEARTBEAT_SLOTS],
    ]);
    expect(plan.workers).toBe(Math.min(byMemory, HEARTBEAT_SLOTS));
    expect(plan.trialsPerProcess).toBe(plan.workers);
    // Without the flag, or off the engine, nothing changes: one trial per worker, cores count.
    const plain = planWorkers({ ...base, backend: 'gpu' });
    expect(plain.shared).toEqual([]);
    expect(plain.trialsPerProcess).toBe(1);
    expect(plain.limits.some((l) => l.by === 'cpuCores')).toBe(true);
    expect(planWorkers({ ...base, residentTrials: true }).trialsPerProcess).toBe(1);
    // The env's per-env fields as the kernel lays them out (beside 2 × assets holdings blocks).
    expect(RESIDENT_ENV_SCALARS).toBe(ENV_FLOATS.holdings + ENV_WORD_BLOCKS);
    expect(MAX_TRIALS_PER_PROCESS).toBe(HEARTBEAT_SLOTS);
  });

  it('sums hand-computed terms and caps by the profile', () => {
    const plan = planWorkers(base);
    const bytes = Object.fromEntries(plan.perWorker.map((t) => [t.label, t.bytes]));
    expect(bytes).toEqual({
      'framework/context': 512 * MIB,
      weights: 253 * 4,
      gradients: 253 * 4,
      'Adam state': 253 * 8,
      activations: 100 * 74 * 4,
      'rollout forward pass': 10 * 39 * 4,
      'rollout buffer': 1000 * (2 * 4 + 2 + 3) * 4,
      'dataset arrays': 100 * 2 * (8 + 3 * 4),
    });
    expect(plan.perWorkerBytes).toBe(536_870_912 + 91_208);
    expect(plan.usable.bytes).toBeCloseTo(8 * GIB * 0.85, 3);
    const memoryLimit = plan.limits.find((l) => l.by === 'memory');
    expect(memoryLimit?.workers).toBe(13);
    // rtx_3070's drl.maxWorkers is 1 (seed 000: one worker per study on 8 GB).
    expect(plan.workers).toBe(1);
    expect(plan.limitedBy).toBe('maxWorkers');
    expect(plan.fits).toBe(true);
  });

  it('shows its arithmetic in every term', () => {
    const plan = planWorkers(base);
    const formula = (label: string) => plan.perWorker.find((t) => t.label === label)?.formula ?? '';
    expect(formula('weights')).toContain('253 params');
    expect(formula('weights')).toContain('× 4 B');
    expect(formula('rollout buffer')).toContain('targetStep 1,000');
    expect(formula('activations')).toContain('batch 100');
    expect(plan.usable.formula).toBe('8.00 GiB VRAM × 0.85');
  });

  it('takes detected free memory when it is lower than total × safety factor', () => {
    const plan = planWorkers({
      ...base,
      profile: profile('rtx_4090'),
      memory: { kind: 'gpu', totalBytes: 24 * GIB, freeBytes: GIB, freeSource: 'nvidia-smi GPU 0' },
    });
    expect(plan.usable.bytes).toBe(GIB);
    expect(plan.usable.formula).toContain('1.00 GiB free per nvidia-smi GPU 0');
    // Two workers need 2 × 536,962,120 B > 1 GiB.
    expect(plan.workers).toBe(1);
    expect(plan.limitedBy).toBe('memory');
  });

  it('caps by CPU cores, and reports a requested count that does not fit', () => {
    const big = {
      ...base,
      profile: profile('rtx_4090'),
      memory: { kind: 'gpu' as const, totalBytes: 24 * GIB },
    };
    expect(planWorkers({ ...big, cpuCores: 2 })).toMatchObject({
      workers: 2,
      limitedBy: 'cpuCores',
      fits: true,
    });
    expect(planWorkers({ ...big, requestedWorkers: 3 })).toMatchObject({
      workers: 3,
      limitedBy: 'requested',
      fits: true,
    });
    expect(planWorkers({ ...big, requestedWorkers: 8 })).toMatchObject({
      workers: 4,
      limitedBy: 'cpuCores',
      fits: false,
    });
  });

  it('reports zero workers when one does not fit', () => {
    const plan = planWorkers({
      ...base,
      model: { kind: 'mlp', obsDim: 81, actDim: 10, netDim: 4096, layers: 3 },
      batchSize: 65536,
    });
    expect(plan.workers).toBe(0);
    expect(plan.limitedBy).toBe('memory');
    expect(plan.fits).toBe(false);
  });

  it('plans the cpu profile against host memory and stops a wasm worker at 4 GiB', () => {
    const host = { kind: 'host' as const, totalBytes: 64 * GIB, freeBytes: 60 * GIB };
    const small = planWorkers({ ...base, profile: profile('cpu'), backend: 'wasm', memory: host });
    expect(small.memoryKind).toBe('host');
    expect(small.perWorker[0]).toMatchObject({ label: 'framework/context', bytes: 160 * MIB });
    expect(small.workers).toBe(4);
    const huge = planWorkers({
      ...base,
      profile: profile('cpu'),
      backend: 'wasm',
      memory: host,
      model: { kind: 'mlp', obsDim: 81, actDim: 10, netDim: 2048, layers: 3 },
      batchSize: 65536,
    });
    expect(huge.perWorkerBytes).toBeGreaterThan(4 * GIB);
    expect(huge).toMatchObject({ workers: 0, limitedBy: 'wasm32', fits: false });
  });

  it('sizes half precision with float32 master weights and Adam moments', () => {
    const plan = planWorkers({ ...base, dtype: 'bfloat16' });
    const bytes = Object.fromEntries(plan.perWorker.map((t) => [t.label, t.bytes]));
    expect(bytes.weights).toBe(253 * 2);
    expect(bytes.gradients).toBe(253 * 2);
    expect(bytes['float32 master weights']).toBe(253 * 4);
    expect(bytes['Adam state']).toBe(253 * 8);
    expect(bytes.activations).toBe(100 * 74 * 2);
  });

  it('uses measured memory in place of estimates', () => {
    const context = planWorkers({
      ...base,
      measured: { contextBytes: 300 * MIB, source: 'bench' },
    });
    expect(context.perWorker[0]).toMatchObject({ bytes: 300 * MIB, formula: 'measured (bench)' });
    const whole = planWorkers({ ...base, measured: { perWorkerBytes: 2 * GIB } });
    expect(whole.perWorker).toHaveLength(1);
    expect(whole.perWorkerBytes).toBe(2 * GIB);
  });

  it("plans forecasting from the profile's memory per model (seed 004)", () => {
    const plan = planWorkers({
      profile: profile('rtx_4090'),
      workload: 'forecast',
      timeframe: '1h',
      backend: 'webgpu',
      memory: { kind: 'gpu', totalBytes: 24 * GIB },
      cpuCores: 16,
    });
    expect(plan.batchSize).toBe(768);
    expect(plan.perWorker.map((t) => t.label)).toEqual([
      'framework/context',
      'model (from profile)',
    ]);
    // 12 GB + 0.5 GiB context per model: one fits in 24 GB × 0.85, not the seed's two.
    expect(plan.workers).toBe(1);
    expect(plan.limitedBy).toBe('memory');
  });

  it("caps by the profile's max workers on its card only: on the host the cores and RAM decide", () => {
    const host = { kind: 'host' as const, totalBytes: 64 * GIB };
    // rtx_3070's drl.maxWorkers is 1: it counts workers on its 8 GB card.
    const onCard = planWorkers({ ...base, cpuCores: 8 });
    expect(onCard).toMatchObject({ device: 'gpu', workers: 1, limitedBy: 'maxWorkers' });
    for (const backend of ['wasm', 'cpu'] as const) {
      const onHost = planWorkers({ ...base, backend, memory: host, cpuCores: 8 });
      expect(onHost).toMatchObject({ device: 'host', workers: 8, limitedBy: 'cpuCores' });
      expect(onHost.limits.map((l) => l.by)).not.toContain('maxWorkers');
      expect(onHost.limits.find((l) => l.by === 'cpuCores')?.detail).toContain(
        `not on the card: profile rtx_3070's drl.maxWorkers 1 is for its card`,
      );
    }
  });

  it("plans forecasting on the host by the set's model, not the card's memory per model", () => {
    const model = { kind: 'tcn' as const, ...SEED_TCN_SHAPE, hidden: 32, layers: 4, chunkLen: 64 };
    const forecast = { profile: profile('rtx_4090'), workload: 'forecast' as const, cpuCores: 4 };
    const host = { kind: 'host' as const, totalBytes: 64 * GIB };
    const plan = planWorkers({ ...forecast, backend: 'wasm', memory: host, model });
    expect(plan.perWorker.map((t) => t.label)).not.toContain('model (from profile)');
    expect(plan.perWorkerBytes).toBeLessThan(GIB);
    expect(plan).toMatchObject({ workers: 4, limitedBy: 'cpuCores', fits: true });
    // On the card, seed 004's 12 GB a model, whatever model is given.
    const card = planWorkers({
      ...forecast,
      backend: 'webgpu',
      memory: { kind: 'gpu', totalBytes: 24 * GIB },
      model,
    });
    expect(card.perWorker.map((t) => t.label)).toContain('model (from profile)');
    // No model on the host: the card's figure is not taken for it.
    expect(() => planWorkers({ ...forecast, backend: 'wasm', memory: host })).toThrow(
      /needs its model: profile rtx_4090's memoryPerModelGb is for tfjs's webgpu on its card/,
    );
  });

  it("plans TCN pretraining with seed 003's model, checkpointed, that fits every profile's own chunks", () => {
    const plan = planWorkers({
      profile: profile('rtx_5080'),
      workload: 'tcn',
      backend: 'webgpu',
      memory: { kind: 'gpu', totalBytes: 16 * GIB },
      cpuCores: 16,
    });
    expect(plan.batchSize).toBe(200);
    expect(plan.paramCount).toBe(tcnParamCount(SEED_TCN_SHAPE));
    expect(plan.paramCount).toBeGreaterThan(18e6);
    expect(plan.workers).toBe(1);
    // No DRL dataset term, and the activations term says how it was computed.
    expect(plan.perWorker.map((t) => t.label)).not.toContain('dataset arrays');
    const activations = plan.perWorker.find((t) => t.label === 'activations');
    expect(activations?.bytes).toBe(200 * 512 * tcnElementsPerBar(SEED_TCN_SHAPE) * 4);
    expect(activations?.formula).toMatch(/checkpointed/);
    // Every built-in GPU profile fits one worker of its own default chunks on its card (the
    // issue: h100 and five others did not, 70.6 GiB against 68 usable).
    const registry = createProfileRegistry();
    for (const p of registry.all().filter((q) => q.vendor !== 'cpu')) {
      const own = planWorkers({
        profile: p,
        workload: 'tcn',
        backend: 'webgpu',
        memory: { kind: 'gpu', totalBytes: p.vramGb * GIB },
        cpuCores: 16,
      });
      expect({ profile: p.name, fits: own.fits }).toEqual({ profile: p.name, fits: true });
    }
    // Without checkpointing the H100's 1,500 chunks do not fit: 11·12·512 elements a bar of 512.
    const h100 = planWorkers({
      profile: profile('h100'),
      workload: 'tcn',
      backend: 'webgpu',
      memory: { kind: 'gpu', totalBytes: 80 * GIB },
      cpuCores: 16,
      model: { kind: 'tcn', ...SEED_TCN_SHAPE, checkpoint: false },
    });
    expect(h100.fits).toBe(false);
  });

  it("plans the TCN on the engine by the engine's own buffers, on the card", () => {
    const onEngine = (checkpoint: boolean) =>
      planWorkers({
        profile: profile('rtx_5080'),
        workload: 'tcn',
        backend: 'gpu',
        memory: { kind: 'gpu', totalBytes: 16 * GIB },
        cpuCores: 16,
        model: { kind: 'tcn', ...SEED_TCN_SHAPE, checkpoint },
      });
    const checkpointed = onEngine(true);
    expect(checkpointed).toMatchObject({ device: 'gpu', batchSize: 200, workers: 1 });
    const shape = { ...SEED_TCN_SHAPE, checkpoint: true };
    // 12 block outputs + 2 recomputed + 1 residual (4 features → 512) + 6 of the backward.
    expect(tcnEngineElementsPerBar(shape)).toBe(21 * 512 + 4);
    const term = (plan: typeof checkpointed, label: string) =>
      plan.perWorker.find((t) => t.label === label);
    expect(term(checkpointed, 'activations')?.bytes).toBe(
      200 * (512 * tcnEngineElementsPerBar(shape) + tcnEngineElementsPerChunk(shape)) * 4,
    );
    expect(term(checkpointed, 'step transients')?.bytes).toBe(tcnParamCount(shape) * 16);
    expect(term(checkpointed, 'step transients')?.formula).toMatch(/engine's buffers/);
    // Without checkpointing every block keeps its two convolutions' outputs: 2·12 − 2 more a bar.
    const plain = onEngine(false);
    expect(
      (term(plain, 'activations')?.bytes ?? 0) - (term(checkpointed, 'activations')?.bytes ?? 0),
    ).toBe(200 * 512 * 22 * 512 * 4);
    // A forecasting set of TCNs is on the card with its model's terms; window MLPs stay on the host.
    const forecast = {
      profile: profile('rtx_4090'),
      workload: 'forecast' as const,
      backend: 'gpu' as const,
      memory: { kind: 'gpu' as const, totalBytes: 24 * GIB },
      cpuCores: 4,
    };
    const tcnSet = planWorkers({
      ...forecast,
      model: { kind: 'tcn', ...SEED_TCN_SHAPE, hidden: 32, layers: 4, chunkLen: 64 },
    });
    expect(tcnSet.device).toBe('gpu');
    expect(tcnSet.perWorker.map((t) => t.label)).not.toContain('model (from profile)');
    const mlpSet = planWorkers({
      ...forecast,
      memory: { kind: 'host', totalBytes: 64 * GIB },
      model: { kind: 'params', paramCount: 1000, activationsPerSample: 10 },
    });
    expect(mlpSet.device).toBe('host');
  });

  it('rejects a non-positive batch size and a drl plan without a model', () => {
    const error = (() => {
      try {
        planWorkers({ ...base, batchSize: 0 });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isTradelabError(error, 'INVALID_ARGUMENT')).toBe(true);
    const { model: _model, ...withoutModel } = base;
    expect(() => planWorkers(withoutModel)).toThrow(/needs a model/);
  });
});

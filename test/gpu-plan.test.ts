import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResidentPpo } from '../src/agents/gpu-resident-ppo.js';
import { useBackend } from '../src/compute/backends.js';
import { syntheticMarket } from '../src/env/index.js';
import {
  openGpuDevice,
  PpoUpdateProgram,
  TcnStepProgram,
  type GpuDevice,
} from '../src/gpu/index.js';
import { jsonLines, runCliInProcess } from './support/run-cli.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * The planner's VRAM terms for a PPO worker on the engine (`profiles plan --backend gpu`) against
 * what the engine really allocates for the same networks, minibatch and rollout: every buffer of
 * the update program, counted by GpuDevice.allocatedBytes (building a program allocates, it does
 * not compute, so seed 000's RTX 3070 configuration is cheap to check on lavapipe). The plan's
 * terms (without its context estimate, which only a GPU can measure) must cover the allocation and
 * not overstate it by more than a quarter. The TCN's terms are counted from the step program's
 * buffers, so they must match its allocation to the kernels' uniforms (64 KiB).
 */

const found = await gpuTestAdapter('test/gpu-plan.test.ts');

interface Plan {
  batchSize: number;
  targetStep: number;
  nEnvs: number;
  perWorker: { label: string; bytes: number; formula: string }[];
  shared: { label: string; bytes: number; formula: string }[];
  trialsPerProcess: number;
}

describe.skipIf(!found)("the planner's terms for the GPU engine", { timeout: 120_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  for (const flags of [[], ['--net-dim', '256', '--batch-size', '4096']])
    it(`covers what the engine allocates for rtx_3070 ${flags.join(' ') || "(seed 000's configuration)"}`, async () => {
      const planned = await runCliInProcess([
        'profiles',
        'plan',
        '--profile',
        'rtx_3070',
        '--backend',
        'gpu',
        '--no-detect',
        '--json',
        ...flags,
      ]);
      expect(planned.code, planned.stderr).toBe(0);
      const plan = jsonLines(planned.stdout)[0] as unknown as Plan;
      const weights = plan.perWorker.find((t) => t.label === 'weights');
      const shape = /(\d+)×(\d+) hidden, obs (\d+), act (\d+)/.exec(weights?.formula ?? '');
      expect(shape, weights?.formula).not.toBeNull();
      const [layers, netDim, obs, act] = (shape ?? []).slice(1).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      const terms = plan.perWorker
        .filter((t) => t.label !== 'framework/context')
        .reduce((sum, t) => sum + t.bytes, 0);
      const before = gpu.allocatedBytes;
      await PpoUpdateProgram.build(
        gpu,
        {
          stateDim: obs,
          actionDim: act,
          hidden: Array.from({ length: layers }, () => netDim),
          activation: 'relu',
          tanhMean: true,
          rolloutRows: plan.targetStep,
          batchSize: plan.batchSize,
          passes: 8,
          normalizeAdvantages: true,
          clipValueLoss: false,
        },
        {
          ratioClip: 0.2,
          entropyCoef: 0.01,
          valueCoef: 0.5,
          maxGradNorm: 0.5,
          beta1: 0.9,
          beta2: 0.999,
          epsilon: 1e-5,
        },
      );
      const allocated = gpu.allocatedBytes - before;
      expect(allocated).toBeLessThanOrEqual(terms);
      expect(allocated).toBeGreaterThan(0.75 * terms);
    });

  it('covers what a resident trial allocates: env, rollout and update (rtx_3070, seed 000)', async () => {
    const planned = await runCliInProcess([
      'profiles',
      'plan',
      '--profile',
      'rtx_3070',
      '--backend',
      'gpu',
      '--no-detect',
      '--json',
    ]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = jsonLines(planned.stdout)[0] as unknown as Plan;
    expect(plan.trialsPerProcess).toBeGreaterThan(1);
    const weights = plan.perWorker.find((t) => t.label === 'weights');
    const [layers, netDim, obs, act] = (
      /(\d+)×(\d+) hidden, obs (\d+), act (\d+)/.exec(weights?.formula ?? '') ?? []
    )
      .slice(1)
      .map(Number) as [number, number, number, number];
    // The planner's default dataset: 8,615 bars of 10 assets with 7 features, one bar of window.
    const data = syntheticMarket({ assets: act, bars: 8615, features: 7, seed: 1 });
    const dataset = plan.shared.find((t) => t.label === 'dataset on the card');
    expect(dataset).toBeDefined();
    const terms = plan.perWorker.reduce((sum, t) => sum + t.bytes, 0) + (dataset?.bytes ?? 0);
    const before = gpu.allocatedBytes;
    const trial = await ResidentPpo.create(
      gpu,
      data,
      undefined,
      { lookback: 1 },
      {
        netDim,
        layers,
        nEnvs: plan.nEnvs,
        targetStep: plan.targetStep,
        batchSize: plan.batchSize,
      },
    );
    try {
      expect(trial.env.obsDim).toBe(obs);
      const allocated = gpu.allocatedBytes - before;
      expect(allocated).toBeLessThanOrEqual(terms);
      expect(allocated).toBeGreaterThan(0.75 * terms);
    } finally {
      trial.destroy();
    }
  });

  for (const checkpoint of [true, false])
    it(`matches what the engine allocates for a TCN step, checkpointing ${checkpoint ? 'on' : 'off'}`, async () => {
      const planned = await runCliInProcess([
        'profiles',
        'plan',
        '--profile',
        'rtx_5080',
        '--backend',
        'gpu',
        '--workload',
        'tcn',
        '--hidden',
        '64',
        '--layers',
        '6',
        '--chunk-len',
        '128',
        '--batch-size',
        '16',
        ...(checkpoint ? [] : ['--no-checkpoint']),
        '--no-detect',
        '--json',
      ]);
      expect(planned.code, planned.stderr).toBe(0);
      const plan = jsonLines(planned.stdout)[0] as unknown as Plan & { device: string };
      expect(plan.device).toBe('gpu');
      const terms = plan.perWorker
        .filter((t) => t.label !== 'framework/context')
        .reduce((sum, t) => sum + t.bytes, 0);
      const before = gpu.allocatedBytes;
      // Seed 003's 4 features and kernel 3; the planner's head is as wide as the TCN.
      await TcnStepProgram.build(
        gpu,
        {
          inputs: 4,
          hidden: 64,
          layers: 6,
          kernel: 3,
          norm: 'weight',
          pooling: 'last',
          headHidden: 64,
          dropout: 0.1,
          time: 128,
          batch: 16,
          checkpoint,
        },
        { beta1: 0.9, beta2: 0.999, epsilon: 1e-8, maxGradNorm: 1 },
      );
      const allocated = gpu.allocatedBytes - before;
      expect(Math.abs(allocated - terms)).toBeLessThanOrEqual(64 * 1024);
    });
});

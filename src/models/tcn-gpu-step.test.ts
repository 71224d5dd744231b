import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend, nativeConvActive } from '../compute/index.js';
import { Rng } from '../core/random.js';
import { openGpuDevice, type GpuDevice } from '../gpu/index.js';
import { TcnStepProgram, type TcnProgramShape } from '../gpu/tcn-step-program.js';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { Tcn, type TcnConfig } from './tcn.js';
import { TcnTrainer, type TcnBatch } from './tcn-trainer.js';

/*
 * A whole TCN training step on the GPU engine against models/tcn-trainer.ts on the CPU (tfjs on
 * wasm with the native convolution) from the same weights: two micro-batches of uneven size,
 * dropout on (the engine draws the CPU's masks), weight-normalized convolutions, a residual
 * convolution where the width changes, last-step and mean pooling. The loss and the forecasts to
 * 1e-5 relative; every parameter's change to 2% of the learning rate (Adam's first step moves each
 * by about the rate, so its direction and size are what is checked).
 */

const found = await gpuTestAdapter('src/models/tcn-gpu-step.test.ts');

describe.skipIf(!found)('a TCN step on the GPU engine', { timeout: 240_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    await useBackend('wasm');
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  async function compare(config: TcnConfig): Promise<void> {
    expect(nativeConvActive(), 'the native convolution (CI builds it)').toBe(true);
    const time = 12;
    const net = new Tcn(config, `gpu-step-${config.pooling ?? 'last'}`);
    const c = net.config;
    const rng = new Rng(9);
    const batch = (rows: number): TcnBatch => ({
      rows,
      x: Float32Array.from({ length: rows * time * c.inputs }, () => rng.normal()),
      y: Float32Array.from({ length: rows }, () => rng.normal()),
    });
    const batches = [batch(5), batch(4)];
    const shape: TcnProgramShape = {
      inputs: c.inputs,
      hidden: c.hidden,
      layers: c.layers,
      kernel: c.kernel,
      norm: c.norm,
      pooling: c.pooling,
      headHidden: c.headHidden,
      dropout: c.dropout,
      time,
      batch: 5,
    };
    const program = await TcnStepProgram.build(gpu, shape, {
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-8,
      maxGradNorm: 1,
    });
    const named = net.namedVariables();
    const before = new Float32Array(program.size);
    for (const slot of program.slots) {
      const variable = named[slot.name];
      if (variable === undefined) throw new Error(`no variable ${slot.name}`);
      before.set(await variable.data(), slot.offset);
    }
    program.writeState(before, {
      m: new Float32Array(program.size),
      v: new Float32Array(program.size),
      accBeta1: 0.9,
      accBeta2: 0.999,
    });
    const learningRate = 1e-3;
    const trainer = new TcnTrainer(net, { learningRate, checkpoint: false });
    const cpu = trainer.step(batches, 3);
    const engine = await program.step(batches, 3, learningRate);
    expect(Math.abs(engine.loss - cpu.loss), 'loss').toBeLessThanOrEqual(1e-5 * Math.abs(cpu.loss));
    cpu.predictions.forEach((want, i) => {
      expect(
        Math.abs((engine.predictions[i] as number) - want),
        `forecast ${i}`,
      ).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want)));
    });
    const after = await program.readParameters();
    for (const slot of program.slots) {
      const cpuAfter = (await (
        named[slot.name] as NonNullable<(typeof named)[string]>
      ).data()) as Float32Array;
      let worst = 0;
      for (let i = 0; i < slot.size; i++) {
        const start = before[slot.offset + i] as number;
        const moved = (cpuAfter[i] as number) - start;
        const gpuMoved = (after[slot.offset + i] as number) - start;
        worst = Math.max(worst, Math.abs(moved - gpuMoved));
      }
      expect(worst, `${slot.name}: worst difference of a parameter's change`).toBeLessThanOrEqual(
        0.02 * learningRate + 1e-6,
      );
    }
    trainer.dispose();
    net.dispose();
  }

  it('matches the CPU trainer: weight norm, dropout, a residual convolution, last-step pooling', async () => {
    await compare({
      inputs: 3,
      hidden: 8,
      layers: 2,
      kernel: 3,
      dropout: 0.1,
      headHidden: 6,
      seed: 2,
    });
  });

  it('matches the CPU trainer: no weight norm, mean pooling, three blocks', async () => {
    await compare({
      inputs: 4,
      hidden: 4,
      layers: 3,
      kernel: 2,
      dropout: 0.2,
      norm: 'none',
      pooling: 'mean',
      headHidden: 5,
      seed: 4,
    });
  });
});

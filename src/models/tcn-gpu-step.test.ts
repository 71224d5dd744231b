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
 * convolution where the width changes, last-step and mean pooling, gradient checkpointing (the
 * device recomputes each block's convolutions). The loss and the forecasts to
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

  async function compare(config: TcnConfig, checkpoint = false): Promise<void> {
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
      checkpoint,
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
    const trainer = new TcnTrainer(net, { learningRate, checkpoint });
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

  it('matches the CPU trainer with gradient checkpointing, recomputed on the device', async () => {
    await compare(
      { inputs: 3, hidden: 8, layers: 3, kernel: 3, dropout: 0.1, headHidden: 6, seed: 5 },
      true,
    );
  });

  it('gives the same bits with and without checkpointing, and holds less with it', async () => {
    const base: TcnProgramShape = {
      inputs: 3,
      hidden: 8,
      layers: 4,
      kernel: 3,
      norm: 'weight',
      pooling: 'last',
      headHidden: 6,
      dropout: 0.1,
      time: 16,
      batch: 6,
    };
    const rng = new Rng(11);
    const rows = (n: number): TcnBatch => ({
      rows: n,
      x: Float32Array.from({ length: n * base.time * base.inputs }, () => rng.normal()),
      y: Float32Array.from({ length: n }, () => rng.normal()),
    });
    const batches = [rows(6), rows(3)];
    const constants = { beta1: 0.9, beta2: 0.999, epsilon: 1e-8, maxGradNorm: 1 };
    const run = async (
      checkpoint: boolean,
    ): Promise<{ losses: number[]; parameters: Float32Array; bytes: number }> => {
      const before = gpu.allocatedBytes;
      const program = await TcnStepProgram.build(gpu, { ...base, checkpoint }, constants);
      const bytes = gpu.allocatedBytes - before;
      const init = new Rng(3);
      program.writeState(
        Float32Array.from({ length: program.size }, () => 0.3 * init.normal()),
        {
          m: new Float32Array(program.size),
          v: new Float32Array(program.size),
          accBeta1: 0.9,
          accBeta2: 0.999,
        },
      );
      const losses: number[] = [];
      for (let step = 0; step < 3; step++)
        losses.push((await program.step(batches, step, 1e-3)).loss);
      return { losses, parameters: await program.readParameters(), bytes };
    };
    const plain = await run(false);
    const checkpointed = await run(true);
    expect(checkpointed.losses).toEqual(plain.losses);
    expect(Buffer.from(checkpointed.parameters.buffer)).toEqual(
      Buffer.from(plain.parameters.buffer),
    );
    // A block's two convolution outputs become one shared pair: (2 · layers − 2) row buffers fewer,
    // less the uniforms of the recomputing GEMMs (under 128 B each, two a block).
    const rowBytes = base.batch * base.time * base.hidden * 4;
    const saved = plain.bytes - checkpointed.bytes;
    expect(saved).toBeLessThanOrEqual((2 * base.layers - 2) * rowBytes);
    expect(saved).toBeGreaterThan((2 * base.layers - 2) * rowBytes - 2 * base.layers * 128);
  });
});

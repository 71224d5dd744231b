import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, tempDir } from './support/run-cli.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * `tradelab train forecast --backend gpu`: a set of TCNs whose steps run on tradelab's GPU engine
 * (lavapipe here and in CI), through the real CLI and its worker processes, against the same set
 * trained on the CPU (wasm). The engine rounds in its own order, so the two sets agree to float
 * error, not bit for bit: every model's training loss to 1e-4, and its forecasts' RMSE and
 * correlation on the validation rows to 1e-3, after six Adam steps. A set of window MLPs on `gpu`
 * trains on the CPU and says so.
 */

const found = await gpuTestAdapter('test/forecast-gpu-cli.test.ts');

const dir = tempDir('tradelab-forecast-gpu-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface ModelRecord {
  type: 'model';
  index: number;
  trainLoss: number;
  rmse: number;
  correlation: number;
  trainedOn: string;
}

async function trainSet(
  backend: string,
  model: string,
): Promise<{ models: ModelRecord[]; stderr: string }> {
  const result = await runCli(
    [
      'train',
      'forecast',
      '--data',
      'SYN0,SYN1:1h',
      '--models',
      '2',
      '--model',
      model,
      '--hidden',
      '8',
      '--layers',
      '2',
      '--chunk-len',
      '24',
      '--batch-size',
      '8',
      '--epochs',
      '2',
      '--steps-per-epoch',
      '3',
      '--backend',
      backend,
      '--json',
    ],
    { cwd: dir, env: { TRADELAB_DETECT: 'false' } },
  );
  expect(result.code, result.stderr).toBe(0);
  const models = jsonLines(result.stdout)
    .filter((r) => r.type === 'model')
    .map((r) => r as unknown as ModelRecord)
    .sort((a, b) => a.index - b.index);
  return { models, stderr: result.stderr };
}

describe.skipIf(!found)('tradelab train forecast --backend gpu', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    const made = await runCliInProcess(
      ['data', 'synth', '--symbols', '2', '--bars', '3000', '--timeframe', '1h', '--seed', '5'],
      { cwd: dir },
    );
    expect(made.code, made.stderr).toBe(0);
  }, 60_000);

  it("trains a set of TCNs on the engine to the CPU's results within float error", async () => {
    const [gpu, cpu] = [await trainSet('gpu', 'tcn'), await trainSet('wasm', 'tcn')];
    expect(gpu.stderr).toContain("the TCNs' steps run on tradelab's GPU engine");
    expect(gpu.models.map((m) => m.trainedOn)).toEqual(['gpu engine', 'gpu engine']);
    expect(cpu.models.map((m) => m.trainedOn)).toEqual(['cpu', 'cpu']);
    for (const [i, want] of cpu.models.entries()) {
      const got = gpu.models[i] as ModelRecord;
      expect(Math.abs(got.trainLoss - want.trainLoss), `model ${i} loss`).toBeLessThanOrEqual(
        1e-4 * Math.abs(want.trainLoss),
      );
      // Scored on every validation row: the forecasts agree to float error.
      for (const metric of ['rmse', 'correlation'] as const)
        expect(Math.abs(got[metric] - want[metric]), `model ${i} ${metric}`).toBeLessThanOrEqual(
          1e-3 * Math.abs(want[metric]),
        );
    }
    // The two models differ by seed, so a mix-up of models would not pass the comparison above.
    expect(gpu.models[0]?.trainLoss).not.toBe(gpu.models[1]?.trainLoss);
  });

  it('trains window MLPs on the CPU, and says so', async () => {
    const set = await trainSet('gpu', 'mlp');
    expect(set.stderr).toContain(
      "the window MLPs train on the CPU: tradelab's GPU engine trains TCNs",
    );
    expect(set.models.map((m) => m.trainedOn)).toEqual(['cpu', 'cpu']);
  });
});

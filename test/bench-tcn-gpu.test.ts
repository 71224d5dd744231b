import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/run-cli.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * `tradelab bench tcn --backend gpu`: the TCN's steps on tradelab's engine (lavapipe here and in
 * CI), as the GPU bundle runs it beside PyTorch CUDA. Each row names the engine and its adapter,
 * counts what a step asks of the device, splits a step by kernel from the device's timestamps
 * (with checkpointing the convolutions run twice: forward, and again before each block's
 * backward), and sets the memory the program holds beside the planner's figure for it.
 */

const found = await gpuTestAdapter('test/bench-tcn-gpu.test.ts');

interface Row {
  name: string;
  rate: number;
  tcn: { checkpoint: boolean; stepMemoryBytes: number; plannedBytes: number; itPerSecond: number };
  gpu: { dispatches: number; submits: number; uploadBytes: number };
  gpuKernels: { kernel: string; dispatches: number; seconds: number }[];
  gpuMemoryBytes: number;
}

describe.skipIf(!found)('tradelab bench tcn --backend gpu', { timeout: 300_000 }, () => {
  it("measures the engine's steps, with and without checkpointing, and their memory against the plan", async () => {
    const layers = 3;
    const run = await runCli([
      'bench',
      'tcn',
      '--backend',
      'gpu',
      '--layers',
      String(layers),
      '--hidden',
      '16',
      '--seq',
      '32',
      '--batch',
      '4',
      '--features',
      '8',
      '--steps',
      '1',
      '--repeat',
      '1',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const rows = jsonLines(run.stdout) as unknown as Row[];
    expect(rows.map((r) => r.tcn.checkpoint)).toEqual([false, true]);
    for (const row of rows) {
      expect(row.name).toMatch(/gpu, tradelab's engine on llvmpipe/);
      expect(row.rate).toBeGreaterThan(0);
      // The plan counts the program's buffers; only the kernels' uniforms are outside it.
      expect(Math.abs(row.tcn.stepMemoryBytes - row.tcn.plannedBytes)).toBeLessThan(64 * 1024);
      expect(row.gpuMemoryBytes).toBeGreaterThan(row.tcn.stepMemoryBytes);
      // One micro-batch and the optimizer a step; the loss and forecasts are read once each.
      expect(row.gpu.submits).toBe(4);
      // The chunks go up each step (4 × 32 bars × 8 features), the weights do not.
      expect(row.gpu.uploadBytes).toBeGreaterThanOrEqual(4 * 32 * 8 * 4);
      expect(row.gpu.uploadBytes).toBeLessThan(4 * 32 * 8 * 4 + 8 * 1024);
      const convForward = row.gpuKernels.find((k) => k.kernel.endsWith('conv forward'));
      expect(convForward?.dispatches).toBe((row.tcn.checkpoint ? 4 : 2) * layers);
    }
    const [plain, checkpointed] = rows as [Row, Row];
    expect(checkpointed.tcn.stepMemoryBytes).toBeLessThan(plain.tcn.stepMemoryBytes);
    expect(checkpointed.gpu.dispatches).toBe(plain.gpu.dispatches + 2 * layers);
  });

  it("refuses tfjs's webgpu, which cannot read a TCN step back in Node, and names the engine", async () => {
    const run = await runCli(['bench', 'tcn', '--backend', 'webgpu', '--steps', '1']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "error [BACKEND_UNAVAILABLE]: the TCN does not train on tfjs's webgpu backend",
    );
    expect(run.stderr).toContain(
      "hint: use --backend gpu (tradelab's GPU engine) or --backend wasm",
    );
  });
});

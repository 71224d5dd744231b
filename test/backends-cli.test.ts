import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/run-cli.js';

describe('tradelab backends', () => {
  it('lists every backend, wasm and cpu available, the optional ones saying how to get them', async () => {
    const result = await runCli(['backends', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = jsonLines(result.stdout);
    expect(rows.map((r) => r.name)).toEqual(['wasm', 'webgpu', 'tensorflow', 'cpu']);
    const byName = Object.fromEntries(rows.map((r) => [String(r.name), r]));
    expect(byName.wasm?.available).toBe(true);
    expect(byName.cpu?.available).toBe(true);
    expect(byName.webgpu?.available).toBe(false);
    expect(String(byName.webgpu?.detail)).toContain('npm install @tensorflow/tfjs-backend-webgpu');
    expect(String(byName.tensorflow?.detail)).toContain('@tensorflow/tfjs-node');
    // The native GEMM: what it runs on, or why not (CI builds it, so there it must be there).
    const native = byName.wasm?.nativeGemm as { available: boolean; reason: string } | undefined;
    expect(typeof native?.available).toBe('boolean');
    if (process.env.CI === 'true') expect(native?.available, native?.reason).toBe(true);
    const table = await runCli(['backends']);
    expect(table.stdout).toMatch(/^wasm\s+yes/m);
    expect(table.stdout).toMatch(
      native?.available === true
        ? /^Native GEMM: yes, \S+ sgemm/m
        : /^Native GEMM: no, .*npm run build:native/m,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/run-cli.js';

describe('tradelab backends', () => {
  it('lists every backend, wasm and cpu available, the optional ones saying how to get them', async () => {
    const result = await runCli(['backends', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = jsonLines(result.stdout);
    expect(rows.map((r) => r.name)).toEqual(['wasm', 'gpu', 'webgpu', 'cpu']);
    const byName = Object.fromEntries(rows.map((r) => [String(r.name), r]));
    expect(byName.wasm?.available).toBe(true);
    expect(byName.cpu?.available).toBe(true);
    // webgpu: an adapter (a GPU, or lavapipe), or why not: packages missing, or no adapter.
    const webgpu = String(byName.webgpu?.detail);
    if (byName.webgpu?.available === true) {
      expect(webgpu).toMatch(/^Dawn on /);
      expect(byName.webgpu.webgpuAdapter).toBeDefined();
    } else
      expect(webgpu).toMatch(
        /not installed: npm install webgpu @tensorflow\/tfjs-backend-webgpu$|^installed, no adapter: ./,
      );
    // The native GEMM: what it runs on, or why not (CI builds it, so there it must be there).
    const native = byName.wasm?.nativeGemm as { available: boolean; reason: string } | undefined;
    expect(typeof native?.available).toBe('boolean');
    if (process.env.CI === 'true') expect(native?.available, native?.reason).toBe(true);
    const table = await runCli(['backends']);
    expect(table.stdout).toMatch(/^wasm\s+yes/m);
    expect(table.stdout).toMatch(
      native?.available === true
        ? /^Native GEMM: yes, tradelab's own kernels; this CPU runs \S+/m
        : /^Native GEMM: no, .*npm run build:native/m,
    );
  });

  it('says why webgpu is not available when there is no adapter, and still exits', async () => {
    const result = await runCli(['backends', '--json'], {
      env: { TRADELAB_WEBGPU_ADAPTER: 'none' },
    });
    expect(result.code, result.stderr).toBe(0);
    const webgpu = jsonLines(result.stdout).find((r) => r.name === 'webgpu');
    expect(webgpu?.available).toBe(false);
    expect(String(webgpu?.detail)).toMatch(
      /not installed: npm install webgpu|^installed, no adapter: TRADELAB_WEBGPU_ADAPTER=none/,
    );
  });

  it("prints no raw Dawn warning when Vulkan has no driver, and says why in tradelab's words", async () => {
    // A driver list naming no file: Dawn finds no Vulkan adapter here, on any machine, and its
    // native code warns on stderr (`Warning: Couldn't load Vulkan …`, `… BackendVk.cpp:368`).
    const result = await runCli(['backends'], {
      env: { VK_DRIVER_FILES: '/nonexistent/icd.json', VK_ICD_FILENAMES: '/nonexistent/icd.json' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const webgpu = result.stdout.split('\n').find((l) => l.startsWith('webgpu'));
    expect(webgpu).toMatch(/^webgpu\s+no\s+(installed, no adapter: \S|.*not installed)/);
  });
});

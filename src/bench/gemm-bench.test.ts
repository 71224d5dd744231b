import { describe, expect, it } from 'vitest';
import { loadNativeGemm, loadSystemBlas } from '../compute/native-gemm.js';
import { benchGemm } from './gemm-bench.js';

/*
 * bench gemm sets tradelab's kernels against the system BLAS shape by shape, in the same run: each
 * of our rows names its ratio and takes the BLAS's rate as its TARGET. Without a BLAS (a fresh
 * install), no row has a ratio or a target: there is nothing measured to compare with.
 */
describe.skipIf(loadNativeGemm() === undefined)("bench gemm's comparison with the BLAS", () => {
  it('puts each kernel beside the system BLAS on the same shape, or prints no ratio', async () => {
    const rows = await benchGemm({
      shapes: [{ m: 96, n: 10, k: 200, transA: true, transB: false, role: 'a small head' }],
      xnnpack: false,
      gpu: 'never',
      repeat: 1,
      runSeconds: 0.002,
    });
    const products = rows.filter((r) => r.name.startsWith('96×10×200 TN (a small head)'));
    const blas = loadSystemBlas();
    const vendor = blas.vendor ?? 'BLAS';
    const own = products.filter((r) => !r.name.endsWith(`: ${vendor}`));
    expect(own.length).toBeGreaterThan(0);
    if (!blas.available) {
      expect(products.filter((r) => r.target !== undefined)).toEqual([]);
      for (const row of own) expect(row.name).not.toMatch(/\d\.\d\d× /);
      return;
    }
    const reference = products.find((r) => r.name.endsWith(`: ${vendor}`));
    expect(reference?.target).toBeUndefined();
    for (const row of own) {
      const ratio = /, (\d+\.\d\d)× (\S+)$/.exec(row.name);
      expect(ratio?.[2]).toBe(vendor);
      expect(Number(ratio?.[1])).toBeCloseTo(row.rate / (reference?.rate ?? NaN), 2);
      expect(row.target).toBe(reference?.rate);
      expect(row.targetSource).toContain('same shape in this run');
      if (blas.corename !== undefined) expect(row.targetSource).toContain(blas.corename);
    }
  });
});

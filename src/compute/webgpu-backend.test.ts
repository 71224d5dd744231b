import * as tf from './tfjs.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';
import { useBackend } from './backends.js';
import { missingWebGpuPackages, probeWebGpuAdapter } from './webgpu-adapter.js';
import { gpuTestAdapter } from '../../test/support/webgpu.js';

/*
 * The webgpu backend: without an adapter (forced with TRADELAB_WEBGPU_ADAPTER=none) it is a clear
 * error naming the fallback and `auto` falls back to wasm; with one (a GPU, or lavapipe from
 * mesa-vulkan-drivers ≥ 25) tfjs's products on it match the cpu backend's. Machines without an
 * adapter skip the second part and say why; CI has lavapipe and fails without it.
 */

const found = await gpuTestAdapter('src/compute/webgpu-backend.test.ts');
const probe = await probeWebGpuAdapter();

const saved = process.env.TRADELAB_WEBGPU_ADAPTER;
afterEach(() => {
  if (saved === undefined) delete process.env.TRADELAB_WEBGPU_ADAPTER;
  else process.env.TRADELAB_WEBGPU_ADAPTER = saved;
});

describe('webgpu without an adapter', () => {
  it('useBackend("webgpu") says no adapter was found and names --backend wasm', async () => {
    process.env.TRADELAB_WEBGPU_ADAPTER = 'none';
    const error = await useBackend('webgpu').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TradelabError);
    const { code, message, hint } = error as TradelabError;
    expect(code).toBe('BACKEND_UNAVAILABLE');
    expect(message).toContain(
      missingWebGpuPackages().length > 0
        ? 'not installed'
        : 'no WebGPU adapter was found: TRADELAB_WEBGPU_ADAPTER=none',
    );
    expect(hint).toContain('--backend wasm');
  });

  it('useBackend("gpu") (tradelab\'s engine) says no adapter was found and names --backend wasm', async () => {
    process.env.TRADELAB_WEBGPU_ADAPTER = 'none';
    const error = await useBackend('gpu').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TradelabError);
    const { code, message, hint } = error as TradelabError;
    expect(code).toBe('BACKEND_UNAVAILABLE');
    expect(message).toContain(
      missingWebGpuPackages(['webgpu']).length > 0
        ? 'not installed'
        : 'backend gpu: no WebGPU adapter was found: TRADELAB_WEBGPU_ADAPTER=none',
    );
    expect(hint).toContain('--backend wasm');
  });

  it('auto on a GPU profile falls back to wasm and says why', async () => {
    process.env.TRADELAB_WEBGPU_ADAPTER = 'none';
    const active = await useBackend('auto', { gpuProfile: true });
    expect(active.name).toBe('wasm');
    expect(active.why).toMatch(/^auto: no WebGPU here \(.+\), so wasm$/);
  });
});

describe.skipIf(!found)('TRADELAB_WEBGPU_ADAPTER naming an adapter', () => {
  it('takes the adapter whose name contains it, and lists the adapters when none does', async () => {
    const name = probe.found ? probe.adapter.device : '';
    // A piece of the adapter's name as Dawn lists it (lavapipe: "llvmpipe (LLVM …)").
    process.env.TRADELAB_WEBGPU_ADAPTER = name.split('-')[0] ?? name;
    const named = await probeWebGpuAdapter({ packages: ['webgpu'] });
    expect(named.found).toBe(true);
    process.env.TRADELAB_WEBGPU_ADAPTER = 'no-such-gpu';
    const missing = await probeWebGpuAdapter({ packages: ['webgpu'] });
    expect(missing.found).toBe(false);
    expect(missing.found ? '' : missing.reason).toMatch(/Available adapters:\n \* backend: /);
  });
});

/** [m, k, n, transposeA, transposeB] */
const SHAPES: [number, number, number, boolean, boolean][] = [
  [64, 32, 48, false, false],
  [37, 65, 19, true, false],
  [33, 17, 129, false, true],
];

/** Each product of SHAPES, and one fused with a bias and ReLU, on the backend running now. */
async function products(rng: Rng): Promise<Float32Array[]> {
  const results: Float32Array[] = [];
  for (const [m, k, n, transposeA, transposeB] of SHAPES) {
    const values = (size: number): Float32Array =>
      Float32Array.from({ length: size }, () => rng.uniform() * 2 - 1);
    const a = tf.tensor2d(values(m * k), transposeA ? [k, m] : [m, k]);
    const b = tf.tensor2d(values(k * n), transposeB ? [n, k] : [k, n]);
    const bias = tf.tensor1d(values(n));
    const plain = tf.matMul(a, b, transposeA, transposeB);
    const fused = tf.fused.matMul({ a, b, transposeA, transposeB, bias, activation: 'relu' });
    results.push(await plain.data<'float32'>(), await fused.data<'float32'>());
    tf.dispose([a, b, bias, plain, fused]);
  }
  return results;
}

// A software adapter (lavapipe) compiles each new shader with LLVM: ~3 s apiece on a busy 2-core
// machine until Mesa's shader cache has them.
const FIRST_RUN_MS = 120_000;

describe.skipIf(!found)('tfjs on WebGPU', () => {
  it(
    'computes products, transposed and fused with bias + ReLU, as the cpu backend does',
    async () => {
      await tf.setBackend('cpu');
      const expected = await products(new Rng(7));
      const active = await useBackend('webgpu');
      expect(active.name).toBe('webgpu');
      expect(tf.getBackend()).toBe('webgpu');
      const before = tf.memory().numTensors;
      const actual = await products(new Rng(7));
      expect(tf.memory().numTensors).toBe(before);
      expect(actual).toHaveLength(expected.length);
      actual.forEach((got, i) => {
        const want = expected[i] ?? new Float32Array();
        expect(got).toHaveLength(want.length);
        // float32 sums of up to 129 terms in [-1, 1]: a different order differs by ~1e-5.
        const worst = got.reduce((w, g, j) => Math.max(w, Math.abs(g - (want[j] ?? NaN))), 0);
        expect(worst, `product ${i}`).toBeLessThan(1e-4);
      });
    },
    FIRST_RUN_MS,
  );

  it('adds more tensors than a shader has storage buffers for (a gradient norm over 14 variables)', async () => {
    await useBackend('webgpu');
    const terms = Array.from({ length: 20 }, (_, i) => tf.fill([3, 5], i + 1));
    const sum = tf.addN(terms);
    // 1 + 2 + … + 20
    expect(Array.from(await sum.data())).toEqual(new Array<number>(15).fill(210));
    tf.dispose([...terms, sum]);
  });

  it("auto takes a hardware adapter on a GPU profile for tradelab's engine, never tfjs's webgpu, never a software one", async () => {
    if (!probe.found) return; // narrows the type: the describe is skipped without an adapter
    const active = await useBackend('auto', { gpuProfile: true });
    expect(active.name).toBe(probe.adapter.software ? 'wasm' : 'gpu');
    expect(active.why).toMatch(probe.adapter.software ? /software/ : /tradelab's engine/);
  });
});

import { describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { dispatchOf, storageOf } from './dispatch.js';
import { openGpuDevice } from './gpu-device.js';
import { GpuPassTimer } from './gpu-timer.js';
import { profileDispatches } from './kernel-profile.js';

/*
 * The engine's device: it asks for the features the adapter offers (lavapipe offers timestamps,
 * f16 and subgroups, no subgroup matrices), leaves out those it is told to, and the timing paths
 * say "no timestamps" instead of failing where the feature is missing. A device error surfaces as
 * a TradelabError naming the kernel, not as a silent wrong result.
 */

const found = await gpuTestAdapter('src/gpu/gpu-device.test.ts');

describe.skipIf(!found)('the GPU engine device', { timeout: 120_000 }, () => {
  it("asks for every feature the adapter offers that the kernels use, and leaves out what it's told to", async () => {
    const gpu = await openGpuDevice();
    const without = await openGpuDevice({ withoutFeatures: ['timestamp-query'] });
    try {
      if (gpu.adapter.software) {
        // lavapipe (Mesa 25) offers these three.
        for (const feature of ['timestamp-query', 'shader-f16', 'subgroups'] as const)
          expect(gpu.has(feature), feature).toBe(true);
      }
      expect([...gpu.device.features]).toEqual(expect.arrayContaining([...gpu.features]));
      expect(without.has('timestamp-query')).toBe(false);
      expect(without.device.features.has('timestamp-query')).toBe(false);
      expect(GpuPassTimer.create(without)).toBeUndefined();
      expect(GpuPassTimer.create(gpu)).toBeDefined();
      const kernel = await without.pipelines.kernel({
        label: 'fill',
        code: `@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(1) fn main() { x[0] = 1.0; }`,
        bindings: ['write'],
        perMinibatch: false,
      });
      const dispatch = dispatchOf(
        without,
        kernel,
        [storageOf(without, new Float32Array(4), 'x')],
        [1],
      );
      expect(await profileDispatches(without, [dispatch])).toBeUndefined();
    } finally {
      gpu.destroy();
      without.destroy();
    }
  });

  it('names the kernel when its WGSL does not compile', async () => {
    const gpu = await openGpuDevice();
    try {
      const error = await gpu.pipelines
        .kernel({ label: 'broken', code: 'fn main( {', bindings: [], perMinibatch: false })
        .catch((e: unknown) => e);
      expect(String(error)).toMatch(/GPU kernel "broken" does not compile: line 1:/);
    } finally {
      gpu.destroy();
    }
  });
});

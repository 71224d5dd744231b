import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineCache } from '../pipeline-cache.js';
import {
  pickSubgroupMatrixConfig,
  subgroupMatrixGemmKernel,
  subgroupMatrixThreads,
  type SubgroupMatrixConfig,
} from './gemm-subgroup-matrix.js';

/*
 * The subgroup-matrix GEMM cannot run here: lavapipe has no cooperative matrices, so whether it
 * computes the right numbers is checked on a GPU, where `bench gemm` compares its C with the f32
 * engine's before it reports a speed. What can be checked here is that its WGSL is accepted: Dawn's
 * null backend (no device behind it; it runs nothing) offers the feature when unsafe APIs are
 * allowed, and runs Tint's parser and resolver and Dawn's pipeline rules (a workgroup a multiple
 * of the largest subgroup) on every variant, through the engine's own PipelineCache. It reports no
 * configs, so config matching is not checked here.
 */

const config = (
  M: number,
  N: number,
  K: number,
  resultComponentType = 'f32',
  componentType = 'f16',
): SubgroupMatrixConfig => ({ componentType, resultComponentType, M, N, K });

describe('choosing a subgroup matrix config', () => {
  it('takes f16 operands with an f32 result, the largest block first, else an f16 result', () => {
    const nvidia = [
      config(16, 8, 8),
      config(16, 16, 16, 'f16'),
      config(16, 16, 16),
      config(16, 8, 16),
    ];
    expect(pickSubgroupMatrixConfig(nvidia)).toEqual(config(16, 16, 16));
    expect(pickSubgroupMatrixConfig([config(16, 16, 16, 'f16'), config(8, 8, 8, 'f16')])).toEqual(
      config(16, 16, 16, 'f16'),
    );
  });

  it('refuses configs the kernel cannot tile: other types, sides other than 8 or 16', () => {
    expect(
      pickSubgroupMatrixConfig([
        config(16, 16, 16, 'f32', 'f32'),
        config(16, 16, 32, 'i32', 'i8'),
        config(32, 32, 16),
        config(16, 16, 4),
      ]),
    ).toBeUndefined();
    expect(pickSubgroupMatrixConfig([])).toBeUndefined();
  });

  it('sizes a workgroup to four of the largest subgroups where the limit allows', () => {
    expect(subgroupMatrixThreads(32, 256)).toBe(128);
    expect(subgroupMatrixThreads(64, 256)).toBe(256);
    expect(subgroupMatrixThreads(128, 256)).toBe(256);
    expect(() => subgroupMatrixThreads(512, 256)).toThrow(/exceeds the workgroup limit 256/);
  });
});

describe("the subgroup-matrix GEMM's WGSL on Dawn's null backend", { timeout: 60_000 }, () => {
  let device: GPUDevice | undefined;
  let pipelines: PipelineCache;
  let subgroupMaxSize = 0;
  // Dawn's instance must stay referenced while its device lives (see gpu-device.ts).
  let instance: GPU | undefined;

  beforeAll(async () => {
    const name = 'webgpu';
    const webgpu = (await import(name)) as { create(flags: string[]): GPU };
    instance = webgpu.create(['backend=null', 'enable-dawn-features=allow_unsafe_apis']);
    const adapter = await instance.requestAdapter();
    if (adapter === null) throw new Error("Dawn's null backend gave no adapter");
    subgroupMaxSize = adapter.info.subgroupMaxSize ?? 0;
    device = await adapter.requestDevice({
      requiredFeatures: [
        'shader-f16',
        'subgroups',
        'chromium-experimental-subgroup-matrix',
      ] as GPUFeatureName[],
      requiredLimits: {
        maxComputeInvocationsPerWorkgroup: adapter.limits.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: adapter.limits.maxComputeWorkgroupSizeX,
      },
    });
    pipelines = new PipelineCache(device);
  });
  afterAll(() => {
    device?.destroy();
    instance = undefined;
  });

  const configs = [config(16, 16, 16), config(16, 8, 16), config(8, 8, 8, 'f16')];
  for (const c of configs)
    it(`compiles every transpose for ${c.M}×${c.N}×${c.K} with an ${c.resultComponentType} result`, async () => {
      expect(instance).toBeDefined();
      if (device === undefined) throw new Error('no device');
      const maxThreads = device.limits.maxComputeInvocationsPerWorkgroup;
      for (const transposeA of [false, true])
        for (const transposeB of [false, true]) {
          // The null adapter's subgroups are 4 to 128 wide: two of 128 a workgroup, so each
          // subgroup takes two quarters (the loop a GPU with smaller subgroups would not need).
          const spec = subgroupMatrixGemmKernel({
            transposeA,
            transposeB,
            config: c,
            subgroupMaxSize,
            maxThreads,
          });
          await expect(pipelines.kernel(spec)).resolves.toBeDefined();
        }
      expect(pipelines.size).toBeGreaterThan(0);
    });

  it('refuses a workgroup narrower than the largest subgroup (the rule is really checked)', async () => {
    const spec = subgroupMatrixGemmKernel({
      transposeA: false,
      transposeB: false,
      config: config(16, 16, 16),
      subgroupMaxSize: 32,
      maxThreads: 32,
    });
    await expect(pipelines.kernel(spec)).rejects.toThrow(/multiple of the device maxSubgroupSize/);
  });
});

import { describe, expect, it } from 'vitest';
import type { DetectedGpu } from './detect/detected-gpu.js';
import { deriveProfile, matchDetectedGpu, VRAM_TOLERANCE } from './match-detected.js';
import { createProfileRegistry, type CustomProfileDefinition } from './profile-registry.js';
import { ProfileSpecSchema, type GpuProfile } from './profile-schema.js';

const MIB = 2 ** 20;
const GIB = 2 ** 30;

function nvidia(name: string, memoryMiB?: number): DetectedGpu {
  const gpu: DetectedGpu = { index: 0, name, vendor: 'nvidia', tool: 'nvidia-smi' };
  if (memoryMiB !== undefined) gpu.memoryTotalBytes = memoryMiB * MIB;
  return gpu;
}

function amd(name: string, memoryBytes?: number): DetectedGpu {
  const gpu: DetectedGpu = { index: 0, name, vendor: 'amd', tool: 'rocm-smi' };
  if (memoryBytes !== undefined) gpu.memoryTotalBytes = memoryBytes;
  return gpu;
}

/** A profile without the registry's fields, for validating against the spec schema. */
function spec(profile: GpuProfile): unknown {
  const { name: _name, origin: _origin, basedOn: _basedOn, ...rest } = profile;
  return rest;
}

describe('matchDetectedGpu by name and memory', () => {
  const registry = createProfileRegistry();

  const byName: readonly (readonly [DetectedGpu, string])[] = [
    [nvidia('NVIDIA H100 80GB HBM3', 81559), 'h100'],
    [nvidia('NVIDIA H100 PCIe', 81559), 'h100_pcie'],
    [nvidia('NVIDIA H100 NVL', 95830), 'h100_94gb'],
    [nvidia('NVIDIA H200', 143771), 'h200'],
    [nvidia('NVIDIA A100-SXM4-40GB', 40960), 'a100_40gb'],
    [nvidia('NVIDIA A100-SXM4-40GB', 40536), 'a100_40gb'],
    [nvidia('NVIDIA A100-PCIE-40GB', 40960), 'a100_40gb'],
    [nvidia('NVIDIA A100 80GB PCIe', 81920), 'a100_80gb'],
    [nvidia('NVIDIA A100-SXM4-80GB', 81920), 'a100_80gb'],
    [nvidia('NVIDIA GeForce RTX 4090', 24564), 'rtx_4090'],
    [nvidia('NVIDIA RTX 6000 Ada Generation', 49140), 'rtx_6000_ada'],
    [nvidia('NVIDIA L40S', 46068), 'l40s'],
    [nvidia('NVIDIA GeForce RTX 5090', 32607), 'rtx_5090'],
    [nvidia('NVIDIA GeForce RTX 4070 Ti', 12282), 'rtx_4070_ti'],
    [nvidia('NVIDIA GeForce RTX 3070', 8192), 'rtx_3070'],
    [amd('AMD Instinct MI300X VF', 205_822_885_888), 'mi300x'],
    [amd('AMD Instinct MI300X', 206_141_652_992), 'mi300x'],
    [amd('MI300X-O', 196592 * MIB), 'mi300x'],
    [amd('Radeon RX 7900 XTX', 25_753_026_560), 'rx_7900_xtx'],
  ];

  for (const [gpu, expected] of byName) {
    it(`maps "${gpu.name}" with ${gpu.memoryTotalBytes ?? 0} bytes to ${expected}`, () => {
      const matched = matchDetectedGpu(gpu, registry);
      expect(matched.profile.name).toBe(expected);
      expect(matched.how).toBe('name');
      expect(matched.gpu).toBe(gpu);
      expect(matched.reason).toMatch(
        new RegExp(
          `^name "${gpu.name}" matches profile ${expected}, [\\d.]+ GiB fits its \\d+ GB$`,
        ),
      );
    });
  }

  it('matches by name alone, and says so, when memory was not reported', () => {
    const matched = matchDetectedGpu(nvidia('NVIDIA GeForce RTX 4090'), registry);
    expect(matched.profile.name).toBe('rtx_4090');
    expect(matched.how).toBe('name');
    expect(matched.reason).toBe(
      'name "NVIDIA GeForce RTX 4090" matches profile rtx_4090 (memory not reported)',
    );
  });

  it('does not take an H100 PCIe or NVL for the SXM profile', () => {
    expect(matchDetectedGpu(nvidia('NVIDIA H100 PCIe'), registry).profile.name).toBe('h100_pcie');
    expect(matchDetectedGpu(nvidia('NVIDIA H100 NVL'), registry).profile.name).toBe('h100_94gb');
  });

  it('uses memory to pick among the RX 7900 cards a sysfs name covers', () => {
    const sysfsName = 'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31)';
    expect(matchDetectedGpu(amd(sysfsName, 24 * GIB), registry).profile.name).toBe('rx_7900_xtx');
    expect(matchDetectedGpu(amd(sysfsName, 16 * GIB), registry).profile.name).toBe('rx_7900_gre');
    const xt = matchDetectedGpu(amd(sysfsName, 21_458_059_264), registry);
    expect(xt.how).toBe('derived');
    expect(xt.reason).toMatch(/^its memory \(19\.98 GiB\) is not /);
    expect(xt.reason).toContain("rx_7900_xtx's 24 GB");
    expect(xt.reason).toContain("rx_7900_gre's 16 GB");
  });

  it('accepts memory up to 15 % away from the profile, not beyond', () => {
    expect(VRAM_TOLERANCE).toBe(0.15);
    const at = (gib: number): string =>
      matchDetectedGpu(nvidia('NVIDIA GeForce RTX 4090', gib * 1024), registry).how;
    expect(at(24 * 0.86)).toBe('name');
    expect(at(24 * 1.14)).toBe('name');
    expect(at(24 * 0.84)).toBe('derived');
    expect(at(24 * 1.16)).toBe('derived');
  });
});

describe('matchDetectedGpu when no profile fits', () => {
  const registry = createProfileRegistry();

  it('derives a profile for a laptop RTX 4090 (16 GB) instead of using the desktop one', () => {
    const gpu = nvidia('NVIDIA GeForce RTX 4090 Laptop GPU', 16376);
    const matched = matchDetectedGpu(gpu, registry);
    expect(matched.how).toBe('derived');
    expect(matched.profile.name).toBe('derived_nvidia_geforce_rtx_4090_laptop_gpu');
    expect(matched.profile.origin).toBe('derived');
    expect(matched.profile.basedOn).toBe('rtx_4080');
    expect(matched.profile.vramGb).toBe(16);
    expect(matched.reason).toBe(
      'no profile matches its name; derived from rtx_4080 (nearest memory) with 15.99 GiB',
    );
  });

  it('derives one for a laptop 4090 even when its memory equals the desktop card', () => {
    const matched = matchDetectedGpu(nvidia('NVIDIA GeForce RTX 4090 Laptop GPU', 24564), registry);
    expect(matched.how).toBe('derived');
    expect(matched.profile.basedOn).toBe('rtx_4090');
  });

  it('does not take a Quadro RTX 6000 (Turing, 24 GB) for the RTX 6000 Ada', () => {
    const matched = matchDetectedGpu(nvidia('Quadro RTX 6000', 24576), registry);
    expect(matched.how).toBe('derived');
    expect(matched.profile.name).toBe('derived_quadro_rtx_6000');
    expect(matched.profile.basedOn).toBe('rtx_4090');
    expect(matched.profile.displayName).toBe('Quadro RTX 6000');
  });

  it('derives a Radeon RX 7900 XT (20 GiB) from the nearest AMD profile, scaling workloads', () => {
    const matched = matchDetectedGpu(amd('Radeon RX 7900 XT', 21_458_059_264), registry);
    expect(matched.how).toBe('derived');
    const profile = matched.profile;
    expect(profile.name).toBe('derived_radeon_rx_7900_xt');
    expect(profile.vendor).toBe('amd');
    expect(profile.basedOn).toBe('rx_7900_xtx');
    expect(profile.vramGb).toBe(20);
    // rx_7900_xtx scaled by 20/24, rounded down to multiples of 32 / 256 / 10.
    expect(profile.workloads.forecast.batchSize).toEqual({ '1d': 416, '1h': 640 });
    expect(profile.workloads.forecast.maxWorkers).toBe(1);
    expect(profile.workloads.forecast.memoryPerModelGb).toEqual({ '1d': 6, '1h': 12 });
    expect(profile.workloads.drl).toMatchObject({
      batchSize: 27136,
      netDimMax: 4096,
      maxWorkers: 13,
    });
    expect(profile.workloads.tcn).toMatchObject({ chunksPerBatch: 250, maxWorkers: 1 });
    expect(profile.workloads.drl.source).toBe('derived: rx_7900_xtx scaled by memory ×0.83');
    expect(profile.hourlyUsd).toBe(0);
  });

  it('derives an unknown card with memory: scaled workloads, no published specs', () => {
    const matched = matchDetectedGpu(nvidia('NVIDIA GeForce RTX 3080', 10240), registry);
    expect(matched.how).toBe('derived');
    const profile = matched.profile;
    expect(profile).toMatchObject({
      name: 'derived_nvidia_geforce_rtx_3080',
      origin: 'derived',
      basedOn: 'rtx_4070_ti',
      displayName: 'NVIDIA GeForce RTX 3080',
      vendor: 'nvidia',
      vramGb: 10,
      architecture: null,
      memoryType: null,
      memoryBandwidthGBs: null,
      fp32Tflops: null,
      bf16Tflops: null,
      computeUnits: null,
      tdpWatts: null,
      aliases: [],
      match: [],
    });
    expect(profile.workloads.forecast.batchSize).toEqual({ '1d': 192, '1h': 416 });
    expect(profile.workloads.drl).toMatchObject({ batchSize: 27136, maxWorkers: 6 });
    expect(profile.workloads.tcn.chunksPerBatch).toBe(120);
    expect(ProfileSpecSchema.safeParse(spec(profile)).success).toBe(true);
  });

  it('derives a valid profile even for a tiny card, keeping every count at least one step', () => {
    const matched = matchDetectedGpu(amd('AMD GPU 0x164e', 67_108_864), registry);
    const w = matched.profile.workloads;
    expect(matched.profile.basedOn).toBe('rx_7900_gre');
    expect(w.forecast.batchSize).toEqual({ '1d': 32, '1h': 32 });
    expect(w.drl.batchSize).toBe(256);
    expect(w.drl.maxWorkers).toBe(1);
    expect(w.tcn.chunksPerBatch).toBe(10);
    expect(ProfileSpecSchema.safeParse(spec(matched.profile)).success).toBe(true);
  });

  it('falls back to the cpu profile for an unknown card without memory', () => {
    const gpu = nvidia('NVIDIA GB10');
    const matched = matchDetectedGpu(gpu, registry);
    expect(matched.how).toBe('unknown');
    expect(matched.profile.name).toBe('cpu');
    expect(matched.gpu).toBe(gpu);
    expect(matched.reason).toMatch(
      /^no profile matches "NVIDIA GB10" and its memory was not reported/,
    );
  });

  it('derives a priced card as unpriced (a rented card we do not know the price of)', () => {
    const matched = matchDetectedGpu(nvidia('NVIDIA B200', 183359), registry);
    expect(matched.how).toBe('derived');
    expect(matched.profile.basedOn).toBe('h200');
    expect(matched.profile.hourlyUsd).toBeNull();
  });
});

describe('matchDetectedGpu with custom profiles', () => {
  const locate = (): string => 'tradelab.config.yaml:1:1';

  it('prefers a custom profile whose pattern matches over the built-in', () => {
    const custom: CustomProfileDefinition = {
      name: 'my_4090',
      input: { extends: 'rtx_4090', match: ['\\bRTX 4090\\b'] },
      locate,
    };
    const registry = createProfileRegistry([custom]);
    const matched = matchDetectedGpu(nvidia('NVIDIA GeForce RTX 4090', 24564), registry);
    expect(matched.profile.name).toBe('my_4090');
    expect(matched.profile.origin).toBe('custom');
  });

  it('does not derive from a custom profile', () => {
    const custom: CustomProfileDefinition = {
      name: 'my_10gb',
      input: { extends: 'rtx_4070_ti', vramGb: 10, match: ['\\bnever matches\\b'] },
      locate,
    };
    const registry = createProfileRegistry([custom]);
    const matched = matchDetectedGpu(nvidia('NVIDIA GeForce RTX 3080', 10240), registry);
    expect(matched.profile.basedOn).toBe('rtx_4070_ti');
  });
});

describe('deriveProfile', () => {
  it('keeps a 0 hourly price (a local card) and names the source of its numbers', () => {
    const registry = createProfileRegistry();
    const nearest = registry.get('rtx_4090');
    if (nearest === undefined) throw new Error('rtx_4090 missing');
    const profile = deriveProfile(nvidia('Some Card!'), nearest, 48 * GIB);
    expect(profile.name).toBe('derived_some_card');
    expect(profile.vramGb).toBe(48);
    expect(profile.hourlyUsd).toBe(0);
    expect(profile.workloads.drl.batchSize).toBe(65536);
    expect(profile.workloads.tcn.source).toBe('derived: rtx_4090 scaled by memory ×2.00');
    expect(profile.notes[0]).toContain('Derived at detection from rtx_4090 (24 GB)');
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DetectedGpu, ParsedToolOutput } from './detected-gpu.js';

/** Where the kernel lists DRM devices. Tests and containers point elsewhere with TRADELAB_SYSFS_DRM. */
export const DEFAULT_DRM_ROOT = '/sys/class/drm';

const AMD_VENDOR = '0x1002';

/** PCI device ids amdgpu exposes that name the cards our profiles cover. */
const AMD_DEVICE_NAMES: Readonly<Record<string, string>> = {
  '0x744c': 'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31)',
  '0x74a1': 'AMD Instinct MI300X',
  '0x74b5': 'AMD Instinct MI300X VF',
};

/**
 * Reads amdgpu cards from sysfs (`cardN/device/mem_info_vram_total`, in bytes). Used when neither
 * rocm-smi nor amd-smi is installed. Returns no GPUs, not an error, when the directory is absent.
 */
export function readSysfsDrm(root = DEFAULT_DRM_ROOT): ParsedToolOutput {
  const gpus: DetectedGpu[] = [];
  const warnings: string[] = [];
  if (!existsSync(root)) return { gpus, warnings };
  const cards = readdirSync(root)
    .filter((name) => /^card\d+$/.test(name))
    .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  for (const card of cards) {
    const device = join(root, card, 'device');
    const read = (file: string): string | undefined => {
      const path = join(device, file);
      return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
    };
    if (read('vendor') !== AMD_VENDOR) continue;
    const total = read('mem_info_vram_total');
    if (total === undefined) continue;
    const totalBytes = Number(total);
    if (!Number.isFinite(totalBytes) || totalBytes <= 0) {
      warnings.push(`${card}: mem_info_vram_total is not a byte count: ${JSON.stringify(total)}`);
      continue;
    }
    const deviceId = read('device');
    // product_name exists, empty, on consumer cards: only some server cards fill it in.
    const product = read('product_name');
    const name =
      (product === '' ? undefined : product) ??
      (deviceId === undefined ? undefined : AMD_DEVICE_NAMES[deviceId]) ??
      `AMD GPU ${deviceId ?? card}`;
    const gpu: DetectedGpu = {
      index: Number(card.slice(4)),
      name,
      vendor: 'amd',
      tool: 'sysfs',
      memoryTotalBytes: totalBytes,
    };
    const used = Number(read('mem_info_vram_used'));
    if (Number.isFinite(used) && used >= 0) gpu.memoryUsedBytes = used;
    gpus.push(gpu);
  }
  return { gpus, warnings };
}

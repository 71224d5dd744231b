import type { DetectedGpu, ParsedToolOutput } from './detected-gpu.js';
import { isRecord, parseJsonAfterNoise, stringField } from './json-after-noise.js';

/** The query detection runs. */
export const AMD_SMI_ARGS = ['static', '--json'] as const;

const MIB = 1024 * 1024;

/**
 * Parses `amd-smi static --json`: a bare list of GPU objects (ROCm 6) or `{"gpu_data": [...]}`
 * (ROCm 6.4+/7), possibly after `WARNING:` or Python warning lines. The name comes from
 * `asic.market_name` (else `board.product_name`); memory from `vram.size`, which is
 * `{value, unit: "MB"}`, a number of MB, or a string like "196592 MB" (amd-smi's MB are MiB); ROCm 6.0 wrote `vram.vram_size_mb`.
 */
export function parseAmdSmiStatic(text: string): ParsedToolOutput {
  const data = parseJsonAfterNoise(text);
  // ROCm 6.0 printed a bare object for a single GPU, 6.1-6.4 a list, 7.x {"gpu_data": [...]}.
  const list = Array.isArray(data)
    ? data
    : isRecord(data) && Array.isArray(data.gpu_data)
      ? data.gpu_data
      : isRecord(data) && ('asic' in data || 'gpu' in data)
        ? [data]
        : undefined;
  if (list === undefined) throw new Error('expected a JSON list of GPUs or {"gpu_data": [...]}');
  const gpus: DetectedGpu[] = [];
  const warnings: string[] = [];
  list.forEach((entry: unknown, position) => {
    if (!isRecord(entry)) {
      warnings.push(`entry ${position}: not an object`);
      return;
    }
    const index = typeof entry.gpu === 'number' ? entry.gpu : position;
    const asic = isRecord(entry.asic) ? entry.asic : {};
    const board = isRecord(entry.board) ? entry.board : {};
    const name = stringField(asic, 'market_name') ?? stringField(board, 'product_name');
    if (name === undefined) {
      warnings.push(`GPU ${index}: no asic.market_name or board.product_name`);
      return;
    }
    const gpu: DetectedGpu = { index, name, vendor: 'amd', tool: 'amd-smi' };
    const vram = isRecord(entry.vram) ? entry.vram : {};
    const size = vramBytes(vram.size ?? vram.vram_size_mb);
    if (size === undefined) warnings.push(`GPU ${index}: vram.size not reported`);
    else gpu.memoryTotalBytes = size;
    gpus.push(gpu);
  });
  if (gpus.length === 0 && warnings.length === 0) throw new Error('the GPU list is empty');
  return { gpus, warnings };
}

function vramBytes(size: unknown): number | undefined {
  if (typeof size === 'number') return size * MIB;
  if (typeof size === 'string') return withUnit(size);
  if (isRecord(size)) {
    const value = typeof size.value === 'number' ? size.value : Number(size.value);
    const unit = typeof size.unit === 'string' ? size.unit : 'MB';
    return Number.isFinite(value) ? withUnit(`${value} ${unit}`) : undefined;
  }
  return undefined;
}

function withUnit(text: string): number | undefined {
  const match = /^\s*([\d.]+)\s*([KMGT]i?B|B)?\s*$/i.exec(text);
  if (match === null) return undefined;
  const power = { b: 0, kb: 1, kib: 1, mb: 2, mib: 2, gb: 3, gib: 3, tb: 4, tib: 4 }[
    (match[2] ?? 'MB').toLowerCase()
  ];
  return power === undefined ? undefined : Number(match[1]) * 1024 ** power;
}

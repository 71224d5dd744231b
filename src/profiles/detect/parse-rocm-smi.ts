import type { DetectedGpu, ParsedToolOutput } from './detected-gpu.js';
import { isRecord, parseJsonAfterNoise, stringField } from './json-after-noise.js';

/** The query detection runs. */
export const ROCM_SMI_ARGS = ['--showproductname', '--showmeminfo', 'vram', '--json'] as const;

/**
 * Parses `rocm-smi --showproductname --showmeminfo vram --json`: an object keyed `card0`, `card1`, …
 * whose values are all strings (memory in bytes). Key spelling varies by version ("Card series" /
 * "Card Series"), so keys are matched ignoring case. Lines before the JSON are skipped.
 */
export function parseRocmSmiJson(text: string): ParsedToolOutput {
  const data = parseJsonAfterNoise(text);
  if (!isRecord(data)) throw new Error('expected a JSON object keyed by card');
  const gpus: DetectedGpu[] = [];
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const match = /^card(\d+)$/i.exec(key);
    if (match === null) continue; // e.g. "system"
    if (!isRecord(value)) {
      warnings.push(`${key}: not an object`);
      continue;
    }
    const index = Number(match[1]);
    const name =
      stringField(value, 'Card series', 'Card Series') ??
      stringField(value, 'Card model', 'Card Model') ??
      stringField(value, 'Card SKU');
    if (name === undefined) {
      warnings.push(`${key}: no product name (rocm-smi printed no "Card series")`);
      continue;
    }
    const gpu: DetectedGpu = { index, name, vendor: 'amd', tool: 'rocm-smi' };
    const total = bytes(stringField(value, 'VRAM Total Memory (B)'));
    const used = bytes(stringField(value, 'VRAM Total Used Memory (B)'));
    if (total === undefined) warnings.push(`${key}: VRAM total not reported`);
    else gpu.memoryTotalBytes = total;
    if (used !== undefined) gpu.memoryUsedBytes = used;
    const busy = bytes(stringField(value, 'GPU use (%)'));
    if (busy !== undefined) gpu.utilizationPct = busy;
    gpus.push(gpu);
  }
  if (gpus.length === 0 && warnings.length === 0) throw new Error('no cards in the JSON');
  return { gpus, warnings };
}

function bytes(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

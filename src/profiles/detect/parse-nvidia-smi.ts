import type { DetectedGpu, ParsedToolOutput } from './detected-gpu.js';

/** The query detection runs; the parser expects its fields in this order. */
export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,uuid,name,memory.total,memory.used,utilization.gpu,clocks.sm,power.draw',
  '--format=csv,noheader,nounits',
] as const;

const FIELD_COUNT = 8;
const MIB = 1024 * 1024;

/**
 * Parses `nvidia-smi --query-gpu=… --format=csv,noheader,nounits`. Unreadable fields (`[N/A]`,
 * `[Not Supported]`, `[Unknown Error]`, …) are left out with a warning; a line that is not a GPU
 * record is skipped with a warning. Throws when no line is a GPU record but the output is not empty.
 */
export function parseNvidiaSmiCsv(text: string): ParsedToolOutput {
  const gpus: DetectedGpu[] = [];
  const warnings: string[] = [];
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  lines.forEach((line, i) => {
    if (line === '' || /^index\s*,/i.test(line)) return; // blank, or a header from a user's alias
    const fields = splitFields(line);
    if (fields.length !== FIELD_COUNT) {
      warnings.push(
        `line ${i + 1}: expected ${FIELD_COUNT} fields, found ${fields.length}: ${clip(line)}`,
      );
      return;
    }
    const [index, uuid, name, total, used, util, clock, power] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const indexValue = integer(index);
    if (indexValue === undefined || name === '' || isUnreadable(name)) {
      warnings.push(`line ${i + 1}: no GPU index or name: ${clip(line)}`);
      return;
    }
    const gpu: DetectedGpu = { index: indexValue, name, vendor: 'nvidia', tool: 'nvidia-smi' };
    const read = (label: string, raw: string, set: (n: number) => void): void => {
      if (isUnreadable(raw)) {
        warnings.push(`GPU ${indexValue}: ${label} reads ${raw}`);
        return;
      }
      // Without `nounits` values carry units ("24564 MiB", "0 %"): accept them.
      const digits = raw.replace(/\s*(MiB|%|MHz|W)$/, '');
      const n = Number(digits);
      if (!/^\d+(\.\d+)?$/.test(digits))
        warnings.push(`GPU ${indexValue}: ${label} is not a number: ${clip(raw)}`);
      else set(n);
    };
    if (!isUnreadable(uuid) && uuid !== '') gpu.uuid = uuid;
    read('memory.total', total, (n) => (gpu.memoryTotalBytes = n * MIB));
    read('memory.used', used, (n) => (gpu.memoryUsedBytes = n * MIB));
    read('utilization.gpu', util, (n) => (gpu.utilizationPct = n));
    read('clocks.sm', clock, (n) => (gpu.smClockMHz = n));
    read('power.draw', power, (n) => (gpu.powerW = n));
    gpus.push(gpu);
  });
  if (gpus.length === 0 && lines.some((l) => l !== '')) {
    throw new Error(`no GPU records in output: ${clip(lines.find((l) => l !== '') ?? '')}`);
  }
  return { gpus, warnings };
}

/** nvidia-smi writes "[N/A]", "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]"… */
function isUnreadable(field: string): boolean {
  return /^\[.*\]$/.test(field) || field === 'N/A';
}

function splitFields(line: string): string[] {
  return line.split(',').map((f) => f.trim());
}

function integer(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

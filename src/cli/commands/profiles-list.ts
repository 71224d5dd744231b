import type { GpuProfile } from '../../profiles/index.js';
import type { CommandContext } from '../command-spec.js';
import { renderTable } from '../output.js';

const num = (value: number | null, digits = 1): string =>
  value === null ? '-' : value.toFixed(digits).replace(/\.0+$/, '');

/** `tradelab profiles list`: a table of every profile; custom ones are marked. */
export function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const profiles = context.project().profiles.all();
  if (out.json) {
    for (const p of profiles) out.record(p);
    return Promise.resolve();
  }
  const lines = renderTable<GpuProfile>(profiles, [
    { header: 'NAME', value: (p) => p.name },
    { header: 'GPU', value: (p) => p.displayName },
    { header: 'VRAM GB', value: (p) => num(p.vramGb), right: true },
    { header: 'BW GB/s', value: (p) => num(p.memoryBandwidthGBs), right: true },
    { header: 'FP32 TF', value: (p) => num(p.fp32Tflops), right: true },
    { header: 'BF16 TF', value: (p) => num(p.bf16Tflops), right: true },
    {
      header: '$/h',
      value: (p) => (p.hourlyUsd === null ? '?' : p.hourlyUsd.toFixed(2)),
      right: true,
    },
    { header: 'PPO BATCH', value: (p) => String(p.workloads.drl.batchSize), right: true },
    { header: 'NETDIM MAX', value: (p) => String(p.workloads.drl.netDimMax), right: true },
    { header: 'TCN CHUNKS', value: (p) => String(p.workloads.tcn.chunksPerBatch), right: true },
    {
      header: 'ORIGIN',
      value: (p) =>
        p.origin === 'builtin'
          ? 'built-in'
          : `${p.origin}${p.basedOn === undefined ? '' : ` (extends ${p.basedOn})`}`,
    },
  ]);
  for (const line of lines) out.line(line);
  out.line();
  out.line(
    '$/h: 0 for a local card, ? where no price is known (set hourlyUsd in a custom profile).',
  );
  out.line('Details: tradelab profiles show NAME');
  return Promise.resolve();
}

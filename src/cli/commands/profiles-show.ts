import type { CommandContext } from '../command-spec.js';
import { renderTable } from '../output.js';

/**
 * `tradelab profiles show [NAME]`: every field of one profile; without NAME, of the profile in use,
 * chosen as `profiles plan` chooses it (flag > env > config file > detected > cpu).
 */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const project = context.project();
  const name = context.positionals[0];
  const choice = name === undefined ? await project.chooseProfile() : undefined;
  const profile = choice?.profile ?? project.profiles.resolve(name ?? '');
  if (out.json) {
    out.record(
      choice === undefined
        ? profile
        : {
            ...profile,
            profileSource: choice.source,
            profileOrigin: choice.origin,
            ...(choice.ignored === undefined ? {} : { profileIgnored: choice.ignored }),
          },
    );
    return;
  }
  if (choice !== undefined) {
    out.line(`Profile in use: ${profile.name}, ${choice.reason}`);
    if (choice.mismatch !== undefined) out.note(`note: ${choice.mismatch}`);
    out.line();
  }
  const value = (v: number | string | null, unit = ''): string =>
    v === null ? 'not published' : `${v}${unit}`;
  const fields: [string, string][] = [
    ['name', profile.name],
    ['display name', profile.displayName],
    [
      'origin',
      `${profile.origin}${profile.basedOn === undefined ? '' : ` (from ${profile.basedOn})`}`,
    ],
    ['vendor', profile.vendor],
    ['architecture', value(profile.architecture)],
    ['VRAM', profile.vendor === 'cpu' ? 'none (plans against RAM)' : `${profile.vramGb} GB`],
    ['memory type', value(profile.memoryType)],
    ['memory bandwidth', value(profile.memoryBandwidthGBs, ' GB/s')],
    ['FP32', value(profile.fp32Tflops, ' TFLOPS')],
    ['BF16 (dense, FP32 accumulate)', value(profile.bf16Tflops, ' TFLOPS')],
    ['compute units', value(profile.computeUnits, profile.vendor === 'amd' ? ' CUs' : ' SMs')],
    ['TDP', value(profile.tdpWatts, ' W')],
    [
      'hourly price',
      profile.hourlyUsd === null
        ? 'unknown (set hourlyUsd in a custom profile)'
        : profile.hourlyUsd === 0
          ? '0 (local card)'
          : `$${profile.hourlyUsd.toFixed(2)}`,
    ],
    ['aliases', profile.aliases.join(', ') || '-'],
    ['detection patterns', profile.match.join(', ') || '-'],
  ];
  const width = Math.max(...fields.map(([k]) => k.length));
  for (const [k, v] of fields) out.line(`${k.padEnd(width)}  ${v}`);
  const w = profile.workloads;
  out.line();
  out.line('Workloads:');
  const rows = [
    {
      workload: 'drl (PPO)',
      settings: `batchSize ${w.drl.batchSize}, netDimMax ${w.drl.netDimMax}`,
      workers: w.drl.maxWorkers,
      source: w.drl.source,
    },
    {
      workload: 'forecast',
      settings: `batch 1d ${w.forecast.batchSize['1d']} / 1h ${w.forecast.batchSize['1h']}, memory per model 1d ${w.forecast.memoryPerModelGb['1d']} GB / 1h ${w.forecast.memoryPerModelGb['1h']} GB`,
      workers: w.forecast.maxWorkers,
      source: w.forecast.source,
    },
    {
      workload: 'tcn',
      settings: `chunksPerBatch ${w.tcn.chunksPerBatch}`,
      workers: w.tcn.maxWorkers,
      source: w.tcn.source,
    },
  ];
  for (const line of renderTable(rows, [
    { header: '  WORKLOAD', value: (r) => `  ${r.workload}` },
    { header: 'SETTINGS', value: (r) => r.settings },
    { header: 'MAX WORKERS', value: (r) => String(r.workers), right: true },
    { header: 'SOURCE', value: (r) => r.source },
  ]))
    out.line(line);
  if (profile.notes.length > 0) {
    out.line();
    out.line('Notes:');
    for (const note of profile.notes) out.line(`  - ${note}`);
  }
}

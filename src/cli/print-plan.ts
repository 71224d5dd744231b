import { formatBytes, type WorkerPlan } from '../profiles/index.js';
import type { PlanHere } from '../app/index.js';
import type { Output } from './output.js';
import { renderTable } from './output.js';
import { profileBanner } from './profile-banner.js';

/** Prints a plan like seed 000's "VRAM breakdown", every term with its arithmetic. */
export function printPlan(out: Output, { choice, plan, memory }: PlanHere): void {
  if (out.json) {
    out.record({
      type: 'plan',
      ...plan,
      profileSource: choice.source,
      profileOrigin: choice.origin,
      memoryTotalBytes: memory.totalBytes,
      memoryFreeBytes: memory.freeBytes ?? null,
    });
    return;
  }
  out.line(
    profileBanner(choice, plan.workers, memory.kind === 'host' ? memory.totalBytes : undefined),
  );
  if (choice.mismatch !== undefined) out.note(`note: ${choice.mismatch}`);
  out.line(describe(plan));
  out.line();
  // Resident trials: the terms are one trial's, and the process holds the shared ones once.
  const unit = plan.shared.length > 0 ? 'trial' : 'worker';
  const rows = [
    ...plan.perWorker.map((t) => ({
      label: `  ${t.label}`,
      bytes: formatBytes(t.bytes),
      formula: t.formula,
    })),
    {
      label: `  per ${unit}`,
      bytes: formatBytes(plan.perWorkerBytes),
      formula: 'sum of the above',
    },
  ];
  const table = renderTable(rows, [
    { header: `${plan.memoryKind === 'gpu' ? 'VRAM' : 'RAM'} per ${unit}`, value: (r) => r.label },
    { header: 'BYTES', value: (r) => r.bytes, right: true },
    { header: 'ARITHMETIC', value: (r) => r.formula },
  ]);
  const [header, ...body] = table;
  out.line(header);
  body.forEach((line, i) => {
    if (i === rows.length - 1)
      out.line(`  ${'-'.repeat(Math.max(10, (header?.length ?? 40) - 2))}`);
    out.line(line);
  });
  out.line();
  if (plan.shared.length > 0) {
    out.line('Once per process, shared by its trials:');
    for (const t of plan.shared) out.line(`  ${t.label}: ${formatBytes(t.bytes)} = ${t.formula}`);
    out.line();
  }
  out.line(`${plan.usable.label}: ${formatBytes(plan.usable.bytes)} = ${plan.usable.formula}`);
  out.line(plan.shared.length > 0 ? 'Trials-at-once limits:' : 'Worker limits:');
  for (const line of renderTable(plan.limits, [
    { header: '  LIMIT', value: (l) => `  ${l.by === plan.limitedBy ? '*' : ' '} ${l.by}` },
    { header: 'WORKERS', value: (l) => String(l.workers), right: true },
    { header: 'WHY', value: (l) => l.detail },
  ]))
    out.line(line);
  out.line();
  out.line(verdict(plan));
}

function describe(plan: WorkerPlan): string {
  const parts = [`${plan.workload} on ${plan.profile}`, `${plan.backend} backend`, plan.dtype];
  if (plan.workload === 'tcn') parts.push(`${plan.batchSize} chunks per batch`);
  else parts.push(`batch ${plan.batchSize.toLocaleString('en-US')}`);
  if (plan.workload === 'drl')
    parts.push(`${plan.nEnvs} envs`, `targetStep ${plan.targetStep.toLocaleString('en-US')}`);
  return `Plan: ${parts.join(', ')}`;
}

function verdict(plan: WorkerPlan): string {
  if (plan.workers === 0) {
    const biggest = [...plan.perWorker].sort((a, b) => b.bytes - a.bytes)[0];
    return `Does not fit: one ${plan.shared.length > 0 ? `trial needs ${formatBytes(plan.perWorkerBytes)} beside ${formatBytes(plan.sharedBytes)} shared` : `worker needs ${formatBytes(plan.perWorkerBytes)}`}, ${plan.limitedBy === 'wasm32' ? 'more than a wasm worker can address (4 GiB)' : `more than the usable ${formatBytes(plan.usable.bytes)}`}; the largest term is ${biggest?.label ?? '?'} (${formatBytes(biggest?.bytes ?? 0)}): ${plan.workload === 'tcn' ? 'reduce --batch-size (chunks), --chunk-len or --hidden' : 'reduce --batch-size or --net-dim'}.`;
  }
  const requested = plan.limits.find((l) => l.by === 'requested');
  if (requested !== undefined && !plan.fits) {
    return `Workers: ${plan.workers} of the ${requested.workers} requested fit (limited by ${plan.limitedBy}).`;
  }
  const total = formatBytes(plan.sharedBytes + plan.workers * plan.perWorkerBytes);
  if (plan.shared.length > 0)
    return `Trials at once: ${plan.workers} resident on the card in ${plan.trialsPerProcess === plan.workers ? 'one worker process' : 'worker processes'} (limited by ${plan.limitedBy}); total ${total} of ${formatBytes(plan.usable.bytes)} usable.`;
  return `Workers: ${plan.workers} (limited by ${plan.limitedBy}); total ${total} of ${formatBytes(plan.usable.bytes)} usable.`;
}

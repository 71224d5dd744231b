import type { BenchResult } from '../bench/index.js';
import { formatBytes } from '../profiles/index.js';
import { count } from './format.js';
import type { Output } from './output.js';
import { renderTable } from './output.js';
import { createProgress, type Progress } from './progress.js';

/**
 * A benchmark's progress on stderr as it measures: a bar with its rate and ETA on a terminal, else
 * a plain `progress:` line at every step, since a benchmark's steps are few and each takes long.
 */
export function benchProgress(total: number, unit: string, out: Output): Progress {
  return createProgress({ total, unit, plainIntervalS: 0, out });
}

/** The seconds of an update's parts, summed. */
function splitTotal(split: NonNullable<BenchResult['split']>): number {
  return split.products + split.elementWise + split.copies + split.optimizer + split.dispatch;
}

/** Prints benchmark results as a table (or one JSON object each with `--json`). */
export function printBench(out: Output, results: readonly BenchResult[]): void {
  if (out.json) {
    for (const r of results) out.record(r);
    return;
  }
  const peak = results.some((r) => r.peakShare !== undefined);
  for (const line of renderTable(results, [
    { header: 'BENCHMARK', value: (r) => r.name },
    { header: 'ITEMS', value: (r) => count(r.items), right: true },
    {
      header: 'MEDIAN S',
      value: (r) => (r.seconds < 0.01 ? r.seconds.toPrecision(3) : r.seconds.toFixed(3)),
      right: true,
    },
    { header: 'RATE', value: (r) => `${count(r.rate)} ${r.unit}`, right: true },
    ...(peak
      ? [
          {
            header: 'OF PEAK',
            value: (r: BenchResult) =>
              r.peakShare === undefined ? '-' : `${(100 * r.peakShare).toFixed(0)}%`,
            right: true,
          },
        ]
      : []),
    {
      header: 'TARGET',
      value: (r) => (r.target === undefined ? '-' : `≥ ${count(r.target)}`),
      right: true,
    },
    {
      header: 'RUNS (S)',
      value: (r) =>
        r.runs.map((s) => (s !== 0 && s < 0.01 ? s.toPrecision(2) : s.toFixed(2))).join(' '),
    },
  ]))
    out.line(line);
  // What each TARGET is: a number alone does not say whose figure it is.
  const sources = [...new Set(results.map((r) => r.targetSource).filter((s) => s !== undefined))];
  for (const source of sources) out.line(`TARGET: ${source}.`);
  for (const note of new Set(results.map((r) => r.note).filter((n) => n !== undefined)))
    out.line(`note: ${note}.`);
  for (const r of results)
    if (r.memory !== undefined)
      out.line(
        `memory after ${r.name.trim().split(':')[0] ?? ''}: ${r.memory.tensors} tensors, ${formatBytes(r.memory.tensorBytes)} of tensor data, ${r.memory.backendHeapBytes === null ? 'no' : formatBytes(r.memory.backendHeapBytes)} ${r.memory.backend} heap, ${formatBytes(r.memory.rssBytes)} resident`,
      );
  const split = results.filter((r) => r.split !== undefined);
  if (split.length > 0) {
    out.line('\nWhere an update goes (ms per update; dispatch: JavaScript between kernels):');
    const ms = (seconds: number, total: number): string =>
      `${(seconds * 1000).toFixed(1)} (${((100 * seconds) / total).toFixed(0)}%)`;
    for (const line of renderTable(split, [
      {
        header: 'PATH',
        value: (r) =>
          r.bench === 'tcn'
            ? r.name.replace(/^TCN train step, /, '')
            : r.name.replace(/^PPO update, /, '').replace(/ \(state.*$/, ''),
      },
      {
        header: 'PRODUCTS',
        value: (r) => (r.split === undefined ? '' : ms(r.split.products, splitTotal(r.split))),
        right: true,
      },
      {
        header: 'ELEMENT-WISE',
        value: (r) => (r.split === undefined ? '' : ms(r.split.elementWise, splitTotal(r.split))),
        right: true,
      },
      {
        header: 'COPIES',
        value: (r) => (r.split === undefined ? '' : ms(r.split.copies, splitTotal(r.split))),
        right: true,
      },
      {
        header: 'OPTIMIZER',
        value: (r) => (r.split === undefined ? '' : ms(r.split.optimizer, splitTotal(r.split))),
        right: true,
      },
      {
        header: 'DISPATCH',
        value: (r) => (r.split === undefined ? '' : ms(r.split.dispatch, splitTotal(r.split))),
        right: true,
      },
      { header: 'KERNELS', value: (r) => String(r.split?.kernels ?? ''), right: true },
    ]))
      out.line(line);
  }
  const gpu = results.filter((r) => r.gpu !== undefined);
  if (gpu.length > 0) {
    out.line(
      `\nWhat one ${gpu.every((r) => r.bench === 'tcn') ? 'TCN step' : 'update'} asks of the GPU (counted by one meter for every GPU path):`,
    );
    for (const line of renderTable(gpu, [
      {
        header: 'PATH',
        value: (r) =>
          r.bench === 'tcn'
            ? r.name.replace(/^TCN train step, /, '')
            : r.name.replace(/^PPO update, /, '').replace(/ \(state.*$/, ''),
      },
      { header: 'DISPATCHES', value: (r) => count(r.gpu?.dispatches ?? 0), right: true },
      { header: 'SUBMITS', value: (r) => (r.gpu?.submits ?? 0).toFixed(1), right: true },
      { header: 'UPLOADED', value: (r) => formatBytes(r.gpu?.uploadBytes ?? 0), right: true },
      { header: 'READ BACK', value: (r) => formatBytes(r.gpu?.downloadBytes ?? 0), right: true },
      {
        header: 'GPU MEMORY',
        value: (r) => (r.gpuMemoryBytes === undefined ? '-' : formatBytes(r.gpuMemoryBytes)),
        right: true,
      },
    ]))
      out.line(line);
  }
  for (const r of results) {
    const kernels = r.gpuKernels;
    if (kernels === undefined || kernels.length === 0) continue;
    const total = kernels.reduce((sum, k) => sum + k.seconds, 0);
    out.line(
      r.bench === 'tcn'
        ? `\nGPU time of one micro-batch's step by kernel (device timestamps, each dispatch timed alone), ${r.name.replace(/^TCN train step, /, '')}:`
        : `\nGPU time of one minibatch step by kernel (device timestamps, each dispatch timed alone), ${r.name.replace(/^PPO update, /, '').replace(/:.*? \(state/, ' (state')}:`,
    );
    for (const line of renderTable(kernels, [
      { header: 'KERNEL', value: (k) => k.kernel },
      { header: 'DISPATCHES', value: (k) => String(k.dispatches), right: true },
      { header: 'GPU MS', value: (k) => (k.seconds * 1000).toFixed(3), right: true },
      {
        header: 'SHARE',
        value: (k) => (total > 0 ? `${((100 * k.seconds) / total).toFixed(0)}%` : '-'),
        right: true,
      },
    ]))
      out.line(line);
  }
  const tcn = results.filter((r) => r.tcn !== undefined);
  if (tcn.length > 0) {
    out.line(
      '\nTCN steps: rates, the memory a step holds against the plan, and where a step goes (ms):',
    );
    for (const line of renderTable(tcn, [
      { header: 'CHUNKS', value: (r) => String(r.tcn?.chunks ?? ''), right: true },
      { header: 'CHECKPOINT', value: (r) => (r.tcn?.checkpoint === true ? 'on' : 'off') },
      { header: 'IT/S', value: (r) => (r.tcn?.itPerSecond ?? 0).toFixed(2), right: true },
      {
        header: 'CHUNKS/S',
        value: (r) => count((r.tcn?.itPerSecond ?? 0) * (r.tcn?.chunks ?? 0)),
        right: true,
      },
      {
        header: 'STEP MEMORY',
        value: (r) => formatBytes(r.tcn?.stepMemoryBytes ?? 0),
        right: true,
      },
      { header: 'PLANNED', value: (r) => formatBytes(r.tcn?.plannedBytes ?? 0), right: true },
      {
        header: 'CONV FWD',
        value: (r) => ((r.tcn?.split.convForward ?? 0) * 1000).toFixed(1),
        right: true,
      },
      {
        header: 'CONV BWD',
        value: (r) => ((r.tcn?.split.convBackward ?? 0) * 1000).toFixed(1),
        right: true,
      },
      { header: 'OTHER', value: (r) => ((r.tcn?.split.other ?? 0) * 1000).toFixed(1), right: true },
    ]))
      out.line(line);
  }
  const m = results[0]?.machine;
  const runs = results.map((r) => r.runs.length);
  const most = Math.max(...runs);
  if (m !== undefined)
    out.line(
      `\n${m.cpus} CPUs, Node ${m.node}, load average ${m.loadAverage.toFixed(2)} at the start; ${
        most === 1
          ? 'one run each'
          : runs.every((n) => n === most)
            ? `medians of ${most} runs`
            : `medians of up to ${most} runs (RUNS lists each row's)`
      }.`,
    );
}

import type { PpoUpdateSplit } from '../agents/ppo-update-profile.js';
import type { MemoryReport } from '../compute/memory-report.js';

/** One benchmark figure: what was measured, the median over repeats, and its target if any. */
export interface BenchResult {
  bench: string;
  /** What was measured, e.g. "import (epoch-ms CSV)". */
  name: string;
  /** Work items per run (rows, bars…). */
  items: number;
  /** Median seconds per run. */
  seconds: number;
  /** Every run's seconds. */
  runs: number[];
  /** items / seconds. */
  rate: number;
  /** The unit of `rate`, e.g. "rows/s". */
  unit: string;
  /** The rate as a share of the machine's measured compute peak, where that is meaningful. */
  peakShare?: number;
  /** The target, in the same unit, when there is one. */
  target?: number;
  /**
   * What the target is and where it comes from, printed under the table: a TARGET column alone
   * does not say it is PyTorch's figure, or 4× FinRL_Crypto's.
   */
  targetSource?: string;
  /** Said under the table, e.g. why there is no same-run reference to compare with. */
  note?: string;
  /** Where and how it ran. */
  machine: { cpus: number; node: string; loadAverage: number };
  /** The backend's memory after the measurement, where it matters. */
  memory?: MemoryReport;
  /** Where one item's batch of work spent its time (bench ppo-update): seconds per update. */
  split?: PpoUpdateSplit;
  /** bench tcn: rates, memory and the step's split. */
  tcn?: TcnBenchDetail;
  /** GPU rows: what one update asked of the device, counted by one meter for every GPU path. */
  gpu?: GpuUpdateCounts;
  /** The engine's rows: the bytes its buffers hold on the GPU (every one it made). */
  gpuMemoryBytes?: number;
  /** The engine's rows: GPU time per kernel of one minibatch step, by device timestamps. */
  gpuKernels?: { kernel: string; dispatches: number; seconds: number }[];
}

/** Per update: kernel dispatches, command submits, and bytes to and from the device. */
export interface GpuUpdateCounts {
  dispatches: number;
  submits: number;
  uploadBytes: number;
  downloadBytes: number;
}

/**
 * Called by a long benchmark before each figure it measures (`done` of `total` so far) and once
 * at the end (`done` = `total`), so the CLI can show a progress line.
 */
export type BenchStep = (name: string, done: number, total: number) => void;

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Runs `fn` `repeat` times (after `setup` each time, untimed) and returns every run's seconds. */
export async function timeRuns(
  repeat: number,
  fn: () => unknown,
  setup?: () => unknown,
): Promise<number[]> {
  const runs: number[] = [];
  for (let r = 0; r < repeat; r++) {
    await setup?.();
    const started = performance.now();
    await fn();
    runs.push((performance.now() - started) / 1000);
  }
  return runs;
}

/** What a TCN row adds to a {@link BenchResult}. */
export interface TcnBenchDetail {
  chunks: number;
  seq: number;
  checkpoint: boolean;
  itPerSecond: number;
  timestepsPerSecond: number;
  /** Peak tensor bytes during a step above the bytes alive before it. */
  stepMemoryBytes: number;
  /** The planner's estimate of the same: activations, gradients, transients (tcn-size.ts). */
  plannedBytes: number;
  /** Seconds per step by kernel group: the convolutions forward and backward, everything else. */
  split: { convForward: number; convBackward: number; other: number };
  params: number;
}

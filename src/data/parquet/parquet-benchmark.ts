/**
 * Times the Parquet writer and reader on a bar-shaped table (1 timestamp + 5 double columns), for
 * checking the store's speed by hand; bench/parquet-libraries.mjs compares libraries.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ParquetColumnInput } from './parquet-table.js';
import { readParquetFile } from './read-parquet.js';
import { writeParquetFile } from './write-parquet.js';

/** Options for {@link benchmarkParquet}. */
export interface ParquetBenchmarkOptions {
  /** Rows to write and read. Default 2_600_000 (seed 004's 1-minute history). */
  rows?: number;
  /** Timed repetitions of each step; the report keeps the fastest and the median. Default 5. */
  repeats?: number;
  /** Directory for the temp files. Default the OS temp directory. */
  dir?: string;
}

/** Fastest and median wall time of one step, and the least CPU time, in milliseconds. */
export interface BenchmarkTiming {
  bestMs: number;
  medianMs: number;
  /**
   * Least process CPU time (user + system, all threads) of a run: close to the wall time an idle
   * machine would show when wall times are inflated by other load.
   */
  bestCpuMs: number;
}

/** What {@link benchmarkParquet} measured. */
export interface ParquetBenchmarkResult {
  rows: number;
  columns: number;
  fileBytes: number;
  /** Write including fsync of file and directory (what the store does). */
  writeFsync: BenchmarkTiming;
  /** Write without fsync: the codec and the page-cache copy only. */
  writeNoFsync: BenchmarkTiming;
  /** Read of the whole file from the page cache (it was just written). */
  read: BenchmarkTiming;
}

/** Writes and reads a synthetic bar table several times and reports the timings. */
export async function benchmarkParquet(
  options: ParquetBenchmarkOptions = {},
): Promise<ParquetBenchmarkResult> {
  const rows = options.rows ?? 2_600_000;
  const repeats = options.repeats ?? 5;
  const columns = barColumns(rows);
  const dir = await mkdtemp(join(options.dir ?? tmpdir(), 'tradelab-parquet-bench-'));
  try {
    const path = join(dir, 'bars.parquet');
    const table = { columns, metadata: { 'tradelab.symbol': 'BENCH', 'tradelab.timeframe': '1m' } };
    const writeFsync = await time(repeats, () => writeParquetFile(path, table));
    const writeNoFsync = await time(repeats, () => writeParquetFile(path, table, { fsync: false }));
    const read = await time(repeats, () => readParquetFile(path));
    return {
      rows,
      columns: columns.length,
      fileBytes: (await stat(path)).size,
      writeFsync,
      writeNoFsync,
      read,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 1-minute bars: a timestamp and a random-walk OHLCV to the cent (as real prices are), deterministic. */
function barColumns(rows: number): ParquetColumnInput[] {
  const ts = new Float64Array(rows);
  const open = new Float64Array(rows);
  const high = new Float64Array(rows);
  const low = new Float64Array(rows);
  const close = new Float64Array(rows);
  const volume = new Float64Array(rows);
  let price = 30_000;
  let seed = 4;
  const next = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 4294967296;
  };
  for (let i = 0; i < rows; i++) {
    ts[i] = 1_577_836_800_000 + i * 60_000;
    const o = cents(price);
    price *= 1 + (next() - 0.5) * 0.002;
    open[i] = o;
    close[i] = cents(price);
    high[i] = cents(Math.max(o, price) * (1 + next() * 0.0005));
    low[i] = cents(Math.min(o, price) * (1 - next() * 0.0005));
    volume[i] = Math.round(next() * 50_000) / 1000;
  }
  return [
    { name: 'timestamp', type: 'timestamp-ms', values: ts },
    { name: 'open', type: 'double', values: open },
    { name: 'high', type: 'double', values: high },
    { name: 'low', type: 'double', values: low },
    { name: 'close', type: 'double', values: close },
    { name: 'volume', type: 'double', values: volume },
  ];
}

function cents(x: number): number {
  return Math.round(x * 100) / 100;
}

async function time(repeats: number, step: () => Promise<unknown>): Promise<BenchmarkTiming> {
  const samples: number[] = [];
  let bestCpuMs = Infinity;
  for (let i = 0; i < repeats; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await step();
    samples.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    bestCpuMs = Math.min(bestCpuMs, (used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return {
    bestMs: samples[0] ?? NaN,
    medianMs: samples[Math.floor(samples.length / 2)] ?? NaN,
    bestCpuMs,
  };
}

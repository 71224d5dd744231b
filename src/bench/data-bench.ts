import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeFeatures } from '../data/features/index.js';
import { importFiles } from '../data/import/import-files.js';
import { loadMarketData } from '../data/load-market-data.js';
import { resampleBars } from '../data/resample.js';
import { calendarFor } from '../data/calendar.js';
import type { Bars } from '../data/bars.js';
import { openDatasetStore } from '../data/store/dataset-store.js';
import { generateSynthetic } from '../data/synth/generate-synthetic.js';
import { median, timeRuns, type BenchResult } from './bench-result.js';

/** Options for {@link benchData}. */
export interface DataBenchOptions {
  /** Rows of the 1-minute CSV. Default 2,600,000 (seed 004's size). */
  rows?: number;
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /** Called as each figure is measured (for progress output). */
  onResult?: (result: BenchResult) => void;
  /** Called before each phase. */
  onPhase?: (phase: string) => void;
}

/**
 * The data layer's benchmark (issue targets in brackets): import of a 1-minute CSV with epoch-ms
 * and with ISO-8601 timestamps [≥ 1 M rows/s], resampling it to 5m/1h/1d [≥ 5 M rows/s], computing
 * features on it, and loading an aligned 10-asset × 100k-bar price and feature array [well under 1 s].
 * Everything runs in one thread, in a temporary store that is removed afterwards.
 */
export async function benchData(options: DataBenchOptions = {}): Promise<BenchResult[]> {
  const rows = options.rows ?? 2_600_000;
  const repeat = options.repeat ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-bench-data-'));
  const results: BenchResult[] = [];
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const record = (
    name: string,
    items: number,
    runs: number[],
    unit: string,
    target?: number,
  ): void => {
    const seconds = median(runs);
    const result: BenchResult = {
      bench: 'data',
      name,
      items,
      seconds,
      runs,
      rate: items / seconds,
      unit,
      machine,
      ...(target === undefined
        ? {}
        : {
            target,
            targetSource:
              "the project's goals for the data layer, one thread: import 1 M rows/s, resample 5 M rows/s",
          }),
    };
    results.push(result);
    options.onResult?.(result);
  };
  try {
    options.onPhase?.(`generating a ${rows.toLocaleString('en-US')}-row 1-minute CSV`);
    const market = generateSynthetic({
      symbols: 1,
      bars: rows,
      timeframe: '1m',
      seed: 4,
      signal: 0,
    });
    const bars = market.bars[0];
    if (bars === undefined) throw new Error('synthetic market has no bars');
    const epochCsv = join(dir, 'bench_1m_epoch.csv');
    const isoCsv = join(dir, 'bench_1m_iso.csv');
    writeFileSync(
      epochCsv,
      benchCsv(bars, (t) => String(t)),
    );
    writeFileSync(
      isoCsv,
      benchCsv(bars, (t) => new Date(t).toISOString()),
    );

    for (const [name, file] of [
      ['import (epoch-ms CSV)', epochCsv],
      ['import (ISO-8601 CSV)', isoCsv],
    ] as const) {
      options.onPhase?.(name);
      let store = openDatasetStore(join(dir, 'store-0'));
      let run = 0;
      const runs = await timeRuns(
        repeat,
        () =>
          importFiles(store, {
            inputs: [file],
            baseDir: dir,
            key: { symbol: 'BENCH', timeframe: '1m' },
          }),
        () => {
          rmSync(store.dir, { recursive: true, force: true });
          store = openDatasetStore(join(dir, `store-${run++}`));
        },
      );
      record(name, rows, runs, 'rows/s', 1_000_000);
      rmSync(store.dir, { recursive: true, force: true });
    }

    const calendar = calendarFor('24/7');
    for (const to of ['5m', '1h', '1d'] as const) {
      options.onPhase?.(`resample 1m → ${to}`);
      const runs = await timeRuns(repeat, () => resampleBars(bars, { from: '1m', to, calendar }));
      record(`resample 1m → ${to}`, rows, runs, 'rows/s', 5_000_000);
    }

    options.onPhase?.('features');
    record(
      'features (all defaults)',
      rows,
      await timeRuns(repeat, () => computeFeatures(bars)),
      'rows/s',
    );

    options.onPhase?.('load 10 assets × 100k bars');
    const loadStore = openDatasetStore(join(dir, 'store-load'));
    const ten = generateSynthetic({ symbols: 10, bars: 100_000, timeframe: '1h', seed: 5 });
    for (const [i, symbol] of ten.symbols.entries()) {
      const series = ten.bars[i];
      if (series === undefined) continue;
      await loadStore.write({ symbol, timeframe: '1h' }, series, {
        calendar: '24/7',
        gaps: { unexpected: 0, missingBars: 0, largest: undefined, closures: 0 },
        adjusted: false,
        sources: [],
      });
    }
    const keys = ten.symbols.map((symbol) => ({ symbol, timeframe: '1h' as const }));
    // The first load computes the features and caches them beside each dataset; later loads read them.
    record(
      'load 10 × 100k bars, first (computes features)',
      1_000_000,
      await timeRuns(1, () => loadMarketData(loadStore, keys)),
      'bars/s',
    );
    record(
      'load 10 × 100k bars (prices + cached features)',
      1_000_000,
      await timeRuns(repeat, () => loadMarketData(loadStore, keys)),
      'bars/s',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/**
 * The bars as a CSV the way exchanges write them: prices to the cent, volumes to 0.001 (full
 * 17-digit doubles would send every field down the slow parsing path, which real files do not).
 */
function benchCsv(bars: Bars, time: (t: number) => string): string {
  const parts: string[] = ['timestamp,open,high,low,close,volume\n'];
  let chunk = '';
  const cents = (x: number | undefined): string => (x ?? 0).toFixed(2);
  for (let i = 0; i < bars.timestamps.length; i++) {
    chunk += `${time(bars.timestamps[i] ?? 0)},${cents(bars.open[i])},${cents(bars.high[i])},${cents(bars.low[i])},${cents(bars.close[i])},${(bars.volume[i] ?? 0).toFixed(3)}\n`;
    if (chunk.length > 1 << 16) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

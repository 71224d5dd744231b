import { rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { plural } from '../core/plural.js';
import { Rng } from '../core/random.js';
import { openMemoryStorage } from '../storage/memory-storage.js';
import { trialRecord, type TrialRecord } from '../storage/records.js';
import { openSqliteStorage } from '../storage/sqlite-storage.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { compiledPath } from '../core/compiled-path.js';
import { objective } from '../tune/objectives/quadratic.js';
import { optimize } from '../tune/optimize.js';
import { TpeSampler } from '../tune/samplers/tpe-sampler.js';
import { Study } from '../tune/study.js';
import { runWorkers } from '../tune/worker-pool.js';
import { median, type BenchResult } from './bench-result.js';

/** Options for {@link benchTune}. */
export interface TuneBenchOptions {
  /** Trials per throughput run. Default 500. */
  trials?: number;
  /** Worker-process counts to measure on one SQLite file. Default [2, 8]. */
  processes?: readonly number[];
  /** Finished-trial counts at which TPE's per-suggestion time is measured. Default 100 … 10,000. */
  history?: readonly number[];
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /** Called before each measurement, e.g. for a progress line. */
  onStep?: (name: string) => void;
}

/**
 * The targets: 10× Optuna 3.1 measured on the development machine (in-memory TPE 286
 * trials/s, SQLite 43, two processes on SQLite 51; TPE 8 ms per suggestion at 1,000 trials and
 * 20 ms at 2,000).
 */
const TARGETS = {
  memory: 2860,
  sqlite: 430,
  processes2: 510,
  suggest1000: 1000 / 0.8,
  suggest2000: 1000 / 2,
};

/** A fresh SQLite file path (and its WAL files) in the temp directory. */
function freshDb(label: string): { path: string; remove: () => void } {
  const path = join(tmpdir(), `tradelab-bench-${label}-${process.pid}-${Date.now()}.db`);
  const remove = (): void => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  };
  return { path, remove };
}

/** Seconds from the first trial's start to the last one's end. */
function activeSeconds(trials: readonly TrialRecord[]): number {
  const start = Math.min(...trials.map((t) => t.startedAt ?? Infinity));
  const end = Math.max(...trials.map((t) => t.finishedAt ?? -Infinity));
  return (end - start) / 1000;
}

/**
 * The study engine's benchmark: trials/s of x² over one float with TPE (500 trials) in memory,
 * on SQLite in one process, and on one SQLite file from several worker processes; then TPE's time
 * per suggestion against histories of 100 to 10,000 finished trials. In-process figures follow an
 * untimed warm-up run; worker processes start cold each time, so their figures include the JIT's
 * warm-up, and are given with and without the processes' start.
 */
export async function benchTune(options: TuneBenchOptions = {}): Promise<BenchResult[]> {
  const trials = options.trials ?? 500;
  const processes = options.processes ?? [2, 8];
  const history = options.history ?? [100, 1000, 2000, 10_000];
  const repeat = options.repeat ?? 3;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const results: BenchResult[] = [];
  const push = (r: Omit<BenchResult, 'machine' | 'bench' | 'rate'>): void => {
    results.push({ bench: 'tune', ...r, rate: r.items / r.seconds, machine });
  };

  const inProcess = async (
    name: string,
    open: () => { storage: StudyStorage; done: () => void },
    target: number,
  ): Promise<void> => {
    options.onStep?.(name);
    const runs: number[] = [];
    // One untimed run first, so the JIT has compiled the engine and the sampler.
    for (let r = -1; r < repeat; r++) {
      const { storage, done } = open();
      const study = await Study.create(storage, {
        name: 'bench',
        direction: 'minimize',
        sampler: { type: 'tpe', seed: 1 },
        pruner: { type: 'nop' },
      });
      const started = performance.now();
      await optimize(study, objective, { nTrials: trials });
      if (r >= 0) runs.push((performance.now() - started) / 1000);
      await storage.close();
      done();
    }
    push({ name, items: trials, seconds: median(runs), runs, unit: 'trials/s', target });
  };

  await inProcess(
    `optimize, memory:, TPE, ${plural(trials, 'trial')}`,
    () => ({ storage: openMemoryStorage(), done: () => undefined }),
    TARGETS.memory,
  );
  await inProcess(
    `optimize, sqlite:, 1 process, TPE, ${plural(trials, 'trial')}`,
    () => {
      const db = freshDb('sqlite');
      return { storage: openSqliteStorage(db.path), done: db.remove };
    },
    TARGETS.sqlite,
  );

  for (const n of processes) {
    const name = `workers, sqlite:, ${plural(n, 'process', 'processes')}, TPE, ${plural(trials, 'trial')}`;
    options.onStep?.(name);
    const total: number[] = [];
    const active: number[] = [];
    let failed = 0;
    for (let r = 0; r < repeat; r++) {
      const db = freshDb(`workers${n}`);
      const storage = openSqliteStorage(db.path);
      await Study.create(storage, {
        name: 'bench',
        direction: 'minimize',
        sampler: { type: 'tpe', seed: 1 },
        pruner: { type: 'nop' },
      });
      const started = performance.now();
      const summary = await runWorkers(storage, 'bench', {
        workers: n,
        nTrials: trials,
        objective: compiledPath('tune/objectives/quadratic.js'),
      });
      total.push((performance.now() - started) / 1000);
      active.push(activeSeconds(summary.trials));
      failed += summary.failed + summary.lost;
      await storage.close();
      db.remove();
    }
    const target = n === 2 ? TARGETS.processes2 : undefined;
    push({
      name: `${name}, trials only (${failed} failed)`,
      items: trials,
      seconds: median(active),
      runs: active,
      unit: 'trials/s',
      ...(target === undefined ? {} : { target }),
    });
    push({
      name: `${name}, with process start`,
      items: trials,
      seconds: median(total),
      runs: total,
      unit: 'trials/s',
    });
  }

  for (const n of history) {
    const name = `TPE suggestion, ${n.toLocaleString('en-US')} finished trials`;
    options.onStep?.(name);
    const context = tpeHistory(n);
    const sampler = new TpeSampler({ seed: 1 });
    const calls = n >= 5000 ? 20 : 100;
    const distribution = { type: 'float', low: -10, high: 10, log: false, step: null } as const;
    const runs: number[] = [];
    for (let r = -1; r < repeat; r++) {
      const started = performance.now();
      for (let c = 0; c < calls; c++) {
        context.trial.number = n + c;
        sampler.sampleIndependent(context, 'x', distribution);
      }
      if (r >= 0) runs.push((performance.now() - started) / 1000);
    }
    const target = n === 1000 ? TARGETS.suggest1000 : n === 2000 ? TARGETS.suggest2000 : undefined;
    push({
      name,
      items: calls,
      seconds: median(runs),
      runs,
      unit: 'suggestions/s',
      ...(target === undefined ? {} : { target }),
    });
  }
  return results;
}

/** A minimize study's history of `n` complete trials of x² over x in [−10, 10]. */
function tpeHistory(n: number): {
  direction: 'minimize';
  trials: TrialRecord[];
  trial: TrialRecord;
} {
  const rng = new Rng(5);
  const distribution = { type: 'float', low: -10, high: 10, log: false, step: null } as const;
  const trials = Array.from({ length: n }, (_, number) => {
    const x = rng.uniform() * 20 - 10;
    return trialRecord({
      number,
      state: 'complete',
      params: { x },
      distributions: { x: distribution },
      value: x * x,
    });
  });
  return { direction: 'minimize', trials, trial: trialRecord({ number: n }) };
}

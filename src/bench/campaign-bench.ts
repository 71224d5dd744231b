import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBackend } from '../compute/backends.js';
import { TradelabError } from '../core/index.js';
import { loadMarketData, openDatasetStore, parseDatasetKeys } from '../data/index.js';
import { mlpParamCount } from '../profiles/index.js';
import { openSqliteStorage } from '../storage/sqlite-storage.js';
import type { TrialRecord } from '../storage/records.js';
import { loadPreset } from '../trading/presets.js';
import { studyMarket } from '../trading/study-data.js';
import { resolveDrlStudy, type DrlStudySpec } from '../trading/study-spec.js';
import { openProject, planStudyWorkers, workerSettings } from '../app/index.js';
import { resolveObjective, runWorkers, Study, type PrunerSpec } from '../tune/index.js';
import type { BenchResult } from './bench-result.js';
import { writeSyntheticMarket } from './synthetic-store.js';
import { benchGemm } from './gemm-bench.js';

/*
 * FinRL_Crypto's own CPCV optimization (the Python system seed 000 descends from) as a tradelab
 * study, on synthetic data of its shape: 10 assets, 5-minute bars, 25,000 bars, CPCV with 5 groups
 * and 2 test groups (10 splits), embargo 50 bars, actor and critic MLPs of two hidden layers of 512,
 * minibatch 2048, 5,000 env steps per rollout, 15,000 per split, 16 passes per rollout, learning
 * rate from {0.03, 0.023, 0.015, 0.0075, 5e-6}, gamma from {0.85, 0.99, 0.999}, fees 0.3%.
 *
 * FinRL_Crypto's script is not part of tradelab, so the bench prints no ratio with it: a figure of
 * another machine or day is no comparison. It prints absolute trials/hour and each run's share of
 * this machine's measured matrix-product limit; docs/compute.md says how to run FinRL_Crypto
 * beside it.
 */

/** FinRL_Crypto's env steps a split: at any other budget the study is not its study. */
const FINRL_CRYPTO_STEPS = 15_000;

/** Options for {@link benchCampaign}. */
export interface CampaignBenchOptions {
  /** Trials of each run without pruning. Default 4 on 1 worker, 6 on `workers auto`. */
  trials?: number;
  /** Trials of the pruned run (the median pruner waits for 5 complete ones). Default 14. */
  prunedTrials?: number;
  /** Env steps per split (FinRL_Crypto's 15,000); smaller for a quick look, not a measurement. */
  steps?: number;
  /**
   * Which runs: default one, auto and pruned (the CPU). `gpu`: the trials resident on tradelab's
   * engine, as many at once in one worker as the planner fits (at most the run's trials), with a
   * ratio row against `auto` (this machine's CPU path on all its cores) when both ran.
   */
  runs?: readonly CampaignBenchRun[];
  /** Trials of the gpu run. Default 16. */
  gpuTrials?: number;
  /** The gpu run's profile (its VRAM sizes the trials at once). Default: the detected one. */
  profile?: string | undefined;
  onTrial?: (run: string, trial: TrialRecord, done: number, total: number) => void;
}

/** A run of the bench: its workers, pruner and backend. */
export type CampaignBenchRun = 'one' | 'auto' | 'pruned' | 'gpu';

const SYMBOLS = Array.from({ length: 10 }, (_, i) => `FR${i}`);

/** Runs the configuration and returns one row per run, then the compute-limit rows. */
export async function benchCampaign(options: CampaignBenchOptions = {}): Promise<BenchResult[]> {
  const steps = options.steps ?? FINRL_CRYPTO_STEPS;
  const cores = availableParallelism();
  const machine = { cpus: cores, node: process.version, loadAverage: loadavg()[0] ?? 0 };
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-bench-campaign-'));
  const results: BenchResult[] = [];
  try {
    await useBackend('wasm');
    const dataDir = join(dir, 'data');
    const store = openDatasetStore(dataDir);
    await writeSyntheticMarket(store, {
      symbols: SYMBOLS,
      bars: 25_000,
      timeframe: '5m',
      seed: 1,
      derivedFrom: 'bench campaign: synth --seed 1',
    });
    const dataSpec = `${SYMBOLS.join(',')}:5m`;
    const data = await loadMarketData(store, parseDatasetKeys(dataSpec));
    const spec = resolveDrlStudy(
      {
        preset: 'ensemble_balanced',
        dataSpec,
        market: studyMarket(data),
        cv: 'cpcv:5:2',
        embargo: 50,
        holdout: 'none',
        budgetScale: 1,
        seed: 1,
        params: {
          learningRate: [0.03, 0.023, 0.015, 0.0075, 5e-6],
          gamma: [0.85, 0.99, 0.999],
          netDim: 512,
          batchSize: 2048,
          targetStep: 5000,
          breakStep: steps,
          repeatTimes: 16,
          buyFeeBps: 30,
          sellFeeBps: 30,
        },
      },
      loadPreset('ensemble_balanced'),
    );
    const project = openProject({
      cwd: dir,
      env: {},
      flags: { dataDir, backend: 'wasm', detect: 'false' },
    });
    // The GPU run's project: the engine, on the profile detection picks (the card's VRAM).
    const onEngine = openProject({
      cwd: dir,
      env: {},
      flags: {
        dataDir,
        backend: 'gpu',
        ...(options.profile === undefined ? {} : { profile: options.profile }),
      },
    });
    const storage = openSqliteStorage(join(dir, 'study.db'));
    try {
      const settings = { ...(await workerSettings(project)) };
      const runs = options.runs ?? ['one', 'auto', 'pruned'];
      let autoWorkers: number | undefined;
      let peak: number | undefined;
      const perHourOf = new Map<CampaignBenchRun, number>();
      for (const run of runs) {
        if (run === 'gpu') {
          const row = await gpuRun(onEngine, storage, spec, steps, options, machine);
          results.push(row);
          perHourOf.set('gpu', row.rate);
          continue;
        }
        const name = `finrl-${run}`;
        const pruner: PrunerSpec = run === 'pruned' ? { type: 'median' } : { type: 'nop' };
        await Study.create(storage, {
          name,
          direction: 'maximize',
          sampler: { type: 'tpe', seed: 1 },
          pruner,
          systemAttrs: { drl: spec, objective: 'drl' },
        });
        autoWorkers ??= (await planStudyWorkers(project, spec)).plan.workers;
        const workers = run === 'one' ? 1 : Math.min(autoWorkers, cores);
        const trials =
          run === 'pruned'
            ? (options.prunedTrials ?? 14)
            : (options.trials ?? (run === 'one' ? 4 : 6));
        let done = 0;
        const summary = await runWorkers(storage, name, {
          workers,
          nTrials: trials,
          objective: resolveObjective('drl'),
          objectiveOptions: settings,
          onTrialEnd: (trial) => options.onTrial?.(run, trial, ++done, trials),
        });
        const ended = summary.trials;
        const prunedAfter = new Map<number, number>();
        for (const t of ended)
          if (t.state === 'pruned' && typeof t.userAttrs.prunedAfterSplit === 'number')
            prunedAfter.set(
              t.userAttrs.prunedAfterSplit,
              (prunedAfter.get(t.userAttrs.prunedAfterSplit) ?? 0) + 1,
            );
        const perHour = (ended.length / summary.seconds) * 3600;
        perHourOf.set(run, perHour);
        const phases = phaseSplit(ended);
        const label = {
          one: '1 worker, no pruning',
          auto: `workers auto (${workers}), no pruning`,
          pruned: `workers auto (${workers}), median pruner`,
        }[run];
        const pruning =
          run === 'pruned'
            ? `; ${summary.pruned} of ${ended.length} pruned${
                prunedAfter.size === 0
                  ? ''
                  : `, after split ${[...prunedAfter.entries()]
                      .sort((a, b) => a[0] - b[0])
                      .map(([s, n]) => `${s + 1} (${n})`)
                      .join(', ')}`
              }`
            : '';
        results.push({
          bench: 'campaign',
          name: `FinRL_Crypto's CPCV study, ${label}${pruning}; trial time ${phases}`,
          items: ended.length,
          seconds: summary.seconds,
          runs: [summary.seconds],
          rate: perHour,
          unit: 'trials/hour',
          note: studyNote(steps),
          machine,
        });
        peak ??= await gemmPeak();
        results.push(computeLimitRow(spec, ended, summary.seconds, workers, machine, peak));
      }
      const gpu = perHourOf.get('gpu');
      const cpu = perHourOf.get('auto');
      if (gpu !== undefined && cpu !== undefined && cpu > 0)
        results.push({
          bench: 'campaign',
          name: `  GPU run / CPU run on all ${cores} cores (workers auto), same study, same run`,
          items: 1,
          seconds: 0,
          runs: [],
          rate: gpu / cpu,
          unit: '×',
          machine,
        });
    } finally {
      await storage.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** The study's trials resident on the engine: one worker, K trials at once as the planner fits. */
async function gpuRun(
  project: ReturnType<typeof openProject>,
  storage: ReturnType<typeof openSqliteStorage>,
  spec: DrlStudySpec,
  steps: number,
  options: CampaignBenchOptions,
  machine: BenchResult['machine'],
): Promise<BenchResult> {
  const name = 'finrl-gpu';
  await Study.create(storage, {
    name,
    direction: 'maximize',
    sampler: { type: 'tpe', seed: 1 },
    pruner: { type: 'nop' },
    systemAttrs: { drl: spec, objective: 'drl' },
  });
  const trials = options.gpuTrials ?? 16;
  const { plan } = await planStudyWorkers(project, spec);
  if (plan.shared.length === 0)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `bench campaign --runs gpu: profile ${plan.profile} puts no trial on a card (${plan.device}), so nothing would be resident`,
      {
        hint: 'run it where a GPU is detected (the GPU bundle does), or name a GPU profile with --profile',
      },
    );
  const atOnce = Math.max(1, Math.min(plan.workers, trials));
  let done = 0;
  const summary = await runWorkers(storage, name, {
    workers: 1,
    trialsPerWorker: atOnce,
    nTrials: trials,
    objective: resolveObjective('drl'),
    objectiveOptions: { ...(await workerSettings(project)) },
    onTrialEnd: (trial) => options.onTrial?.('gpu', trial, ++done, trials),
  });
  const ended = summary.trials;
  const where = [...new Set(ended.map((t) => `${String(t.userAttrs.envDevice)} env`))].join(', ');
  return {
    bench: 'campaign',
    name: `FinRL_Crypto's CPCV study on the GPU engine, ${atOnce} trials at once in 1 worker (${plan.profile}, limited by ${plan.limitedBy}; ${where}), no pruning; trial time ${phaseSplit(ended)}`,
    items: ended.length,
    seconds: summary.seconds,
    runs: [summary.seconds],
    rate: (ended.length / summary.seconds) * 3600,
    unit: 'trials/hour',
    note: studyNote(steps),
    machine,
  };
}

/**
 * What a run's trials/hour can be compared with: at FinRL_Crypto's 15,000 env steps a split, its
 * own script run beside it on this machine; at any other budget, nothing (2,000 steps a split run
 * many times more trials an hour, and say nothing of the real study).
 */
export function studyNote(steps: number): string {
  if (steps !== FINRL_CRYPTO_STEPS)
    return `${steps.toLocaleString('en-US')} env steps a split, not FinRL_Crypto's ${FINRL_CRYPTO_STEPS.toLocaleString('en-US')}: a quick look, not its study`;
  return "no ratio: compare with FinRL_Crypto's own script run beside it on this machine (docs/compute.md)";
}

/** Mean trial seconds and their split: rollout, update, the rest (evaluation, setup). */
function phaseSplit(trials: readonly TrialRecord[]): string {
  let total = 0;
  let rollout = 0;
  let update = 0;
  for (const t of trials) {
    if (t.startedAt === null || t.finishedAt === null) continue;
    total += (t.finishedAt - t.startedAt) / 1000;
    rollout += typeof t.userAttrs.rolloutSeconds === 'number' ? t.userAttrs.rolloutSeconds : 0;
    update += typeof t.userAttrs.updateSeconds === 'number' ? t.userAttrs.updateSeconds : 0;
  }
  if (total === 0) return 'unknown';
  const pct = (x: number): string => `${Math.round((100 * x) / total)}%`;
  return `${(total / trials.length).toFixed(0)} s: rollout ${pct(rollout)}, update ${pct(update)}, other ${pct(total - rollout - update)}`;
}

/** The best kernel's rate on the update's hidden-layer product, on one thread (GFLOP/s). */
async function gemmPeak(): Promise<number> {
  const rows = await benchGemm({
    onlyBest: true,
    repeat: 3,
    shapes: [
      { m: 2048, n: 512, k: 512, transA: false, transB: false, role: 'forward, hidden layer' },
    ],
  });
  return Math.max(...rows.map((r) => r.rate));
}

/**
 * The fraction of the machine's matrix-product limit the run reached: each trial's PPO FLOPs (the
 * update: 6 × params per sample and pass; the rollout: 2 × params per env step) over the best
 * kernel's measured rate times the workers' cores.
 */
function computeLimitRow(
  spec: DrlStudySpec,
  trials: readonly TrialRecord[],
  seconds: number,
  workers: number,
  machine: BenchResult['machine'],
  peakGflops: number,
): BenchResult {
  const assets = spec.data.symbols.length;
  const obsDim = 1 + assets * (2 + (spec.data.featureCount ?? 7));
  const params = mlpParamCount({ obsDim, actDim: assets, netDim: 512, layers: 2 });
  let flops = 0;
  for (const t of trials) {
    const envSteps = typeof t.userAttrs.envSteps === 'number' ? t.userAttrs.envSteps : 0;
    const repeat = typeof t.params.repeatTimes === 'number' ? t.params.repeatTimes : 16;
    flops += envSteps * (2 * params + 6 * params * repeat);
  }
  const limit = peakGflops * 1e9 * workers * seconds;
  return {
    bench: 'campaign',
    name: `  compute: ${(flops / 1e12).toFixed(1)} TFLOP of PPO products in ${seconds.toFixed(0)} s on ${workers} cores at ${peakGflops.toFixed(0)} GFLOP/s each (best kernel, 2048×512×512): share of the limit`,
    items: trials.length,
    seconds,
    runs: [seconds],
    rate: limit === 0 ? 0 : (100 * flops) / limit,
    unit: '% of the limit',
    machine,
  };
}

import { planWorkers, type GpuProfile, type LimitKind } from '../profiles/index.js';
import type { CampaignReport } from './campaign-report.js';

/*
 * What a campaign would do on another machine, from what it measured here: seed 000's question
 * ("16–20×", "30 days → 2.3 days") answered factor by factor, each with its source. tradelab's
 * trials run their env steps and, with backend auto, their PPO updates on CPU cores (on an H100,
 * tfjs's WebGPU update ran no faster than one core: docs/compute.md § WebGPU), so a trial takes as
 * long there as here on a core as fast, and what changes is how many workers run at once: the
 * target's cores and memory (the profile's worker cap is its card's, which these trials do not use).
 */

/** Where a factor comes from. */
export type FactorSource = 'measured' | 'profile spec' | 'assumption' | 'planner';

/** One factor of the projection. */
export interface ProjectionFactor {
  name: string;
  /** The factor's value, in its unit. */
  value: number;
  unit: string;
  source: FactorSource;
  detail: string;
}

/** The machine the projection is for, beside its GPU profile. */
export interface TargetHost {
  cores: number;
  ramBytes: number;
  /** Whether the cores and RAM were given or assumed equal to this machine's. */
  given: boolean;
  /** Speed of one of its cores relative to one here (1 unless given). */
  coreSpeed: number;
}

/** The projection's result. */
export interface CampaignProjection {
  campaign: string;
  /** How the campaign ran here; workers and cores are null for a campaign run before tradelab recorded them. */
  from: { profile: string; workers: number | null; cores: number | null };
  to: {
    profile: string;
    displayName: string;
    workers: number;
    limitedBy: LimitKind;
    cores: number;
  };
  factors: ProjectionFactor[];
  /** Seconds one trial takes there (mean over ended trials, pruned ones included). */
  trialSeconds: number;
  trialsPerHour: number;
  trialsPerDay: number;
  /** Trials the projection finishes, and in how long. */
  trials: number;
  hours: number;
  /** What those hours cost at the profile's price; null when it has none. */
  costUsd: number | null;
  /** For comparison: the same trials at the rate measured here. */
  hoursHere: number | null;
  notes: string[];
}

/** Projects `report`, measured on profile `source`, onto `target` on `host`. */
export function projectCampaign(input: {
  report: CampaignReport;
  source: GpuProfile;
  target: GpuProfile;
  host: TargetHost;
  /** Trials per study to finish (default: each study's target). */
  trialsPerStudy?: number;
  safetyFactor?: number;
}): CampaignProjection {
  const { report, source, target, host } = input;
  const run = report.plan.run;
  const counts = report.total.counts;
  if (counts.meanDurationMs === null || counts.done === 0)
    throw new Error(`campaign ${report.name} has no ended trial to measure`);
  const trialSecondsHere = counts.meanDurationMs / 1000;
  // Trials at once here: resident trials share a worker process.
  const workersHere = run === undefined ? null : run.workers * (run.trialsPerWorker ?? 1);
  const coresHere = run?.cores ?? null;
  const { rollout, update, other } = report.phases;
  const time = rollout + update + other;
  const share = (x: number): number => (time > 0 ? x / time : 0);
  const peakRss = Math.max(
    0,
    ...report.studies.flatMap((s) => s.trials.map((t) => t.peakRssBytes ?? 0)),
  );

  const factors: ProjectionFactor[] = [
    {
      name: 'trial time here',
      value: trialSecondsHere,
      unit: 's',
      source: 'measured',
      detail: `mean of ${counts.done} ended trials (pruned ones end early); rollout ${pct(share(rollout))}, update ${pct(share(update))}, evaluation and setup ${pct(share(other))}`,
    },
    {
      name: 'prune rate',
      value: counts.done === 0 ? 0 : counts.pruned / counts.done,
      unit: '',
      source: 'measured',
      detail: `${counts.pruned} of ${counts.done}; the trial time above already holds what pruning saves`,
    },
    {
      name: 'rollout phase',
      value: host.coreSpeed,
      unit: '×',
      source: host.coreSpeed === 1 ? 'assumption' : 'measured',
      detail:
        'env steps and the policy forward pass run on one CPU core per worker; the GPU does not change them',
    },
    {
      name: 'update phase',
      value: host.coreSpeed,
      unit: '×',
      source: host.coreSpeed === 1 ? 'assumption' : 'measured',
      detail: `backend auto trains on the CPU (native GEMM); on an H100, tfjs's WebGPU update measured 1.0× one core at batch 4096 and 0.06× end to end (docs/compute.md). ${specRatio(source, target)}`,
    },
  ];
  const plan = planWorkers({
    profile: target,
    workload: 'drl',
    backend: 'wasm',
    memory: { kind: 'host', totalBytes: host.ramBytes },
    cpuCores: host.cores,
    ...(input.safetyFactor === undefined ? {} : { safetyFactor: input.safetyFactor }),
    ...(peakRss > 0
      ? { measured: { perWorkerBytes: peakRss, source: "peak RSS of the campaign's trials" } }
      : {}),
  });
  factors.push({
    name: 'workers there',
    value: plan.workers,
    unit: '',
    source: 'planner',
    detail: `${host.cores} cores, ${(host.ramBytes / 2 ** 30).toFixed(0)} GiB RAM${host.given ? '' : ' (assumed as here: pass --cores and --ram-gb)'}, ${peakRss > 0 ? `${(peakRss / 2 ** 20).toFixed(0)} MiB per worker measured` : 'no measured worker memory'}: limited by ${plan.limitedBy}`,
  });
  const trialSeconds = trialSecondsHere / host.coreSpeed;
  const trialsPerHour = (plan.workers * 3600) / trialSeconds;
  const trials =
    input.trialsPerStudy === undefined
      ? report.studies.reduce((s, st) => s + st.target, 0)
      : input.trialsPerStudy * report.studies.length;
  const hours = trials / trialsPerHour;
  const measuredRate = counts.perHour;
  const notes = [
    `here: ${workersHere === null ? 'workers and cores not recorded (a run before tradelab kept them)' : `${workersHere} workers on ${coresHere ?? '?'} cores`}${measuredRate === null ? '' : `, ${measuredRate.toFixed(1)} trials/hour measured`}`,
  ];
  if (target.hourlyUsd === 0)
    notes.push(`${target.displayName}: a card you own (hourlyUsd 0), so no rental cost`);
  if (target.vendor !== 'cpu')
    notes.push(
      `the ${target.displayName}'s FP32 and bandwidth do not enter: tradelab's small PPO networks are dispatch-bound on tfjs's WebGPU backend; the cores beside the card decide`,
    );
  return {
    campaign: report.name,
    from: { profile: source.name, workers: workersHere, cores: coresHere },
    to: {
      profile: target.name,
      displayName: target.displayName,
      workers: plan.workers,
      limitedBy: plan.limitedBy,
      cores: host.cores,
    },
    factors,
    trialSeconds,
    trialsPerHour,
    trialsPerDay: trialsPerHour * 24,
    trials,
    hours,
    costUsd: target.hourlyUsd === null ? null : target.hourlyUsd * hours,
    hoursHere: measuredRate === null ? null : trials / measuredRate,
    notes,
  };
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** What the profiles' specs alone would say, for reference (seed 000's method). */
function specRatio(source: GpuProfile, target: GpuProfile): string {
  const fp32 =
    source.fp32Tflops !== null && target.fp32Tflops !== null
      ? target.fp32Tflops / source.fp32Tflops
      : null;
  const bandwidth =
    source.memoryBandwidthGBs !== null && target.memoryBandwidthGBs !== null
      ? target.memoryBandwidthGBs / source.memoryBandwidthGBs
      : null;
  if (fp32 === null && bandwidth === null)
    return source.vendor === 'cpu'
      ? 'Measured on the CPU profile: no GPU spec ratio applies.'
      : `The specs give no ratio (${source.name} or ${target.name} publishes no figures).`;
  return `By the spec ratios alone: FP32 ${fp32 === null ? '-' : `${fp32.toFixed(2)}×`}, bandwidth ${bandwidth === null ? '-' : `${bandwidth.toFixed(2)}×`}: a bound for a GPU-resident update, not what tfjs reaches.`;
}

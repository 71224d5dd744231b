import { formatBytes, GIB } from './planner/format-bytes.js';
import type { DetectedGpu } from './detect/detected-gpu.js';
import type { GpuProfile } from './profile-schema.js';
import type { ProfileRegistry } from './profile-registry.js';

/** How far a detected card's memory may be from its profile's and still use it (drivers reserve some). */
export const VRAM_TOLERANCE = 0.15;

/** A detected card with the profile that applies to it, and why. */
export interface MatchedGpu {
  gpu: DetectedGpu;
  profile: GpuProfile;
  /** `name`: a profile's `match` pattern and memory agree; `derived`: built from the nearest profile by memory. */
  how: 'name' | 'derived' | 'unknown';
  reason: string;
}

/**
 * Maps a detected card to a profile: by name pattern (with memory within 15 %, so a 16 GB laptop 4090
 * is not a desktop 4090), else a profile derived from the nearest one by memory.
 */
export function matchDetectedGpu(gpu: DetectedGpu, registry: ProfileRegistry): MatchedGpu {
  const profiles = registry.all().filter((p) => p.vendor !== 'cpu');
  const laptop = /\b(laptop|mobile|max-q)\b/i.test(gpu.name);
  const named = laptop
    ? []
    : profiles.filter((p) => p.match.some((pattern) => new RegExp(pattern, 'i').test(gpu.name)));
  const memory = gpu.memoryTotalBytes;
  const fits = (p: GpuProfile): boolean =>
    memory === undefined || Math.abs(memory / GIB - p.vramGb) <= VRAM_TOLERANCE * p.vramGb;
  // Custom profiles come last in the registry; prefer them, then the closest memory.
  const candidates = named.filter(fits).sort((a, b) => {
    const custom = Number(b.origin === 'custom') - Number(a.origin === 'custom');
    if (custom !== 0 || memory === undefined) return custom;
    return Math.abs(memory / GIB - a.vramGb) - Math.abs(memory / GIB - b.vramGb);
  });
  const best = candidates[0];
  if (best !== undefined) {
    const patternReason = `name "${gpu.name}" matches profile ${best.name}`;
    return {
      gpu,
      profile: best,
      how: 'name',
      reason:
        memory === undefined
          ? `${patternReason} (memory not reported)`
          : `${patternReason}, ${formatBytes(memory)} fits its ${best.vramGb} GB`,
    };
  }
  if (memory === undefined) {
    const cpu = registry.get('cpu');
    if (cpu === undefined) throw new Error('the cpu profile is missing');
    return {
      gpu,
      profile: cpu,
      how: 'unknown',
      reason: `no profile matches "${gpu.name}" and its memory was not reported: planning on the CPU; set --profile or define a custom profile`,
    };
  }
  const nearest = nearestByMemory(profiles, memory, gpu.vendor);
  const profile = deriveProfile(gpu, nearest, memory);
  const why =
    named.length > 0
      ? `its memory (${formatBytes(memory)}) is not ${named.map((p) => `${p.name}'s ${p.vramGb} GB`).join(' or ')}`
      : 'no profile matches its name';
  return {
    gpu,
    profile,
    how: 'derived',
    reason: `${why}; derived from ${nearest.name} (nearest memory) with ${formatBytes(memory)}`,
  };
}

function nearestByMemory(
  profiles: readonly GpuProfile[],
  memory: number,
  vendor: string,
): GpuProfile {
  const sameVendor = profiles.filter((p) => p.vendor === vendor && p.origin === 'builtin');
  const pool = sameVendor.length > 0 ? sameVendor : profiles;
  let best = pool[0];
  for (const p of pool) {
    if (
      best === undefined ||
      Math.abs(Math.log(memory / GIB / p.vramGb)) < Math.abs(Math.log(memory / GIB / best.vramGb))
    )
      best = p;
  }
  if (best === undefined) throw new Error('no GPU profiles to derive from');
  return best;
}

/**
 * A profile for a card we have none for: the nearest profile's workload settings scaled by memory,
 * and no published specs (we do not know them: a custom profile can add them).
 */
export function deriveProfile(
  gpu: DetectedGpu,
  nearest: GpuProfile,
  memoryBytes: number,
): GpuProfile {
  const vramGb = Math.round((memoryBytes / GIB) * 10) / 10;
  const ratio = vramGb / nearest.vramGb;
  const scale = (n: number, multiple = 1): number =>
    Math.max(multiple, Math.floor((n * ratio) / multiple) * multiple);
  const w = nearest.workloads;
  const source = `derived: ${nearest.name} scaled by memory ×${ratio.toFixed(2)}`;
  const slug = gpu.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return {
    name: `derived_${slug}`,
    origin: 'derived',
    basedOn: nearest.name,
    displayName: gpu.name,
    vendor: gpu.vendor,
    architecture: null,
    vramGb,
    memoryType: null,
    memoryBandwidthGBs: null,
    fp32Tflops: null,
    bf16Tflops: null,
    computeUnits: null,
    tdpWatts: null,
    hourlyUsd: nearest.hourlyUsd === 0 ? 0 : null,
    aliases: [],
    match: [],
    notes: [
      `Derived at detection from ${nearest.name} (${nearest.vramGb} GB) for "${gpu.name}" with ${vramGb} GB; specs unknown.`,
      "Define a custom profile (extends + your card's figures) to replace it.",
    ],
    workloads: {
      forecast: {
        batchSize: {
          '1d': scale(w.forecast.batchSize['1d'], 32),
          '1h': scale(w.forecast.batchSize['1h'], 32),
        },
        memoryPerModelGb: w.forecast.memoryPerModelGb,
        maxWorkers: scale(w.forecast.maxWorkers),
        source,
      },
      drl: {
        batchSize: scale(w.drl.batchSize, 256),
        netDimMax: w.drl.netDimMax,
        maxWorkers: scale(w.drl.maxWorkers),
        source,
      },
      tcn: {
        chunksPerBatch: scale(w.tcn.chunksPerBatch, 10),
        maxWorkers: w.tcn.maxWorkers,
        source,
      },
    },
  };
}

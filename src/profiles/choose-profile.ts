import { formatBytes } from './planner/format-bytes.js';
import { freeMemoryBytes, type DetectedGpu } from './detect/detected-gpu.js';
import type { Detection } from './detect/detect-gpus.js';
import { matchDetectedGpu, type MatchedGpu } from './match-detected.js';
import type { GpuProfile } from './profile-schema.js';
import type { ProfileRegistry } from './profile-registry.js';

/** Where the profile choice came from, highest precedence first. */
export type ProfileSourceKind = 'flag' | 'env' | 'file' | 'detected' | 'default';

/** A profile named by the user, and where they named it. */
export interface RequestedProfile {
  name: string;
  source: 'flag' | 'env' | 'file';
  /** e.g. `--profile`, `GPU_PROFILE`, `tradelab.config.yaml:3:10`. */
  origin: string;
  /** Other variables that named a profile and lost to `origin` (`TRADELAB_PROFILE=h200`). */
  ignored?: string[];
}

/** The profile a run uses, and why. */
export interface ProfileChoice {
  profile: GpuProfile;
  source: ProfileSourceKind;
  /** The flag, variable, file position or tool that decided. */
  origin: string;
  /** One sentence: why this profile. */
  reason: string;
  /** Every detected card with its profile (empty when detection was off or found none). */
  matched: MatchedGpu[];
  /** The card this plan is for, when the chosen profile is the one that card maps to. */
  gpu: DetectedGpu | undefined;
  /** Free memory of that card, when detected; the planner caps usable memory with it. */
  freeBytes: number | undefined;
  /** Set when the user chose a profile other than the hardware detected here. */
  mismatch: string | undefined;
  /** Other variables that named a profile and were ignored, as `NAME=value`. */
  ignored?: string[];
}

/**
 * Chooses the profile: requested (flag > env > config file) > detected > `cpu`. With several GPUs,
 * detection plans for the one with the most memory (lowest index on ties); each keeps its index.
 */
export function chooseProfile(
  registry: ProfileRegistry,
  requested: RequestedProfile | undefined,
  detection: Detection | undefined,
): ProfileChoice {
  const matched = (detection?.gpus ?? []).map((gpu) => matchDetectedGpu(gpu, registry));
  const byMemory = [...matched].sort(
    (a, b) =>
      (b.gpu.memoryTotalBytes ?? 0) - (a.gpu.memoryTotalBytes ?? 0) || a.gpu.index - b.gpu.index,
  );
  const primary = byMemory[0];

  if (requested !== undefined) {
    const profile = registry.resolve(requested.name);
    // The biggest detected card this profile describes, if the machine has one.
    const card = byMemory.find((m) => sameProfileFamily(profile, m.profile));
    const mismatch =
      primary === undefined || card !== undefined
        ? undefined
        : `profile ${profile.name} (from ${requested.origin}) is not this machine's ${primary.gpu.name} (${primary.profile.name}); planning for ${profile.name}, detected free memory not applied`;
    const ignored = requested.ignored ?? [];
    return {
      profile,
      source: requested.source,
      origin: requested.origin,
      reason: `named by ${requested.origin}${requested.name === profile.name ? '' : ` as "${requested.name}"`}${ignored.length === 0 ? '' : ` (${ignored.join(', ')} ${ignored.length === 1 ? 'is' : 'are'} ignored: ${requested.origin.split(' ')[0] ?? ''} comes first)`}`,
      ...(ignored.length === 0 ? {} : { ignored }),
      matched,
      gpu: card?.gpu,
      freeBytes: card === undefined ? undefined : freeMemoryBytes(card.gpu),
      mismatch,
    };
  }
  if (primary !== undefined) {
    const several =
      matched.length > 1
        ? `; ${matched.length} GPUs found, planning for GPU ${primary.gpu.index} (most memory)`
        : '';
    const memory =
      primary.gpu.memoryTotalBytes === undefined
        ? ''
        : ` (${formatBytes(primary.gpu.memoryTotalBytes)})`;
    return {
      profile: primary.profile,
      source: 'detected',
      origin: primary.gpu.tool,
      reason: `${primary.gpu.tool} found ${primary.gpu.name}${memory}: ${primary.reason}${several}`,
      matched,
      gpu: primary.gpu,
      freeBytes: freeMemoryBytes(primary.gpu),
      mismatch: undefined,
    };
  }
  const cpu = registry.resolve('cpu');
  return {
    profile: cpu,
    source: 'default',
    origin: 'no GPU found',
    reason:
      detection === undefined
        ? 'detection is off and no profile was named'
        : 'no GPU found by nvidia-smi, rocm-smi, amd-smi or sysfs',
    matched,
    gpu: undefined,
    freeBytes: undefined,
    mismatch: undefined,
  };
}

/** Whether two profiles describe the same card: equal, or one extends (or was derived from) the other. */
function sameProfileFamily(a: GpuProfile, b: GpuProfile): boolean {
  return a.name === b.name || a.basedOn === b.name || b.basedOn === a.name;
}

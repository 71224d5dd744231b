/*
 * Random search: each value uniform on the sampling scale. Every (seed, trial number, parameter
 * name) owns its own random stream, so a value never depends on which worker asked first or on the
 * order in which the objective suggests its parameters.
 */
import { Rng } from '../../core/random.js';
import { TradelabError } from '../../core/index.js';
import type { Distribution, ParamValue } from '../../storage/records.js';
import { fromInternal, internalBounds } from '../distributions.js';
import type { Sampler, SamplerContext } from '../sampler.js';

/** Options of {@link RandomSampler}. */
export interface RandomSamplerOptions {
  /** Seed of every draw (a safe integer). Default 0. */
  seed?: number;
}

/** FNV-1a hash of a parameter name: the name's random-stream id. */
export function nameStream(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Checks a sampler's seed option and returns it (default 0). */
export function checkSeed(sampler: string, seed: number | undefined): number {
  const value = seed ?? 0;
  if (!Number.isSafeInteger(value))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${sampler} sampler: seed ${value} is not allowed`,
      {
        hint: 'use a whole number, e.g. seed: 42',
      },
    );
  return value;
}

/**
 * A uniform draw from `distribution` on its sampling scale: log-uniform for log ranges, each grid
 * point of a stepped or integer range equally likely (the range is widened by half a step on each
 * side, then snapped), each choice equally likely.
 */
export function sampleUniform(rng: Rng, distribution: Distribution): ParamValue {
  const u = rng.uniform();
  if (distribution.type === 'categorical') {
    const n = distribution.choices.length;
    return distribution.choices[Math.min(n - 1, Math.floor(u * n))] ?? null;
  }
  if (distribution.low === distribution.high) return distribution.low;
  const step = distribution.step;
  let low: number;
  let high: number;
  if (step === null) [low, high] = internalBounds(distribution);
  else if (distribution.log) {
    low = Math.log(distribution.low - step / 2);
    high = Math.log(distribution.high + step / 2);
  } else {
    low = distribution.low - step / 2;
    high = distribution.high + step / 2;
  }
  return fromInternal(distribution, low + u * (high - low));
}

/** Uniform random search; see {@link sampleUniform}. */
export class RandomSampler implements Sampler {
  readonly description: string;
  private readonly seed: number;

  constructor(options: RandomSamplerOptions = {}) {
    this.seed = checkSeed('random', options.seed);
    this.description = `random (seed ${this.seed})`;
  }

  /** A uniform value for `name`, from the stream of (seed, trial number, name). */
  sampleIndependent(context: SamplerContext, name: string, distribution: Distribution): ParamValue {
    const rng = new Rng(this.seed, context.trial.number, nameStream(name));
    return sampleUniform(rng, distribution);
  }
}

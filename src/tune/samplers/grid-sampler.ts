/*
 * Grid search: every combination of the listed values, each tried once, in an order shuffled by
 * the seed. A point counts as used once any trial (running, complete, pruned or failed) holds its
 * values, so concurrent workers spread over the grid; once every point is used the sampler repeats
 * random points and says so ({@link GridSampler.isExhausted}), so the study can stop.
 */
import { Rng } from '../../core/random.js';
import { TradelabError } from '../../core/index.js';
import type { Distribution, ParamValue, TrialRecord, TrialState } from '../../storage/records.js';
import { contains, describeDistribution } from '../distributions.js';
import type { Sampler, SamplerContext } from '../sampler.js';
import { checkSeed } from './random-sampler.js';

/** Options of {@link GridSampler}. */
export interface GridSamplerOptions {
  /** The values to try for each parameter; every combination is one grid point. Required. */
  searchSpace: Record<string, readonly ParamValue[]>;
  /** Seed of the visiting order and of the repeats after exhaustion. Default 0. */
  seed?: number;
}

/** The largest grid the sampler enumerates (its shuffled order is held in memory). */
export const MAX_GRID_POINTS = 10_000_000;

/** Trial states whose params occupy a grid point. */
const OCCUPYING: ReadonlySet<TrialState> = new Set(['running', 'complete', 'pruned', 'fail']);

function invalid(message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `grid sampler: ${message}`, { hint });
}

/** Grid search over the Cartesian product of `searchSpace`. */
export class GridSampler implements Sampler {
  readonly description: string;
  /** Parameter names, sorted (the grid's axis order). */
  readonly names: readonly string[];
  /** Number of grid points. */
  readonly size: number;
  private readonly values: readonly (readonly ParamValue[])[];
  private readonly indexOf: readonly Map<ParamValue, number>[];
  private readonly order: Int32Array;
  private readonly seed: number;
  private lastExhausted = false;
  private cache: { trials: readonly TrialRecord[]; trial: number; point: number } | null = null;

  constructor(options: GridSamplerOptions) {
    this.seed = checkSeed('grid', options.seed);
    this.names = Object.keys(options.searchSpace).sort();
    if (this.names.length === 0)
      throw invalid('the search space is empty', 'give at least one parameter with its values');
    const values: ParamValue[][] = [];
    const indexOf: Map<ParamValue, number>[] = [];
    let size = 1;
    for (const name of this.names) {
      const list = options.searchSpace[name] ?? [];
      if (list.length === 0)
        throw invalid(`parameter "${name}" has no values`, 'list at least one value');
      const map = new Map<ParamValue, number>();
      for (const v of list) {
        const ok =
          v === null ||
          typeof v === 'string' ||
          typeof v === 'boolean' ||
          (typeof v === 'number' && Number.isFinite(v));
        if (!ok)
          throw invalid(
            `parameter "${name}": value ${String(v)} is not a string, finite number, boolean or null`,
            'grid values are stored as JSON',
          );
        if (map.has(v))
          throw invalid(
            `parameter "${name}" lists ${JSON.stringify(v)} twice`,
            'list each value once',
          );
        map.set(v, map.size);
      }
      values.push([...list]);
      indexOf.push(map);
      size *= list.length;
    }
    if (size > MAX_GRID_POINTS)
      throw invalid(
        `the grid has ${size} points, more than ${MAX_GRID_POINTS}`,
        'use fewer values per parameter, or random or TPE sampling',
      );
    this.values = values;
    this.indexOf = indexOf;
    this.size = size;
    // Fisher–Yates with the seed's own stream.
    const order = new Int32Array(size);
    for (let i = 0; i < size; i++) order[i] = i;
    const rng = new Rng(this.seed, 0x67726964);
    for (let i = size - 1; i > 0; i--) {
      const j = Math.floor(rng.uniform() * (i + 1));
      const t = order[i] ?? 0;
      order[i] = order[j] ?? 0;
      order[j] = t;
    }
    this.order = order;
    this.description = `grid (${size} points, seed ${this.seed})`;
  }

  /**
   * Whether the last {@link GridSampler.sampleRelative} found every point used (it then returned a
   * random repeat). A study can stop asking when this is true.
   */
  get exhausted(): boolean {
    return this.lastExhausted;
  }

  /** Whether every grid point is held by one of `trials` (running, complete, pruned or failed). */
  isExhausted(trials: readonly TrialRecord[]): boolean {
    const used = this.usedPoints(trials);
    return used.count === this.size;
  }

  /** The trial's grid point: the first unused one in the shuffled order, or a random repeat. */
  sampleRelative(context: SamplerContext): Record<string, ParamValue> {
    const point = this.pointFor(context);
    const out: Record<string, ParamValue> = {};
    this.names.forEach((name, axis) => {
      out[name] = this.valueAt(point, axis);
    });
    return out;
  }

  /** The trial's grid value for `name`; a name outside the grid is an error. */
  sampleIndependent(context: SamplerContext, name: string, distribution: Distribution): ParamValue {
    const axis = this.names.indexOf(name);
    if (axis < 0)
      throw invalid(
        `parameter "${name}" is not in the grid (${this.names.join(', ')})`,
        `add "${name}" with its values to the grid's searchSpace, or use another sampler`,
      );
    const value = this.valueAt(this.pointFor(context), axis);
    if (!contains(distribution, value))
      throw invalid(
        `grid value ${JSON.stringify(value)} of "${name}" is outside its distribution ${describeDistribution(distribution)}`,
        `make the grid's values for "${name}" fit the objective's suggest call`,
      );
    return value;
  }

  private valueAt(point: number, axis: number): ParamValue {
    let rest = point;
    for (let a = this.names.length - 1; a > axis; a--) {
      rest = Math.floor(rest / (this.values[a]?.length ?? 1));
    }
    const list = this.values[axis] ?? [];
    return list[rest % list.length] ?? null;
  }

  private pointFor(context: SamplerContext): number {
    const c = this.cache;
    if (c !== null && c.trials === context.trials && c.trial === context.trial.number)
      return c.point;
    const { used, count } = this.usedPoints(context.trials);
    let point = -1;
    if (count < this.size) {
      for (const p of this.order) {
        if (used[p] === 0) {
          point = p;
          break;
        }
      }
    }
    this.lastExhausted = point < 0;
    if (point < 0) {
      const rng = new Rng(this.seed, context.trial.number);
      point = Math.min(this.size - 1, Math.floor(rng.uniform() * this.size));
    }
    this.cache = { trials: context.trials, trial: context.trial.number, point };
    return point;
  }

  /** Marks the grid point of each occupying trial that holds a value for every grid parameter. */
  private usedPoints(trials: readonly TrialRecord[]): { used: Uint8Array; count: number } {
    const used = new Uint8Array(this.size);
    let count = 0;
    for (const trial of trials) {
      if (!OCCUPYING.has(trial.state)) continue;
      let point = 0;
      let onGrid = true;
      for (let a = 0; a < this.names.length; a++) {
        const name = this.names[a] ?? '';
        const map = this.indexOf[a];
        const index =
          map !== undefined && Object.hasOwn(trial.params, name)
            ? map.get(trial.params[name] ?? null)
            : undefined;
        if (index === undefined) {
          onGrid = false;
          break;
        }
        point = point * (this.values[a]?.length ?? 1) + index;
      }
      if (onGrid && used[point] === 0) {
        used[point] = 1;
        count++;
      }
    }
    return { used, count };
  }
}

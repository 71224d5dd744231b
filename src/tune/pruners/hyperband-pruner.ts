/*
 * Hyperband (Optuna's `HyperbandPruner`): several successive-halving brackets that trade how many
 * trials start against how long each runs before its first judgement. Bracket b is an ASHA pruner
 * whose first rung is at minResource × η^b; each trial belongs to one bracket for life and only
 * competes with the trials of its bracket.
 *
 * A trial's bracket comes from its number alone: hash(number) mod the total trial budget, walked
 * through the brackets' budgets (bracket b gets ⌈n·η^s/(s+1)⌉ with s = n − 1 − b, as in Optuna),
 * so that every worker agrees without shared state. Optuna hashes the study name with the number
 * (CRC-32); we use MurmurHash3's 32-bit finaliser of the number, see {@link hashTrialNumber}.
 */
import { TradelabError } from '../../core/index.js';
import type { TrialRecord } from '../../storage/records.js';
import type { Pruner, PrunerContext } from '../pruner.js';
import {
  SuccessiveHalvingPruner,
  firstCompleteTrialLastStep,
} from './successive-halving-pruner.js';
import { wholeNumber } from './whole-number.js';

/** Options for {@link HyperbandPruner}. */
export interface HyperbandPrunerOptions {
  /** Steps before the first rung of bracket 0 (r), a whole number ≥ 1. Default 1. */
  minResource?: number | undefined;
  /**
   * The most steps a trial runs (R), a whole number ≥ minResource, or 'auto': the last step of the
   * first trial to complete + 1 (no pruning until one completes). Default 'auto'.
   */
  maxResource?: number | 'auto' | undefined;
  /** Rung growth and 1/x promoted share (η), ≥ 2. Default 3. */
  reductionFactor?: number | undefined;
  /** Values a rung must hold before any trial is promoted; needs a fixed maxResource. Default 0. */
  bootstrapCount?: number | undefined;
}

/** The brackets of a Hyperband pruner once the maximum resource is known. */
interface BracketLayout {
  pruners: SuccessiveHalvingPruner[];
  /** Trials allotted to each bracket per `total`. */
  budgets: number[];
  total: number;
}

/** Hyperband: trials split by number among ASHA brackets of different aggressiveness. */
export class HyperbandPruner implements Pruner {
  readonly description: string;
  private readonly minResource: number;
  private readonly maxResource: number | 'auto';
  private readonly reductionFactor: number;
  private readonly bootstrapCount: number;
  /** Layouts by maximum resource: fixed for a number, resolved per study for 'auto'. */
  private readonly layouts = new Map<number, BracketLayout>();

  constructor(options: HyperbandPrunerOptions = {}) {
    this.minResource = wholeNumber('minResource', options.minResource ?? 1, 1);
    const maxResource = options.maxResource ?? 'auto';
    this.maxResource =
      maxResource === 'auto'
        ? 'auto'
        : wholeNumber('maxResource', maxResource, this.minResource, "(minResource) or 'auto'");
    this.reductionFactor = wholeNumber('reductionFactor', options.reductionFactor ?? 3, 2);
    this.bootstrapCount = wholeNumber('bootstrapCount', options.bootstrapCount ?? 0, 0);
    if (this.bootstrapCount > 0 && this.maxResource === 'auto') {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `pruner option bootstrapCount (${this.bootstrapCount}) needs a fixed maxResource, got 'auto'`,
        { hint: 'Set maxResource to the most steps a trial runs, or leave bootstrapCount at 0.' },
      );
    }
    this.description =
      `hyperband (min resource ${this.minResource}, max resource ${this.maxResource}, ` +
      `reduction factor ${this.reductionFactor}` +
      (this.bootstrapCount > 0 ? `, bootstrap ${this.bootstrapCount})` : ')');
  }

  shouldPrune(context: PrunerContext): boolean {
    const layout = this.layout(context.trials);
    if (layout === undefined) return false;
    const bracket = bracketOf(context.trial.number, layout);
    const pruner = layout.pruners[bracket];
    if (pruner === undefined) return false;
    const trials = context.trials.filter((t) => bracketOf(t.number, layout) === bracket);
    return pruner.shouldPrune({ ...context, trials });
  }

  /**
   * The bracket a trial number belongs to, given the study's other trials (for an 'auto' maximum
   * resource); undefined while the number of brackets is not known yet.
   */
  bracketOf(trialNumber: number, trials: readonly TrialRecord[]): number | undefined {
    const layout = this.layout(trials);
    return layout === undefined ? undefined : bracketOf(trialNumber, layout);
  }

  /** The number of brackets, or undefined while an 'auto' maximum resource is not known yet. */
  bracketCount(trials: readonly TrialRecord[]): number | undefined {
    return this.layout(trials)?.pruners.length;
  }

  private layout(trials: readonly TrialRecord[]): BracketLayout | undefined {
    let maxResource: number;
    if (this.maxResource === 'auto') {
      const lastStep = firstCompleteTrialLastStep(trials);
      if (lastStep === undefined) return undefined;
      maxResource = lastStep + 1;
    } else {
      maxResource = this.maxResource;
    }
    let layout = this.layouts.get(maxResource);
    if (layout === undefined) {
      layout = this.createLayout(maxResource);
      this.layouts.set(maxResource, layout);
    }
    return layout;
  }

  private createLayout(maxResource: number): BracketLayout {
    // ⌊log_η(R / r)⌋ + 1 brackets, counted in integers: Optuna's float log gives 3 for
    // log_10(1000), which is 3 exactly. At least one bracket even when R < r.
    let count = 1;
    while (this.minResource * this.reductionFactor ** count <= maxResource) count++;
    const pruners: SuccessiveHalvingPruner[] = [];
    const budgets: number[] = [];
    for (let bracket = 0; bracket < count; bracket++) {
      const s = count - 1 - bracket;
      budgets.push(Math.ceil((count * this.reductionFactor ** s) / (s + 1)));
      pruners.push(
        new SuccessiveHalvingPruner({
          minResource: this.minResource,
          reductionFactor: this.reductionFactor,
          minEarlyStoppingRate: bracket,
          bootstrapCount: this.bootstrapCount,
        }),
      );
    }
    return { pruners, budgets, total: budgets.reduce((a, b) => a + b, 0) };
  }
}

/**
 * A well-mixed 32-bit hash of a trial number (MurmurHash3's `fmix32`), so that consecutive trial
 * numbers spread over the brackets instead of filling them in order.
 */
export function hashTrialNumber(trialNumber: number): number {
  let h = trialNumber >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function bracketOf(trialNumber: number, layout: BracketLayout): number {
  let n = hashTrialNumber(trialNumber) % layout.total;
  for (let bracket = 0; bracket < layout.budgets.length; bracket++) {
    n -= layout.budgets[bracket] ?? 0;
    if (n < 0) return bracket;
  }
  return layout.budgets.length - 1;
}

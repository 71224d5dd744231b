import { Rng, TradelabError } from '../core/index.js';
import type { ParamValue, TrialState } from '../storage/records.js';

/*
 * Which parameters a study's value depends on, by Breiman's permutation importance (Breiman 2001,
 * "Random Forests", Machine Learning 45, section 10; R's randomForest calls it %IncMSE): fit a
 * random forest of regression trees to the complete trials (params -> value); then, for each tree,
 * shuffle one parameter's values and measure how much the tree's squared error rises on its
 * out-of-bag trials, those its bootstrap sample left out. A parameter the value does not depend on
 * can be shuffled for free; one it does depend on cannot.
 *
 * Why out of bag: a fully grown tree reproduces the trials it was grown on, noise included, so on
 * those trials shuffling any parameter the tree happened to split on costs error, useful or not.
 * Trials a tree never saw show only what carries over to new trials; with enough trials a
 * parameter without effect gets about zero (clipped at zero when chance makes it negative). With
 * few trials, chance correlations between parameters remain, which no method can tell from an
 * effect: the report says so below 20 trials.
 *
 * Why not impurity importance (how much each parameter's splits cut the error)? It favours
 * parameters with many distinct values (a continuous learning rate over a two-choice flag) whatever
 * their effect, and a campaign mixes both kinds.
 *
 * The forest: 64 fully grown trees on bootstrap samples, every parameter considered at each split,
 * as in Optuna's fANOVA importance evaluator.
 *
 * Encoding: numbers stay numbers (a tree only compares them, so a log scale changes nothing); a
 * categorical parameter (strings, booleans, null, mixed) becomes one ordinal column, its values
 * numbered in sorted order. Ordinal, not one-hot, because a parameter must be shuffled as a whole
 * (one-hot columns shuffled one at a time make rows no trial could have, and split a parameter's
 * importance across columns), and a tree still isolates any category with a few splits. A trial
 * without the parameter (a conditional search space) gets its own code below every value.
 * Parameters with one value in every complete trial are left out.
 *
 * The forest is written here rather than taken from npm: ml-random-forest (unchanged since 2022)
 * grows its trees with ml-cart, which never makes a split that leaves no error (its stop test is
 * `error > 0`), so a tree cannot learn a clean step such as "tanh beats relu".
 */

/** A trial as the importance needs it; a `ReportTrial` or a stored trial record is one. */
export interface ImportanceTrial {
  readonly state: TrialState;
  readonly value: number | null;
  readonly params: Readonly<Record<string, ParamValue>>;
}

/** How a parameter was turned into the forest's column. */
export type ParamEncoding = 'numeric' | 'ordinal';

/** One parameter's importance. */
export interface ParamImportance {
  readonly param: string;
  /** Its share of the importance of all parameters, 0 to 1; the shares sum to 1. */
  readonly share: number;
  /** Mean rise of the trees' squared error on their out-of-bag trials when it is shuffled (>= 0). */
  readonly errorIncrease: number;
  readonly encoding: ParamEncoding;
}

/** The importance of a study's parameters, or why there is none. */
export interface ParamImportanceResult {
  /** Complete trials with a finite value: the data. */
  readonly trials: number;
  /** Most important first; empty when `reason` says why. */
  readonly params: readonly ParamImportance[];
  /** Parameters left out because they had one value in every complete trial. */
  readonly fixed: readonly string[];
  /** Why `params` is empty (too few trials, nothing varies, …); absent when it is not. */
  readonly reason?: string;
}

/** Options for {@link paramImportance}. */
export interface ParamImportanceOptions {
  /**
   * Seeds the forest's bootstrap samples and the shuffles: the same trials and seed give the same
   * result. Default 0.
   */
  readonly seed?: number;
  /** Trees in the forest. Default 64 (Optuna's fANOVA forest). */
  readonly trees?: number;
  /** Shuffles of each parameter, averaged. Default 10. */
  readonly repeats?: number;
  /** Fewer complete trials than this give no figures, only a reason. Default 5. */
  readonly minTrials?: number;
}

/** One line naming the method, for a report's caption. */
export const PARAM_IMPORTANCE_METHOD =
  "permutation importance of a random forest (how much worse its trees predict the trials they did not see when the parameter's values are shuffled)";

/** The importance of each parameter that varies among `trials`' complete ones (method above). */
export function paramImportance(
  trials: readonly ImportanceTrial[],
  options: ParamImportanceOptions = {},
): ParamImportanceResult {
  const seed = options.seed ?? 0;
  const trees = options.trees ?? 64;
  const repeats = options.repeats ?? 10;
  const minTrials = options.minTrials ?? 5;
  for (const [name, value, min] of [
    ['trees', trees, 1],
    ['repeats', repeats, 1],
    ['minTrials', minTrials, 2],
  ] as const)
    if (!Number.isSafeInteger(value) || value < min)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `paramImportance: options.${name} is ${value}, not a whole number >= ${min}`,
        { hint: `pass ${name}: ${min} or more, or leave it out for the default` },
      );
  if (!Number.isSafeInteger(seed))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `paramImportance: options.seed is ${seed}, not a whole number`,
      { hint: 'pass a safe integer such as 0, or leave it out' },
    );

  const complete = trials.filter(
    (t): t is ImportanceTrial & { value: number } =>
      t.state === 'complete' && t.value !== null && Number.isFinite(t.value),
  );
  const n = complete.length;
  if (n < minTrials)
    return {
      trials: n,
      params: [],
      fixed: [],
      reason: `${n} complete trial${n === 1 ? '' : 's'}; parameter importance needs at least ${minTrials}`,
    };

  const names = [...new Set(complete.flatMap((t) => Object.keys(t.params)))].sort();
  const columns = names.map((name) => encodeColumn(name, complete));
  const fixed = columns.filter((c) => c.distinct < 2).map((c) => c.name);
  const varying = columns.filter((c) => c.distinct >= 2);
  if (varying.length === 0)
    return {
      trials: n,
      params: [],
      fixed,
      reason: `no parameter took more than one value in the ${n} complete trials`,
    };
  const y = complete.map((t) => t.value);
  if (y.every((v) => v === y[0]))
    return {
      trials: n,
      params: [],
      fixed,
      reason: `all ${n} complete trials have the same value (${y[0]}): nothing to explain`,
    };

  // Column-major: the forest reads one parameter's values at a time.
  const features = varying.map((c) => Float64Array.from(c.values));
  const forest = fitForest(features, Float64Array.from(y), trees, new Rng(seed, FOREST_STREAM));
  const outOfBag = forest.reduce((count, tree) => count + tree.outOfBag.length, 0);
  if (outOfBag === 0)
    return {
      trials: n,
      params: [],
      fixed,
      reason: `every tree's bootstrap sample held all ${n} complete trials, leaving none to measure on`,
    };

  // Each tree's squared error on its out-of-bag trials as they are, to compare the shuffles with.
  const keptErrors = forest.map((tree) =>
    tree.outOfBag.map((row) => {
      const error = treeValue(tree.root, (k) => features[k]?.[row] ?? 0) - (y[row] ?? 0);
      return error * error;
    }),
  );
  const rng = new Rng(seed, SHUFFLE_STREAM);
  const increases = features.map((column, j) => {
    let total = 0;
    for (let r = 0; r < repeats; r++) {
      const shuffledColumn = shuffled(column, rng);
      forest.forEach((tree, t) => {
        tree.outOfBag.forEach((row, i) => {
          const error =
            treeValue(tree.root, (k) =>
              k === j ? (shuffledColumn[row] ?? 0) : (features[k]?.[row] ?? 0),
            ) - (y[row] ?? 0);
          total += error * error - (keptErrors[t]?.[i] ?? 0);
        });
      });
    }
    // Chance can make a shuffle fit better: that is no importance, not a negative one.
    return Math.max(0, total / (repeats * outOfBag));
  });
  const sum = increases.reduce((s, v) => s + v, 0);
  if (!(sum > 0))
    return {
      trials: n,
      params: [],
      fixed,
      reason: `no parameter's shuffle made the forest's predictions of the ${n} complete trials worse`,
    };
  const params = varying
    .map((column, j) => {
      const increase = increases[j] ?? 0;
      return {
        param: column.name,
        share: increase / sum,
        errorIncrease: increase,
        encoding: column.encoding,
      };
    })
    .sort((a, b) => b.share - a.share || (a.param < b.param ? -1 : 1));
  return { trials: n, params, fixed };
}

interface EncodedColumn {
  name: string;
  encoding: ParamEncoding;
  /** One number per complete trial. */
  values: number[];
  /** Distinct values among the trials, a missing value counted as one. */
  distinct: number;
}

/** A parameter as one numeric column over `trials`. */
function encodeColumn(name: string, trials: readonly ImportanceTrial[]): EncodedColumn {
  const raw = trials.map((t) => (Object.hasOwn(t.params, name) ? t.params[name] : undefined));
  const keys = new Set(raw.map((v) => (v === undefined ? 'missing' : JSON.stringify(v))));
  const present = raw.filter((v) => v !== undefined);
  if (present.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    const numbers = present as number[];
    const low = Math.min(...numbers);
    const high = Math.max(...numbers);
    // Below every value, by more than the range, so a tree can split missing from present.
    const missing = low - (high - low) - 1;
    return {
      name,
      encoding: 'numeric',
      values: raw.map((v) => (typeof v === 'number' ? v : missing)),
      distinct: keys.size,
    };
  }
  // Sorted by their JSON text, so the codes do not depend on the order the trials ran in.
  const codes = new Map(
    [...new Set(present.map((v) => JSON.stringify(v)))].sort().map((k, i) => [k, i]),
  );
  return {
    name,
    encoding: 'ordinal',
    values: raw.map((v) => (v === undefined ? -1 : (codes.get(JSON.stringify(v)) ?? -1))),
    distinct: keys.size,
  };
}

/** A shuffled copy of `values` (Fisher–Yates). */
function shuffled(values: Float64Array, rng: Rng): Float64Array {
  const out = Float64Array.from(values);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    const a = out[i] ?? 0;
    out[i] = out[j] ?? 0;
    out[j] = a;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The forest: CART regression trees (least squares) grown until a leaf holds one value, each on a
// bootstrap sample of the trials.

/** Random streams of the seed: the trees' bootstrap and split order, and the shuffles. */
const FOREST_STREAM = 1;
const SHUFFLE_STREAM = 2;
/** Deep enough for any study; a guard against a degenerate chain, not a tuning knob. */
const MAX_DEPTH = 64;

/** A tree: a leaf's prediction, or a split sending values below `threshold` left. */
type TreeNode =
  | { readonly value: number }
  | {
      readonly feature: number;
      readonly threshold: number;
      readonly left: TreeNode;
      readonly right: TreeNode;
    };

/** A tree of the forest and the rows its bootstrap sample left out. */
interface ForestTree {
  readonly root: TreeNode;
  readonly outOfBag: readonly number[];
}

/** `trees` trees on bootstrap samples of the rows of `features` (columns) and `y`. */
function fitForest(
  features: readonly Float64Array[],
  y: Float64Array,
  trees: number,
  rng: Rng,
): ForestTree[] {
  const n = y.length;
  const forest: ForestTree[] = [];
  for (let t = 0; t < trees; t++) {
    const sample = Array.from({ length: n }, () => Math.floor(rng.uniform() * n));
    const inBag = new Set(sample);
    forest.push({
      root: growTree(features, y, sample, 0, rng),
      outOfBag: Array.from({ length: n }, (_, row) => row).filter((row) => !inBag.has(row)),
    });
  }
  return forest;
}

/** The tree for the rows `rows` (indices, repeats allowed) of `features` and `y`. */
function growTree(
  features: readonly Float64Array[],
  y: Float64Array,
  rows: readonly number[],
  depth: number,
  rng: Rng,
): TreeNode {
  let sum = 0;
  let sumSquares = 0;
  for (const r of rows) {
    const v = y[r] ?? 0;
    sum += v;
    sumSquares += v * v;
  }
  const n = rows.length;
  const mean = sum / n;
  // No error left to cut (all values equal, up to rounding), or nothing to split.
  if (n < 2 || depth >= MAX_DEPTH || sumSquares - sum * mean <= 1e-12 * Math.max(1, sumSquares))
    return { value: mean };

  // Features in a random order each time, so ties between equally good splits go either way.
  const order = shuffled(
    Float64Array.from(features, (_, j) => j),
    rng,
  );
  let best: { feature: number; threshold: number; error: number } | undefined;
  for (const j of order) {
    const column = features[j];
    if (column === undefined) continue;
    const sorted = [...rows].sort((a, b) => (column[a] ?? 0) - (column[b] ?? 0));
    let leftSum = 0;
    let leftSquares = 0;
    for (let k = 0; k < n - 1; k++) {
      const v = y[sorted[k] ?? 0] ?? 0;
      leftSum += v;
      leftSquares += v * v;
      const here = column[sorted[k] ?? 0] ?? 0;
      const next = column[sorted[k + 1] ?? 0] ?? 0;
      // A threshold can only fall between two different values.
      if (here === next) continue;
      const leftCount = k + 1;
      const rightCount = n - leftCount;
      const rightSum = sum - leftSum;
      const rightSquares = sumSquares - leftSquares;
      const error =
        leftSquares -
        (leftSum * leftSum) / leftCount +
        rightSquares -
        (rightSum * rightSum) / rightCount;
      if (best === undefined || error < best.error)
        best = { feature: j, threshold: (here + next) / 2, error };
    }
  }
  if (best === undefined) return { value: mean };
  const { feature, threshold } = best;
  const column = features[feature] as Float64Array;
  const left = rows.filter((r) => (column[r] ?? 0) < threshold);
  const right = rows.filter((r) => (column[r] ?? 0) >= threshold);
  return {
    feature,
    threshold,
    left: growTree(features, y, left, depth + 1, rng),
    right: growTree(features, y, right, depth + 1, rng),
  };
}

/** The tree's prediction for the parameters `feature(k)` gives. */
function treeValue(tree: TreeNode, feature: (k: number) => number): number {
  let node = tree;
  while ('feature' in node) node = feature(node.feature) < node.threshold ? node.left : node.right;
  return node.value;
}

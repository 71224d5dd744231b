import { TradelabError } from '../core/index.js';
import type { ParamValue, StudyDirection, TrialRecord } from '../storage/records.js';
import { isIntegerParam, isRange, type ParamSpec, type RangeParam } from './search-space.js';
import type { DrlStudySpec, FromSpec } from './study-spec.js';

/*
 * Fine-tuning (presets ft_small, ft_large): the best complete trials of a source study are
 * enqueued first, and the search narrows to a neighbourhood of them. With factor f, a log range
 * becomes [min × f, max / f] of the top trials' values, a linear one their span widened by
 * (1 − f)/2 of the source width each side, a numeric list the choices within [min × f, max / f];
 * everything stays inside the source's ranges, so the enqueued trials always lie in the new space.
 */

/** The best `top` complete trials, best first. */
export function bestTrials(
  trials: readonly TrialRecord[],
  direction: StudyDirection,
  top: number,
): TrialRecord[] {
  const sign = direction === 'maximize' ? -1 : 1;
  return trials
    .filter((t) => t.state === 'complete' && t.value !== null)
    .sort((a, b) => sign * ((a.value as number) - (b.value as number)) || a.number - b.number)
    .slice(0, top);
}

/** The neighbourhood of `values` inside `source`, for parameter `name`. */
export function narrowParam(
  name: string,
  source: ParamSpec,
  values: readonly ParamValue[],
  f: number,
): ParamSpec {
  const numbers = values.filter((v): v is number => typeof v === 'number');
  if (numbers.length === 0) return source;
  const min = Math.min(...numbers);
  const max = Math.max(...numbers);
  if (Array.isArray(source)) {
    if (!source.every((c) => typeof c === 'number')) return source;
    const kept = source.filter((c) => c >= min * f - 1e-12 && c <= max / f + 1e-12);
    return kept.length > 0 ? kept : source;
  }
  if (!isRange(source)) return source;
  let low: number;
  let high: number;
  if (source.log === true) {
    low = min * f;
    high = max / f;
  } else {
    const pad = ((source.high - source.low) * (1 - f)) / 2;
    low = min - pad;
    high = max + pad;
  }
  low = Math.max(source.low, low);
  high = Math.min(source.high, high);
  const step = source.step ?? (isIntegerParam(name) ? 1 : undefined);
  if (step !== undefined) {
    // Outward onto the source's grid, so every top value stays a grid point.
    low = source.low + Math.floor((low - source.low) / step + 1e-9) * step;
    high = source.low + Math.ceil((high - source.low) / step - 1e-9) * step;
  }
  if (!(low < high)) return [min];
  const range: RangeParam = { low, high };
  if (source.log === true) range.log = true;
  if (source.step !== undefined) range.step = source.step;
  return range;
}

/** The fine-tuning study's parameters, and the source's best trials' parameters to enqueue. */
export function fineTuneSpec(
  spec: DrlStudySpec,
  from: FromSpec,
  source: DrlStudySpec,
  top: readonly TrialRecord[],
): { spec: DrlStudySpec; enqueue: Record<string, ParamValue>[] } {
  if (source.data.digest !== spec.data.digest)
    throw new TradelabError(
      'DATA_MISMATCH',
      `--from ${from.study}: it was created on other market data (${source.data.spec})`,
      { hint: 'fine-tune on the data the source study used' },
    );
  if (top.length === 0)
    throw new TradelabError(
      'NOT_ENOUGH_TRIALS',
      `--from ${from.study}: it has no complete trial to fine-tune from`,
      { hint: `run some first: tradelab study run ${from.study} --trials 20` },
    );
  const params: Record<string, ParamSpec> = { ...source.params, ...spec.params };
  const searched = Object.entries(source.params).filter(([, p]) => Array.isArray(p) || isRange(p));
  for (const [name, p] of searched)
    params[name] = narrowParam(
      name,
      p,
      top.map((t) => t.params[name] ?? null),
      from.neighbourhood,
    );
  const names = searched.map(([name]) => name);
  const enqueue = top.map((t) =>
    Object.fromEntries(names.filter((n) => n in t.params).map((n) => [n, t.params[n] ?? null])),
  );
  return {
    spec: {
      ...spec,
      params,
      // The source's settings, so the neighbourhood is of the same problem.
      cv: source.cv,
      embargo: source.embargo,
      holdout: source.holdout,
      lookback: source.lookback,
      budgetScale: source.budgetScale,
      aggregate: source.aggregate,
    },
    enqueue,
  };
}

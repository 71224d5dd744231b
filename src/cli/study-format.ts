import type { ParamValue, TrialRecord } from '../storage/index.js';
import { duration } from './format.js';
import { PRUNED_VALUE_MEANING, prunedValueStep } from '../tune/index.js';

/*
 * How the study commands print a study's numbers, parameters and trials (the numbers themselves
 * are tune/'s summarizeStudy), apart from the storage and the CLI so the formats are unit-tested.
 */

/** A parameter value for humans: numbers to 6 significant digits, strings as they are. */
export function formatParamValue(value: ParamValue): string {
  if (typeof value === 'number') return formatNumber(value);
  return String(value);
}

/** Parameters as `name=value, …` in the order they were suggested. */
export function formatParams(params: Record<string, ParamValue>): string {
  const entries = Object.entries(params);
  if (entries.length === 0) return '(none)';
  return entries.map(([name, value]) => `${name}=${formatParamValue(value)}`).join(', ');
}

/** An objective value or statistic to `digits` significant digits; `-` for null. */
export function formatNumber(x: number | null, digits = 6): string {
  if (x === null) return '-';
  if (!Number.isFinite(x) || x === 0) return String(x);
  if (Math.abs(x) < 1e-4 || Math.abs(x) >= 1e15)
    return x.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  return Number(x.toPrecision(digits)).toString();
}

/**
 * A trial's value for a table: a pruned trial's says it is intermediate and from which step
 * (`0.5596 (intermediate, step 1)`; with `splits`, a trading study's, `(intermediate, split 2)`,
 * counted from 1), as {@link prunedValueNote} explains under the table.
 */
export function formatTrialValue(trial: TrialRecord, splits = false): string {
  const pruned = prunedValueStep(trial);
  const value = formatNumber(trial.value);
  if (pruned === undefined || trial.value === null) return value;
  return `${value} (intermediate, ${splits ? `split ${pruned.step + 1}` : `step ${pruned.step}`})`;
}

/** The line under a table of trials that shows a pruned one's value; undefined when none does. */
export function prunedValueNote(trials: readonly TrialRecord[]): string | undefined {
  return trials.some((t) => t.value !== null && prunedValueStep(t) !== undefined)
    ? `intermediate: ${PRUNED_VALUE_MEANING}.`
    : undefined;
}

/** A trial duration: ms below a second, seconds to one decimal below two minutes, then words. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return duration(ms);
}

/** A fraction as a percentage with one decimal, `-` for null. */
export function formatRate(fraction: number | null): string {
  return fraction === null ? '-' : `${(fraction * 100).toFixed(1)}%`;
}

/** The union of the trials' parameter names, in the order they first appear (table columns). */
export function paramNames(trials: readonly TrialRecord[]): string[] {
  const names = new Set<string>();
  for (const trial of trials) for (const name of Object.keys(trial.params)) names.add(name);
  return [...names];
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line of fields, without its line break. */
export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}

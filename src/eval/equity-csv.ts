import type { RangeEvaluation } from './evaluate.js';

/**
 * An evaluated range's equity curve as CSV: one row per equity point with the bar index, its time
 * (ISO, UTC), the strategy's value and the buy-and-hold benchmark's.
 */
export function equityCsv(evaluation: RangeEvaluation, timestamps: Float64Array): string {
  const lines = ['bar,time,equity,benchmark'];
  for (let i = 0; i < evaluation.equity.length; i++) {
    const bar = evaluation.bars[i] as number;
    const ms = timestamps[bar];
    lines.push(
      `${bar},${ms === undefined ? '' : new Date(ms).toISOString()},${evaluation.equity[i] as number},${evaluation.benchmark[i] as number}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

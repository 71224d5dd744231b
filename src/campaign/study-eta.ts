import type { StudySummary } from '../tune/index.js';

/** Hours until `target` trials are done at the study's rate, or null when it cannot be said. */
export function etaHours(summary: StudySummary, target: number): number | null {
  const left = Math.max(0, target - summary.done);
  if (left === 0) return 0;
  return summary.perHour === null ? null : left / summary.perHour;
}

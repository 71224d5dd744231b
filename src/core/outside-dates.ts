/**
 * Whether `ms` is past what a JavaScript Date holds (±8.64e15 ms, about ±275,000 years), where
 * `toISOString()` throws: a time stored before imports refused such values must still print.
 */
export function outsideDates(ms: number): boolean {
  return Number.isNaN(new Date(ms).getTime());
}

/** How a time outside JavaScript's dates is printed: the raw milliseconds, said as such. */
export function outsideDatesText(ms: number): string {
  return `not a date (${ms} ms)`;
}

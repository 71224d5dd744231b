/**
 * `n thing` or `n things`, the count with thousands separators (`1 worker`, `1,200 trials`): every
 * layer that writes a count into a sentence says it this way, never "1 workers".
 */
export function plural(n: number, thing: string, things = `${thing}s`): string {
  return `${Math.round(n).toLocaleString('en-US')} ${n === 1 ? thing : things}`;
}

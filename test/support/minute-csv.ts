/** One minute, in ms. */
export const MINUTE_MS = 60_000;

/** 2024-01-01T00:00Z: where the tests' minute bars start. */
export const T0 = Date.UTC(2024, 0, 1);

/**
 * A generic CSV of `n` one-minute bars from `start` (epoch ms timestamps): opens stepping by 0.25
 * from `base` and wrapping every `cycle` bars, volumes 10, 11, …
 */
export function minuteCsv(start: number, n: number, { base = 100, cycle = 97 } = {}): string {
  const lines = ['timestamp,open,high,low,close,volume'];
  for (let i = 0; i < n; i++) {
    const open = base + (i % cycle) * 0.25;
    lines.push(`${start + i * MINUTE_MS},${open},${open + 1},${open - 1},${open + 0.5},${10 + i}`);
  }
  return `${lines.join('\n')}\n`;
}

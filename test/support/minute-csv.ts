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

/**
 * A generic CSV of `n` one-minute bars from `start` (ISO timestamps) whose prices are a seeded
 * random walk with four decimals: next to nothing repeats, so a compressed Parquet file keeps
 * each price's bytes as they are (tests that damage one value in place need that), and a file
 * of many bars takes about as much room as it holds.
 */
export function walkCsv(start: number, n: number, seed = 7): string {
  const lines = ['timestamp,open,high,low,close,volume'];
  let state = seed;
  let price = 100;
  for (let i = 0; i < n; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const close = price * (1 + (state / 2_147_483_648 - 0.5) / 100);
    const low = Math.min(price, close) - 0.01;
    const high = Math.max(price, close) + 0.01;
    lines.push(
      `${new Date(start + i * MINUTE_MS).toISOString()},${price.toFixed(4)},${high.toFixed(4)},${low.toFixed(4)},${close.toFixed(4)},${state % 1000}`,
    );
    price = close;
  }
  return `${lines.join('\n')}\n`;
}

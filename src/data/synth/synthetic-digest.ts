/**
 * A stable fingerprint of generated bars, so "same seed → same bytes" can be asserted and
 * recorded in run manifests.
 */
import { createHash } from 'node:crypto';
import type { Bars } from '../bars.js';

const FIELDS = ['timestamps', 'open', 'high', 'low', 'close', 'volume'] as const;

/**
 * SHA-256 (hex) over the symbols and, per symbol, the bytes of timestamps, open, high, low, close
 * and volume as little-endian float64 (the same digest on big-endian machines).
 */
export function digestBars(symbols: readonly string[], bars: readonly Bars[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(symbols));
  for (const series of bars) {
    for (const field of FIELDS) {
      const array = series[field];
      hash.update(field);
      hash.update(littleEndianBytes(array));
    }
  }
  return hash.digest('hex');
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

function littleEndianBytes(array: Float64Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  const out = new Uint8Array(array.byteLength);
  const view = new DataView(out.buffer);
  for (let i = 0; i < array.length; i++) view.setFloat64(i * 8, array[i] ?? 0, true);
  return out;
}

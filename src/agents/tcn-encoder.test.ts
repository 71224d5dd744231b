import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../compute/tfjs.js';
import { useBackend } from '../compute/index.js';
import {
  barFeatures,
  generateSynthetic,
  RV_FEATURE_NAMES,
  type MarketData,
} from '../data/index.js';
import { saveTcnModel, sha256, Tcn, type TcnConfig } from '../models/index.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { withRecordedEncoder, withTcnEncoder } from './tcn-encoder.js';

beforeAll(async () => {
  await useBackend('wasm');
});

const T = 300;
const market = generateSynthetic({ symbols: 2, bars: T, timeframe: '30m', seed: 2 });
/** The market as loadMarketData lays it out (T × assets), with one made-up feature. */
const data: MarketData = (() => {
  const interleave = (field: 'open' | 'high' | 'low' | 'close' | 'volume'): Float64Array =>
    Float64Array.from(
      { length: T * 2 },
      (_, i) => market.bars[i % 2]?.[field][Math.floor(i / 2)] ?? 0,
    );
  return {
    symbols: market.symbols,
    timeframe: '30m',
    calendar: '24/7',
    timestamps: market.bars[0]?.timestamps ?? new Float64Array(),
    priceArray: interleave('close'),
    open: interleave('open'),
    high: interleave('high'),
    low: interleave('low'),
    volume: interleave('volume'),
    techArray: Float32Array.from({ length: T * 2 }, (_, i) => i),
    featureNames: ['x'],
    warmupDropped: 0,
    alignment: { bars: [T, T], dropped: [0, 0] },
  };
})();
const normalization = { mean: [0, 0.01, 0, 0.005], sd: [0.01, 0.01, 1, 0.01] };

/** A pretraining run directory holding `config` as its best model. */
async function run(config: TcnConfig, chunkLen: number): Promise<{ dir: string; net: Tcn }> {
  const dir = tempDir('tradelab-encoder-');
  const net = new Tcn(config, `enc-${Math.random()}`);
  await saveTcnModel(join(dir, 'model'), net, {
    meta: {
      chunkLen,
      featureNames: RV_FEATURE_NAMES,
      normalization,
      targetScale: { mean: 0, sd: 1 },
    },
  });
  return { dir, net };
}

/** The encoding of the chunk ending at bar t of asset a, computed directly from the run's network. */
function direct(net: Tcn, a: number, t: number, chunkLen: number): Float32Array {
  const bars = market.bars[a];
  if (bars === undefined) throw new Error('no bars');
  const raw = barFeatures(bars);
  const x = Float32Array.from(
    raw.subarray((t + 1 - chunkLen) * 4, (t + 1) * 4),
    (v, i) => (v - (normalization.mean[i % 4] ?? 0)) / (normalization.sd[i % 4] ?? 1),
  );
  return tf.tidy(() => net.encode(tf.tensor3d(x, [1, chunkLen, 4])).dataSync() as Float32Array);
}

describe('withTcnEncoder', () => {
  for (const [label, config, chunkLen, method] of [
    [
      'one pass (the field fits in a chunk)',
      { inputs: 4, hidden: 6, layers: 2, seed: 3 },
      20,
      'one pass',
    ],
    [
      'per chunk (the field is wider than a chunk)',
      { inputs: 4, hidden: 6, layers: 4, seed: 3 },
      20,
      'per chunk',
    ],
    [
      'per chunk (mean pooling)',
      { inputs: 4, hidden: 6, layers: 2, seed: 3, pooling: 'mean' },
      20,
      'per chunk',
    ],
  ] as const) {
    it(`appends the run's encodings to every asset's features: ${label}`, async () => {
      const { dir, net } = await run(config, chunkLen);
      const { data: out, encoder } = withTcnEncoder(data, dir);
      expect(encoder.method).toBe(method);
      expect(encoder.weightsSha256).toBe(sha256(readFileSync(join(dir, 'model', 'weights.bin'))));
      expect(out.featureNames).toEqual(['x', 'tcn0', 'tcn1', 'tcn2', 'tcn3', 'tcn4', 'tcn5']);
      for (const [a, t] of [
        [0, 60],
        [1, 299],
        [1, 19],
      ] as const) {
        const row = (t * 2 + a) * 7;
        // The original feature is kept, then the encoding of the chunk ending at t.
        expect(out.techArray[row]).toBe(t * 2 + a);
        const expected = direct(net, a, t, chunkLen);
        const got = out.techArray.subarray(row + 1, row + 7);
        for (let i = 0; i < 6; i++) expect(got[i]).toBeCloseTo(expected[i] ?? Number.NaN, 4);
      }
      net.dispose();
    });
  }

  it('rebuilds a model’s features only with the encoder it was trained on', async () => {
    const { dir, net } = await run({ inputs: 4, hidden: 3, layers: 1, seed: 1 }, 10);
    const { encoder } = withTcnEncoder(data, dir);
    expect(withRecordedEncoder(data, encoder).featureNames).toContain('tcn2');
    expect(withRecordedEncoder(data, undefined)).toBe(data);
    // Another encoder saved over the run: refused.
    const other = new Tcn({ inputs: 4, hidden: 3, layers: 1, seed: 2 }, 'enc-other');
    await saveTcnModel(join(dir, 'model'), other, {
      meta: {
        chunkLen: 10,
        featureNames: RV_FEATURE_NAMES,
        normalization,
        targetScale: { mean: 0, sd: 1 },
      },
    });
    expect(() => withRecordedEncoder(data, encoder)).toThrow(
      /changed since this model was trained/,
    );
    net.dispose();
    other.dispose();
  });
});

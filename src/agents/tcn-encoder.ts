import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '../compute/tfjs.js';
import { TradelabError } from '../core/index.js';
import {
  barFeatures,
  BAR_FEATURE_COUNT,
  RV_FEATURE_NAMES,
  type Bars,
  type MarketData,
} from '../data/index.js';
import { loadTcnModel, sha256, tcnSize } from '../models/index.js';

/*
 * A pretrained TCN (`tradelab pretrain tcn`) as the feature extractor of a DRL policy, frozen: for
 * every bar and asset, the encoder's output over the chunk of bars ending there (the run's chunk
 * length, its per-bar features standardized as in pretraining) joins the env's features, so the
 * actor reads `hidden` learned volatility features per asset beside the indicators. The encoder's
 * weights are the run's best epoch, read through the checksummed model file, and never trained
 * here: PPO's variables do not include them.
 *
 * The encoder is causal, so when its receptive field fits in a chunk the encoding of the chunk
 * ending at bar t is the hidden state at t of one pass over the whole series (identical numbers,
 * one pass per asset); otherwise each bar's chunk is encoded on its own, in batches.
 */

/** What a policy's encoder is, for the run's manifest. */
export interface TcnEncoderInfo {
  /** The pretraining run directory. */
  run: string;
  /** SHA-256 of the encoder's weights file (the run's model/weights.bin). */
  weightsSha256: string;
  hidden: number;
  chunkLen: number;
  receptiveField: number;
  /** How the encodings were computed (see the file header). */
  method: 'one pass' | 'per chunk';
}

/** The features an encoder adds, in column order. */
export function tcnFeatureNames(hidden: number): string[] {
  return Array.from({ length: hidden }, (_, i) => `tcn${i}`);
}

/**
 * `data` with the encoder's outputs appended to every asset's features (T × assets × (F + hidden)),
 * and what the encoder was.
 */
export function withTcnEncoder(
  data: MarketData,
  runDir: string,
): { data: MarketData; encoder: TcnEncoderInfo } {
  const modelDir = join(runDir, 'model');
  const loaded = loadTcnModel(modelDir, 'policy-encoder');
  const { net, meta } = loaded;
  try {
    const names = meta.featureNames as readonly string[] | undefined;
    const normalization = meta.normalization as { mean: number[]; sd: number[] } | undefined;
    const chunkLen = meta.chunkLen as number | undefined;
    if (
      names?.join(',') !== RV_FEATURE_NAMES.join(',') ||
      normalization === undefined ||
      chunkLen === undefined
    )
      throw new TradelabError(
        'MODEL_INVALID',
        `${modelDir} was not written by \`tradelab pretrain tcn\` (its inputs are not the per-bar RV features)`,
        {
          hint: 'point --policy tcn:DIR at a pretraining run directory',
        },
      );
    const { open, high, low, volume } = data;
    if (open === undefined || high === undefined || low === undefined || volume === undefined)
      throw new TradelabError(
        'INTERNAL',
        'the TCN encoder needs the bars’ open, high, low and volume',
      );
    const T = data.timestamps.length;
    const assets = data.symbols.length;
    const hidden = net.config.hidden;
    const receptiveField = tcnSize(net.config).receptiveField;
    // One pass gives each bar's last-step encoding when the field fits in a chunk (not a mean).
    const method =
      net.config.pooling === 'last' && receptiveField <= chunkLen ? 'one pass' : 'per chunk';
    const encodings = new Float32Array(T * assets * hidden);
    for (let a = 0; a < assets; a++) {
      const column = (values: Float64Array): Float64Array =>
        Float64Array.from({ length: T }, (_, t) => values[t * assets + a] ?? Number.NaN);
      const bars: Bars = {
        timestamps: data.timestamps,
        open: column(open),
        high: column(high),
        low: column(low),
        close: column(data.priceArray),
        volume: column(volume),
      };
      const raw = barFeatures(bars);
      const x = new Float32Array(raw.length);
      for (let i = 0; i < raw.length; i++)
        x[i] =
          ((raw[i] ?? 0) - (normalization.mean[i % BAR_FEATURE_COUNT] ?? 0)) /
          (normalization.sd[i % BAR_FEATURE_COUNT] ?? 1);
      const out =
        method === 'one pass' ? encodeOnePass(net, x, T) : encodePerChunk(net, x, T, chunkLen);
      for (let t = 0; t < T; t++)
        encodings.set(out.subarray(t * hidden, (t + 1) * hidden), (t * assets + a) * hidden);
    }
    const F = data.featureNames.length;
    const techArray = new Float32Array(T * assets * (F + hidden));
    for (let row = 0; row < T * assets; row++) {
      techArray.set(data.techArray.subarray(row * F, (row + 1) * F), row * (F + hidden));
      techArray.set(encodings.subarray(row * hidden, (row + 1) * hidden), row * (F + hidden) + F);
    }
    return {
      data: {
        ...data,
        techArray,
        featureNames: [...data.featureNames, ...tcnFeatureNames(hidden)],
      },
      encoder: {
        run: runDir,
        weightsSha256: sha256(readFileSync(join(modelDir, 'weights.bin'))),
        hidden,
        chunkLen,
        receptiveField,
        method,
      },
    };
  } finally {
    net.dispose();
  }
}

/** Every step's hidden state of one pass over the series x [T × features] → [T × hidden]. */
function encodeOnePass(
  net: ReturnType<typeof loadTcnModel>['net'],
  x: Float32Array,
  T: number,
): Float32Array {
  return tf.tidy(
    () => net.hiddenSequence(tf.tensor3d(x, [1, T, BAR_FEATURE_COUNT])).dataSync() as Float32Array,
  );
}

/** The encoding of the chunk ending at each bar (zeros, the features' mean, before the first bar). */
function encodePerChunk(
  net: ReturnType<typeof loadTcnModel>['net'],
  x: Float32Array,
  T: number,
  chunkLen: number,
): Float32Array {
  const hidden = net.config.hidden;
  const out = new Float32Array(T * hidden);
  const batch = 64;
  const chunk = new Float32Array(batch * chunkLen * BAR_FEATURE_COUNT);
  for (let from = 0; from < T; from += batch) {
    const n = Math.min(batch, T - from);
    chunk.fill(0);
    for (let r = 0; r < n; r++) {
      const end = from + r + 1;
      const start = Math.max(0, end - chunkLen);
      const offset = (r * chunkLen + (chunkLen - (end - start))) * BAR_FEATURE_COUNT;
      chunk.set(x.subarray(start * BAR_FEATURE_COUNT, end * BAR_FEATURE_COUNT), offset);
    }
    const z = tf.tidy(() =>
      net
        .encode(
          tf.tensor3d(chunk.subarray(0, n * chunkLen * BAR_FEATURE_COUNT), [
            n,
            chunkLen,
            BAR_FEATURE_COUNT,
          ]),
        )
        .dataSync(),
    );
    out.set(z, from * hidden);
  }
  return out;
}

/** The encoder a policy would get from a pretraining run, without computing any encoding. */
export function describeTcnEncoder(
  runDir: string,
): Pick<TcnEncoderInfo, 'run' | 'weightsSha256' | 'hidden' | 'chunkLen'> {
  const modelDir = join(runDir, 'model');
  const { net, meta } = loadTcnModel(modelDir, 'policy-encoder-check');
  const hidden = net.config.hidden;
  net.dispose();
  const chunkLen = meta.chunkLen;
  if (typeof chunkLen !== 'number')
    throw new TradelabError(
      'MODEL_INVALID',
      `${modelDir} was not written by \`tradelab pretrain tcn\` (it records no chunk length)`,
      { hint: 'point policy: tcn:DIR at a pretraining run directory' },
    );
  return {
    run: runDir,
    weightsSha256: sha256(readFileSync(join(modelDir, 'weights.bin'))),
    hidden,
    chunkLen,
  };
}

/**
 * The data a model with an encoder was trained on, rebuilt: `data` with the encodings of the
 * encoder the model records, refused when that encoder's weights changed since.
 */
export function withRecordedEncoder(
  data: MarketData,
  encoder: Pick<TcnEncoderInfo, 'run' | 'weightsSha256'> | undefined,
): MarketData {
  if (encoder === undefined) return data;
  const rebuilt = withTcnEncoder(data, encoder.run);
  if (rebuilt.encoder.weightsSha256 !== encoder.weightsSha256)
    throw new TradelabError(
      'DATA_MISMATCH',
      `the TCN encoder at ${encoder.run} changed since this model was trained (weights ${encoder.weightsSha256.slice(0, 12)}…, now ${rebuilt.encoder.weightsSha256.slice(0, 12)}…)`,
      {
        hint: 'restore that pretraining run, or train the policy again on the encoder as it is now',
      },
    );
  return rebuilt.data;
}

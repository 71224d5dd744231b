import { TradelabError, closestMatch } from '../../core/index.js';
import type { Bars } from '../bars.js';
import { type AdxOptions, directionalMovement, resolveAdxOptions } from './adx.js';
import { type AtrOptions, atrRatio, resolveAtrOptions } from './atr.js';
import { type BollingerOptions, bollinger, resolveBollingerOptions } from './bollinger.js';
import { type CciOptions, cci, resolveCciOptions } from './cci.js';
import { type MacdOptions, relativeMacd, resolveMacdOptions } from './macd.js';
import { type ObvOptions, obvRatio, resolveObvOptions } from './obv.js';
import {
  type LogReturnOptions,
  type VolatilityOptions,
  logReturnsForHorizons,
  resolveLogReturnOptions,
  resolveVolatilityOptions,
  rollingVolatility,
} from './returns.js';
import { type RsiOptions, resolveRsiOptions, rsi } from './rsi.js';
import {
  type UltimateOscillatorOptions,
  resolveUltimateOscillatorOptions,
  ultimateOscillator,
} from './ultimate-oscillator.js';
import {
  type VolumeZScoreOptions,
  resolveVolumeZScoreOptions,
  volumeZScore,
} from './volume-zscore.js';

/**
 * Which indicators make up the feature table, and their parameters. Every indicator is on by
 * default with the parameters listed; `false` leaves it out, an object changes its parameters
 * (the fields left out keep their defaults).
 */
export interface FeatureOptions {
  /** `logret_H`: `ln(close[t] / close[t − H])`. Default `{ horizons: [1, 5, 20] }`. */
  logReturns?: LogReturnOptions | false;
  /** `vol_W`: sample std of the last W 1-bar log returns, per bar. Default `{ window: 20 }`. */
  volatility?: VolatilityOptions | false;
  /** `rsi_P`: Wilder's RSI, 0–100. Default `{ period: 14 }`. */
  rsi?: RsiOptions | false;
  /**
   * `macd_line_F_S_G`, `macd_signal_F_S_G`, `macd_hist_F_S_G`: MACD divided by the close (scale-free).
   * Default `{ fast: 12, slow: 26, signal: 9 }`.
   */
  macd?: MacdOptions | false;
  /** `cci_P`: Commodity Channel Index. Default `{ period: 20, constant: 0.015 }`. */
  cci?: CciOptions | false;
  /** `dx_P`, `adx_P`: Wilder's DX and ADX, 0–100. Default `{ period: 14 }`. */
  adx?: AdxOptions | false;
  /** `uo_S_M_L`: Ultimate Oscillator, 0–100. Default `{ short: 7, medium: 14, long: 28, weights: [4, 2, 1] }`. */
  ultimateOscillator?: UltimateOscillatorOptions | false;
  /** `obv_ratio_W`: OBV change over W bars / volume over W bars, in [−1, 1]. Default `{ window: 20 }`. */
  obv?: ObvOptions | false;
  /** `bb_pctb_P_K`, `bb_width_P_K`: Bollinger %B and bandwidth. Default `{ period: 20, stdDevs: 2 }`. */
  bollinger?: BollingerOptions | false;
  /** `atr_ratio_P`: Wilder's ATR as a fraction of the close. Default `{ period: 14 }`. */
  atr?: AtrOptions | false;
  /** `volume_z_W`: z-score of the volume within the last W bars. Default `{ window: 20 }`. */
  volumeZScore?: VolumeZScoreOptions | false;
}

/** One asset's features: T rows × F features. */
export interface FeatureTable {
  /** Feature names, in column order. */
  names: string[];
  /**
   * Number of leading rows where at least one feature is undefined (NaN); the caller drops them.
   * Every row from `warmup` on is finite. Never more than the number of bars.
   */
  warmup: number;
  /** T × F, row-major: feature f of bar t is `values[t * F + f]`. */
  values: Float32Array;
}

/** Several aligned assets' features: T rows × assets × F features (the loader's `techArray`). */
export interface MultiAssetFeatureTable {
  /** Feature names, in column order (the same for every asset). */
  names: string[];
  /** The largest warm-up over the assets: every row from here on is finite for every asset. */
  warmup: number;
  /** Number of assets. */
  assets: number;
  /** T × assets × F, row-major: feature f of asset a at bar t is `values[(t * assets + a) * F + f]`. */
  values: Float32Array;
}

/** One indicator's columns: their names, the first bar each is defined at, and how to compute them. */
interface FeatureGroup {
  names: string[];
  warmups: number[];
  compute(bars: Bars): Float64Array[];
}

type GroupKey = keyof FeatureOptions;

/** The indicators in column order. Each entry validates its options when planned. */
const GROUPS: Readonly<Record<GroupKey, (options: FeatureOptions) => FeatureGroup>> = {
  logReturns: (options) => {
    const { horizons } = resolveLogReturnOptions(options.logReturns || {});
    return {
      names: horizons.map((h) => `logret_${h}`),
      warmups: [...horizons],
      compute: (bars) => logReturnsForHorizons(bars.close, horizons),
    };
  },
  volatility: (options) => {
    const resolved = resolveVolatilityOptions(options.volatility || {});
    return {
      names: [`vol_${resolved.window}`],
      warmups: [resolved.window],
      compute: (bars) => [rollingVolatility(bars.close, resolved)],
    };
  },
  rsi: (options) => {
    const resolved = resolveRsiOptions(options.rsi || {});
    return {
      names: [`rsi_${resolved.period}`],
      warmups: [resolved.period],
      compute: (bars) => [rsi(bars.close, resolved)],
    };
  },
  macd: (options) => {
    const resolved = resolveMacdOptions(options.macd || {});
    const { fast, slow, signal } = resolved;
    const suffix = `${fast}_${slow}_${signal}`;
    return {
      names: [`macd_line_${suffix}`, `macd_signal_${suffix}`, `macd_hist_${suffix}`],
      warmups: [slow - 1, slow + signal - 2, slow + signal - 2],
      compute: (bars) => {
        const series = relativeMacd(bars.close, resolved);
        return [series.line, series.signal, series.histogram];
      },
    };
  },
  cci: (options) => {
    const resolved = resolveCciOptions(options.cci || {});
    const constant = resolved.constant === 0.015 ? '' : `_c${resolved.constant}`;
    return {
      names: [`cci_${resolved.period}${constant}`],
      warmups: [resolved.period - 1],
      compute: (bars) => [cci(bars.high, bars.low, bars.close, resolved)],
    };
  },
  adx: (options) => {
    const resolved = resolveAdxOptions(options.adx || {});
    const { period } = resolved;
    return {
      names: [`dx_${period}`, `adx_${period}`],
      warmups: [period, 2 * period - 1],
      compute: (bars) => {
        const dmi = directionalMovement(bars.high, bars.low, bars.close, resolved);
        return [dmi.dx, dmi.adx];
      },
    };
  },
  ultimateOscillator: (options) => {
    const resolved = resolveUltimateOscillatorOptions(options.ultimateOscillator || {});
    const { short, medium, long, weights } = resolved;
    const custom = weights.join('-') === '4-2-1' ? '' : `_w${weights.join('-')}`;
    return {
      names: [`uo_${short}_${medium}_${long}${custom}`],
      warmups: [long],
      compute: (bars) => [ultimateOscillator(bars.high, bars.low, bars.close, resolved)],
    };
  },
  obv: (options) => {
    const resolved = resolveObvOptions(options.obv || {});
    return {
      names: [`obv_ratio_${resolved.window}`],
      warmups: [resolved.window],
      compute: (bars) => [obvRatio(bars.close, bars.volume, resolved)],
    };
  },
  bollinger: (options) => {
    const resolved = resolveBollingerOptions(options.bollinger || {});
    const suffix = `${resolved.period}_${resolved.stdDevs}`;
    return {
      names: [`bb_pctb_${suffix}`, `bb_width_${suffix}`],
      warmups: [resolved.period - 1, resolved.period - 1],
      compute: (bars) => {
        const bands = bollinger(bars.close, resolved);
        return [bands.percentB, bands.bandwidth];
      },
    };
  },
  atr: (options) => {
    const resolved = resolveAtrOptions(options.atr || {});
    return {
      names: [`atr_ratio_${resolved.period}`],
      warmups: [resolved.period - 1],
      compute: (bars) => [atrRatio(bars.high, bars.low, bars.close, resolved)],
    };
  },
  volumeZScore: (options) => {
    const resolved = resolveVolumeZScoreOptions(options.volumeZScore || {});
    return {
      names: [`volume_z_${resolved.window}`],
      warmups: [resolved.window - 1],
      compute: (bars) => [volumeZScore(bars.volume, resolved)],
    };
  },
};

const GROUP_KEYS = Object.keys(GROUPS) as GroupKey[];

/** The indicator groups `options` selects, in column order, with their options checked. */
function planFeatures(options: FeatureOptions): FeatureGroup[] {
  for (const key of Object.keys(options)) {
    if (!(GROUP_KEYS as string[]).includes(key)) {
      const guess = closestMatch(key, GROUP_KEYS);
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `unknown feature option "${key}"; known: ${GROUP_KEYS.join(', ')}`,
        { hint: guess === undefined ? 'remove it' : `did you mean "${guess}"?` },
      );
    }
  }
  const groups: FeatureGroup[] = [];
  for (const key of GROUP_KEYS) {
    const value: unknown = options[key];
    if (value === false) continue;
    if (value !== undefined && (typeof value !== 'object' || value === null)) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `feature option "${key}" must be an options object or false, got ${JSON.stringify(value)}`,
        { hint: `e.g. ${key}: {} for the defaults, or ${key}: false to leave it out` },
      );
    }
    groups.push(GROUPS[key](options));
  }
  if (groups.length === 0) {
    throw new TradelabError('INVALID_ARGUMENT', 'every feature is switched off', {
      hint: 'leave at least one indicator on (options default to all of them)',
    });
  }
  return groups;
}

/** The feature names `options` produce, in column order, without computing anything. */
export function featureNames(options: FeatureOptions = {}): string[] {
  return planFeatures(options).flatMap((group) => group.names);
}

/**
 * The number of leading bars where some feature `options` produce is undefined (33 with the
 * defaults: MACD's signal line), without computing anything. A series with fewer bars has no
 * complete row.
 */
export function featureWarmup(options: FeatureOptions = {}): number {
  return Math.max(...planFeatures(options).flatMap((group) => group.warmups));
}

/** The default feature names, in column order (17 features; warm-up {@link DEFAULT_FEATURE_WARMUP}). */
export const DEFAULT_FEATURE_NAMES: readonly string[] = Object.freeze(featureNames());
/** The default features' warm-up, in bars. */
export const DEFAULT_FEATURE_WARMUP: number = featureWarmup();

/**
 * The technical-indicator features of one asset, causally: row t uses bars ≤ t only. The bars must
 * be validated (finite positive high, low and close; finite non-negative volume); a bar that is not
 * is an INVALID_ARGUMENT error naming it.
 */
export function computeFeatures(bars: Bars, options: FeatureOptions = {}): FeatureTable {
  const groups = planFeatures(options);
  const names = groups.flatMap((group) => group.names);
  const rows = checkBars(bars, 'bars');
  const values = new Float32Array(rows * names.length);
  const warmup = writeFeatures(bars, groups, names, values, names.length, 0);
  return { names, warmup, values };
}

/**
 * The features of several assets whose bars are already aligned (the same timestamps, row by row),
 * as one T × assets × F array; the warm-up is the largest of the assets'.
 */
export function computeFeaturesForAssets(
  barsPerAsset: readonly Bars[],
  options: FeatureOptions = {},
): MultiAssetFeatureTable {
  const groups = planFeatures(options);
  const names = groups.flatMap((group) => group.names);
  const [reference] = barsPerAsset;
  if (reference === undefined) {
    throw new TradelabError('INVALID_ARGUMENT', 'no assets: barsPerAsset is empty', {
      hint: 'pass the Bars of at least one asset',
    });
  }
  const rows = reference.timestamps.length;
  barsPerAsset.forEach((bars, asset) => {
    checkBars(bars, `asset ${asset}`);
    checkAligned(reference, bars, asset);
  });
  const assets = barsPerAsset.length;
  const width = names.length;
  const values = new Float32Array(rows * assets * width);
  let warmup = 0;
  barsPerAsset.forEach((bars, asset) => {
    const assetWarmup = writeFeatures(bars, groups, names, values, assets * width, asset * width);
    warmup = Math.max(warmup, assetWarmup);
  });
  return { names, warmup, assets, values };
}

/** Rows per block when interleaving the columns into the row-major output (a block stays in L2). */
const BLOCK_ROWS = 4096;
/** The largest finite Float32 (a larger value would be stored as Infinity). */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Computes every group and writes feature f of bar t to `out[t * stride + offset + f]`, checking that
 * each value from its warm-up on is finite (for validated bars it is: a NaN there is a bug).
 * Returns the warm-up, capped at the number of bars.
 *
 * Each indicator yields a whole column; writing one column at a time into the row-major output would
 * touch every cache line of it once per feature, so all columns are kept (peak memory about
 * 8 bytes × bars × features besides the output) and interleaved block by block.
 */
function writeFeatures(
  bars: Bars,
  groups: readonly FeatureGroup[],
  names: readonly string[],
  out: Float32Array,
  stride: number,
  offset: number,
): number {
  const rows = bars.close.length;
  const columns = groups.flatMap((group) => group.compute(bars));
  const warmups = groups.flatMap((group) => group.warmups);
  for (let block = 0; block < rows; block += BLOCK_ROWS) {
    const end = Math.min(rows, block + BLOCK_ROWS);
    for (let f = 0; f < columns.length; f++) {
      const column = columns[f];
      if (column === undefined) continue;
      const warmup = warmups[f] ?? 0;
      const at = offset + f;
      for (let t = block; t < end; t++) {
        const value = column[t] ?? NaN;
        // Finite and inside the Float32 range, or still in its warm-up.
        if (!(Math.abs(value) <= FLOAT32_MAX) && t >= warmup) {
          throw new TradelabError(
            'INTERNAL',
            `feature ${names[f] ?? '?'} is ${value} at bar ${t}, after its warm-up of ${warmup}`,
            { details: { feature: names[f], bar: t } },
          );
        }
        out[t * stride + at] = value;
      }
    }
  }
  return Math.min(rows, Math.max(...warmups));
}

const CHECKED_FIELDS = ['high', 'low', 'close', 'volume'] as const;

/** Throws unless the bars have one length and usable values; returns the number of bars. */
function checkBars(bars: Bars, label: string): number {
  const rows = bars.timestamps.length;
  for (const field of ['open', ...CHECKED_FIELDS] as const) {
    if (bars[field].length !== rows) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${label}: ${field} has ${bars[field].length} values but timestamps has ${rows}`,
        { hint: 'every column of a Bars object must have one length' },
      );
    }
  }
  for (const field of CHECKED_FIELDS) {
    const series = bars[field];
    const isVolume = field === 'volume';
    for (let t = 0; t < rows; t++) {
      const value = series[t] ?? NaN;
      if (Number.isFinite(value) && (isVolume ? value >= 0 : value > 0)) continue;
      throw new TradelabError(
        'DATA_INVALID',
        `${label}: ${field} at bar ${t} is ${value}; features need ${isVolume ? 'finite non-negative volumes' : 'finite positive prices'}`,
        {
          hint: 'import the data with `tradelab data import` (it validates bars), or repair the series',
          details: { field, bar: t, value },
        },
      );
    }
  }
  return rows;
}

function checkAligned(reference: Bars, bars: Bars, asset: number): void {
  const rows = reference.timestamps.length;
  if (bars.timestamps.length !== rows) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `asset ${asset} has ${bars.timestamps.length} bars but asset 0 has ${rows}; the assets are not aligned`,
      { hint: 'align the assets on common timestamps first (the loader does)' },
    );
  }
  for (let t = 0; t < rows; t++) {
    if (bars.timestamps[t] !== reference.timestamps[t]) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `asset ${asset}'s bar ${t} is at ${bars.timestamps[t] ?? NaN} but asset 0's is at ${reference.timestamps[t] ?? NaN}; the assets are not aligned`,
        { hint: 'align the assets on common timestamps first (the loader does)' },
      );
    }
  }
}

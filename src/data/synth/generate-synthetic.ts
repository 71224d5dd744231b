/**
 * Synthetic OHLCV markets: several correlated assets with volatility clustering, fat tails,
 * regime switches, intraday volume and, on request, a planted predictable component. Tests,
 * examples and the quickstart train on it; nothing in the project downloads data.
 *
 * ## Model (per bar t, asset i; every draw comes from its own seeded stream)
 *
 *   regime     s_t: a Markov chain over {calm, normal, turbulent} (DEFAULT_REGIMES): a regime
 *              lasts a geometric number of bars, `meanDays` sessions on average, then jumps by
 *              its `exits` probabilities.
 *   factor     f_t = √hF_t · zF_t,  hF_{t+1} = ω + α f_t² + β hF_t    (GARCH(1,1), E[hF] = 1)
 *   own part   u_it = √hU_it · zU_it, hU_{i,t+1} = ω + α u_it² + β hU_it  (ω = 1 − α − β)
 *              zF, zU: Student-t with ν degrees of freedom scaled to unit variance (fat tails).
 *   shock      e_it = c_i · vol_s · (fac_s · √w_i · f_t + √(1 − w_i) · u_it)
 *              w_i = the asset's factor share (pairwise correlation ≈ √(w_i w_j), higher in
 *              turbulence where fac_s > 1), vol_s the regime's volatility scale, c_i normalizes the
 *              unconditional variance of e_it to 1 over the regimes' stationary distribution.
 *   σ_it       = σbar_i · c_i · vol_s · √(fac_s² w_i hF_t + (1 − w_i) hU_it): the conditional sd of
 *              the bar's log return, σbar_i = annualVol_i / √barsPerYear.
 *   return     r_it = drift_s / barsPerYear + signal · σ_it · m_i,t−1 + σbar_i · e_it   (log)
 *              m_i,t−1 = momentumState(close_i, k)[t − 1] = sign(close_{t−1} − close_{t−1−k}).
 *   prices     open_t = close_{t−1} (× e^{gap} after a US-equities close, see `overnightShare`),
 *              close_t = open_t · e^{r_t}; high/low from a Brownian bridge of `subSteps` sub-steps
 *              between them plus a half-normal wick (the continuous path's overshoot of the
 *              sampled one, mean 0.5826 σ √(1/subSteps)), so high ≥ max(open, close) and
 *              low ≤ min(open, close) by construction.
 *   volume     v_it = level_i · U(phase_t) · (σ_it/σbar_i) · (0.5 + 0.5 |ẽ_it| / 0.75)
 *              · exp(0.4 n − 0.08): U-shaped over the day or session (ends 3× the middle), rising
 *              with volatility and with the bar's absolute standardized shock ẽ, log-normal noise.
 *
 * With `signal` = 0 and zero regime drifts (the defaults), E[r_t | everything up to t − 1] = 0:
 * log prices are a martingale, and no strategy has an edge (zF, zU are symmetric, independent of
 * the past and of the regime). With `signal` ≠ 0 (the planted momentum), the vol-scaled position
 * m_t−1 / σ_t earns a per-bar Sharpe ratio of exactly |signal| on bars without an overnight gap
 * (annualized: |signal| · √barsPerYear); the plain position m_t−1 a little less
 * (|signal| · E[σ] / √E[σ²]). Same strength, same signal-to-noise ratio at every timeframe.
 *
 * GARCH and regime parameters are per bar and the same at every timeframe; regime durations are in
 * sessions (days for 24/7), so regimes are long-lived at 1m and switch every few weeks at 1d.
 */
import { TradelabError } from '../../core/index.js';
import { allocateBars, type Bars } from '../bars.js';
import {
  CALENDARS,
  calendarFor,
  newYorkOffsetMs,
  type Calendar,
  type CalendarName,
} from '../calendar.js';
import { DAY_MS, isTimeframe, timeframeMs, TIMEFRAMES, type Timeframe } from '../timeframe.js';
import { Rng } from '../../core/random.js';

/** One state of the market's regime chain. */
export interface RegimeSpec {
  /** Its name, e.g. "turbulent". */
  readonly name: string;
  /** Multiplier of every asset's volatility (before normalizing to the target annual vol). */
  readonly volScale: number;
  /** Multiplier of the market factor's loading; above 1 raises the cross-asset correlation. */
  readonly factorScale: number;
  /**
   * Annualized drift of log prices in this regime. Non-zero drifts make returns predictable (a
   * regime persists and can be inferred from recent returns), so the defaults are all 0.
   */
  readonly drift: number;
  /** Expected duration, in sessions (calendar days for 24/7). */
  readonly meanDays: number;
  /** Probabilities of the next regime on leaving this one (own entry ignored), by regime index. */
  readonly exits: readonly number[];
}

/** Default regimes: calm (low vol and correlation), normal, turbulent (high vol, correlation). */
export const DEFAULT_REGIMES: readonly RegimeSpec[] = [
  { name: 'calm', volScale: 0.7, factorScale: 0.9, drift: 0, meanDays: 60, exits: [0, 0.85, 0.15] },
  { name: 'normal', volScale: 1, factorScale: 1, drift: 0, meanDays: 40, exits: [0.6, 0, 0.4] },
  {
    name: 'turbulent',
    volScale: 1.8,
    factorScale: 1.4,
    drift: 0,
    meanDays: 12,
    exits: [0.2, 0.8, 0],
  },
];

/** Options of {@link generateSynthetic}. */
export interface SynthOptions {
  /** How many symbols (named SYN0, SYN1, … zero-padded to equal width), or their names. */
  symbols: number | readonly string[];
  /** Bars per symbol. */
  bars: number;
  /** Bar timeframe. */
  timeframe: Timeframe;
  /** Seed (any safe integer): same options → same bytes. */
  seed: number;
  /**
   * Strength of the planted momentum signal: bar t's expected log return is
   * `signal × σ_t × sign(close_{t−1} − close_{t−1−k})`, a per-bar Sharpe ratio of `signal` for the
   * ideal strategy. Negative plants mean reversion. Default 0: no signal, log prices a martingale.
   * Useful values: 0.02 (subtle) to 0.2 (obvious).
   */
  signal?: number;
  /** k, the planted signal's look-back in bars. Default 5. */
  signalLookback?: number;
  /**
   * Earliest start of the first bar, ms UTC; rounded up to the timeframe, then to the first open
   * slot of the calendar. Default 2020-01-01T00:00:00Z.
   */
  start?: number;
  /**
   * Trading calendar: `24/7` gives consecutive bars; `us-equities` and `fx` keep only open slots
   * (`calendar.isOpen`; daily bars on session days, stamped 00:00 UTC). Default `24/7`.
   */
  calendar?: CalendarName;
  /** First open of every symbol, or one per symbol. Default 100. */
  startPrice?: number | readonly number[];
  /**
   * Annualized volatility of log returns: one value for every symbol, or [min, max] from which each
   * symbol's is drawn uniformly. Default [0.6, 0.8] (crypto-like).
   */
  annualVol?: number | readonly [number, number];
  /**
   * Share of each symbol's variance that comes from the market factor: a value, or [min, max] to
   * draw from. Pairwise correlation ≈ √(w_i w_j). Default [0.3, 0.8].
   */
  factorShare?: number | readonly [number, number];
  /** GARCH(1,1) α (reaction to the last squared shock). Default 0.06. */
  garchAlpha?: number;
  /** GARCH(1,1) β (persistence of variance); α + β < 1. Default 0.9. */
  garchBeta?: number;
  /** Degrees of freedom of the Student-t innovations (> 2; lower is fatter). Default 5. */
  tailNu?: number;
  /** The regime chain; one regime turns switching off. Default {@link DEFAULT_REGIMES}. */
  regimes?: readonly RegimeSpec[];
  /**
   * For `us-equities` intraday bars: the share of a session's variance that arrives overnight, as a
   * gap between the previous close and the next session's first open. Default 0.2. Other calendars
   * and daily bars have no gaps (open = previous close).
   */
  overnightShare?: number;
  /**
   * Mean volume per session (day for 24/7) of a typical symbol; each symbol's level is this times
   * a log-normal factor e^{N(0, 0.5²)} of mean 1. Default 1,000,000.
   */
  volume?: number;
  /** Sub-steps of the Brownian bridge that builds each bar's high and low (≥ 1). Default 4. */
  subSteps?: number;
  /** Whether to return each bar's conditional sd σ_t in `meta.volatility`. Default false. */
  includeVolatility?: boolean;
}

/** What a generated asset was given. */
export interface SyntheticAsset {
  symbol: string;
  /** Target annualized volatility of log returns. */
  annualVol: number;
  /** Share of variance from the market factor. */
  factorShare: number;
  /** Unconditional sd of one bar's log return (without gaps and signal). */
  barVol: number;
  /** Mean volume per session. */
  volume: number;
}

/** How a synthetic market was made, and what is planted in it. */
export interface SyntheticMeta {
  seed: number;
  /** Bars in a year of this calendar and timeframe (for annualizing). */
  barsPerYear: number;
  /** Per-symbol parameters, in symbol order. */
  assets: SyntheticAsset[];
  /** The regimes used. */
  regimes: readonly RegimeSpec[];
  /** Long-run share of time in each regime. */
  regimeShare: number[];
  /** The regime index of every bar. */
  regimePath: Uint8Array;
  /** The resolved model parameters. */
  model: {
    garchAlpha: number;
    garchBeta: number;
    tailNu: number;
    overnightShare: number;
    subSteps: number;
  };
  /** The planted signal and its theoretical strength. */
  signal: {
    /** `signal` as given. */
    strength: number;
    /** k. */
    lookback: number;
    /** Per-bar Sharpe ratio of the ideal (vol-scaled) strategy: |strength|. */
    perBarSharpe: number;
    /** The same, annualized: |strength| · √barsPerYear. */
    annualizedSharpe: number;
    /** The planted rule in words. */
    description: string;
  };
  /** Each bar's conditional sd of the log return, per symbol (only with `includeVolatility`). */
  volatility?: Float64Array[];
}

/** A generated market: one {@link Bars} per symbol, all on the same timestamps. */
export interface SyntheticMarket {
  symbols: string[];
  bars: Bars[];
  calendar: CalendarName;
  timeframe: Timeframe;
  meta: SyntheticMeta;
}

/** Stream ids: each random component owns one; adding bars or symbols never reshuffles others. */
const STREAM = { regime: 1, factor: 2, assetParams: 3, assetPath: 4, gap: 5 } as const;
const DEFAULT_START = Date.UTC(2020, 0, 1);
const HOUR = 3_600_000;
const HALF_HOUR = 1_800_000;
/** −ζ(1/2)/√(2π): expected overshoot of a Brownian maximum over its discretely sampled maximum. */
const WICK = 0.5826;
/** U-shape depth: the day's or session's ends trade (1 + a) times the middle. */
const U_DEPTH = 2;
const VOLUME_NOISE = 0.4;
/** ≈ E|ẽ| for unit-variance Student-t(5)/normal mixtures; keeps mean volume near its level. */
const MEAN_ABS_SHOCK = 0.75;
const MAX_BARS = 100_000_000;

/** Generates a synthetic market; see the file header for the model. */
export function generateSynthetic(options: SynthOptions): SyntheticMarket {
  const o = resolve(options);
  const calendar = calendarFor(o.calendar);
  const barMs = timeframeMs(o.timeframe);
  const daily = barMs >= DAY_MS;
  const nSymbols = o.symbols.length;
  const T = o.bars;

  // ---- time axis: timestamps, volume shape, gap flags -------------------------------------------
  const timestamps = makeTimestamps(calendar, o.start, barMs, T);
  const barsPerSession = daily ? 1 : barsPerSessionOf(calendar, timestamps[0] ?? 0, barMs);
  const barsPerYear = calendar.sessionsPerYear * barsPerSession;
  const shape = volumeShape(calendar, timestamps, barMs);
  const gaps = o.calendar === 'us-equities' && !daily && o.overnightShare > 0;
  const gapShare = gaps ? o.overnightShare : 0;

  // ---- regimes ----------------------------------------------------------------------------------
  const nRegimes = o.regimes.length;
  const regimeShare = stationaryShare(o.regimes);
  const leave = o.regimes.map((r) => Math.min(1, 1 / (r.meanDays * barsPerSession)));
  const exitCdf = o.regimes.map((r, j) => {
    const weights = r.exits.map((p, k) => (k === j ? 0 : p));
    const total = weights.reduce((a, b) => a + b, 0);
    let acc = 0;
    return weights.map((p) => (acc += p / total));
  });
  const regimePath = new Uint8Array(T);
  {
    const rng = new Rng(o.seed, STREAM.regime);
    let u = rng.uniform();
    let s = 0;
    while (s < nRegimes - 1 && u >= (regimeShare[s] ?? 0)) u -= regimeShare[s++] ?? 0;
    for (let t = 0; t < T; t++) {
      if (t > 0 && nRegimes > 1 && rng.uniform() < (leave[s] ?? 1)) {
        const cdf = exitCdf[s] ?? [];
        const v = rng.uniform();
        let next = 0;
        while (next < nRegimes - 1 && v >= (cdf[next] ?? 1)) next++;
        s = next;
      }
      regimePath[t] = s;
    }
  }
  const volScale = Float64Array.from(o.regimes, (r) => r.volScale);
  const factorScale = Float64Array.from(o.regimes, (r) => r.factorScale);
  const driftPerBar = Float64Array.from(o.regimes, (r) => r.drift / barsPerYear);

  // ---- market factor (GARCH(1,1), Student-t) ----------------------------------------------------
  const alpha = o.garchAlpha;
  const beta = o.garchBeta;
  const omega = 1 - alpha - beta;
  const nu = o.tailNu;
  const factor = new Float64Array(T);
  const factorVar = new Float64Array(T);
  {
    const rng = new Rng(o.seed, STREAM.factor);
    let h = 1;
    for (let t = 0; t < T; t++) {
      const f = Math.sqrt(h) * rng.studentT(nu);
      factor[t] = f;
      factorVar[t] = h;
      h = omega + alpha * f * f + beta * h;
    }
  }

  // Overnight news is mostly market-wide: each gap has a common part, loaded like the factor.
  const gapCommon = new Float64Array(gaps ? T : 0);
  if (gaps) {
    const rng = new Rng(o.seed, STREAM.gap);
    for (let t = 1; t < T; t++) {
      if ((timestamps[t] ?? 0) - (timestamps[t - 1] ?? 0) > barMs) gapCommon[t] = rng.normal();
    }
  }

  // ---- assets -----------------------------------------------------------------------------------
  const digits = String(Math.max(0, nSymbols - 1)).length;
  const assets: SyntheticAsset[] = [];
  const bars: Bars[] = [];
  const volatility: Float64Array[] = [];
  const S = o.subSteps;
  const bridgeDrift = new Float64Array(S);
  const bridgeSd = new Float64Array(S);
  for (let j = 1; j < S; j++) {
    const m = S - j + 1; // sub-steps left from point j − 1 to the close
    bridgeDrift[j] = 1 / m;
    bridgeSd[j] = Math.sqrt((m - 1) / m / S);
  }
  // A half-normal |n| has mean √(2/π); scaled so the wick's mean is WICK · σ · √(1/S).
  const wickScale = (WICK * Math.sqrt(Math.PI / 2)) / Math.sqrt(S);
  const k = o.signalLookback;
  const signal = o.signal;

  for (let i = 0; i < nSymbols; i++) {
    const symbol = o.symbols[i] ?? `SYN${String(i).padStart(digits, '0')}`;
    const params = new Rng(o.seed, STREAM.assetParams, i);
    const annualVol = draw(o.annualVol, params);
    const w = draw(o.factorShare, params);
    const level = o.volume * Math.exp(0.5 * params.normal() - 0.125);
    const startPrice = o.startPrice[Math.min(i, o.startPrice.length - 1)] ?? 100;

    const dayVar = (annualVol * annualVol) / calendar.sessionsPerYear;
    const barVol = Math.sqrt(((1 - gapShare) * dayVar) / barsPerSession);
    const gapVol = Math.sqrt(gapShare * dayVar);
    let norm2 = 0;
    for (let s = 0; s < nRegimes; s++) {
      const v = volScale[s] ?? 1;
      const fs = factorScale[s] ?? 1;
      norm2 += (regimeShare[s] ?? 0) * v * v * (fs * fs * w + 1 - w);
    }
    const c = 1 / Math.sqrt(norm2);
    const loadF = Math.sqrt(w);
    const loadU = Math.sqrt(1 - w);
    const volumePerBar = level / barsPerSession;

    const out = allocateBars(T);
    out.timestamps.set(timestamps);
    const { open, high, low, close, volume } = out;
    const sigmaOut = o.includeVolatility ? new Float64Array(T) : undefined;
    const rng = new Rng(o.seed, STREAM.assetPath, i);
    let h = 1;
    let prevClose = startPrice;
    for (let t = 0; t < T; t++) {
      const s = regimePath[t] ?? 0;
      const scale = c * (volScale[s] ?? 1);
      const fs = factorScale[s] ?? 1;
      const hF = factorVar[t] ?? 1;
      const u = Math.sqrt(h) * rng.studentT(nu);
      const condSd = scale * Math.sqrt(fs * fs * w * hF + (1 - w) * h); // in units of barVol
      const shock = scale * (fs * loadF * (factor[t] ?? 0) + loadU * u);
      h = omega + alpha * u * u + beta * h;

      const sigma = barVol * condSd;
      let mean = driftPerBar[s] ?? 0;
      if (signal !== 0 && t > k) {
        const a = close[t - 1] ?? 0;
        const b = close[t - 1 - k] ?? 0;
        mean += signal * sigma * (a > b ? 1 : a < b ? -1 : 0);
      }
      const r = mean + barVol * shock;

      let o0 = prevClose;
      if (gaps && t > 0 && (timestamps[t] ?? 0) - (timestamps[t - 1] ?? 0) > barMs) {
        const g = loadF * (gapCommon[t] ?? 0) + loadU * rng.normal();
        o0 = prevClose * Math.exp(gapVol * condSd * g);
      }

      // Brownian bridge in log space from 0 (the open) to r (the close).
      let x = 0;
      let hi = r > 0 ? r : 0;
      let lo = r < 0 ? r : 0;
      for (let j = 1; j < S; j++) {
        x += (r - x) * (bridgeDrift[j] ?? 0) + sigma * (bridgeSd[j] ?? 0) * rng.normal();
        if (x > hi) hi = x;
        else if (x < lo) lo = x;
      }
      hi += sigma * wickScale * Math.abs(rng.normal());
      lo -= sigma * wickScale * Math.abs(rng.normal());

      const c1 = o0 * Math.exp(r);
      open[t] = o0;
      close[t] = c1;
      // max/min guard the rare case where exp rounds a tiny wick onto the open or close.
      high[t] = Math.max(o0 * Math.exp(hi), o0, c1);
      low[t] = Math.min(o0 * Math.exp(lo), o0, c1);
      const z = condSd > 0 ? Math.abs(shock) / condSd : 0;
      volume[t] =
        volumePerBar *
        (shape[t] ?? 1) *
        condSd *
        (0.5 + (0.5 * z) / MEAN_ABS_SHOCK) *
        Math.exp(VOLUME_NOISE * rng.normal() - 0.5 * VOLUME_NOISE * VOLUME_NOISE);
      if (sigmaOut !== undefined) sigmaOut[t] = sigma;
      prevClose = c1;
    }

    assets.push({ symbol, annualVol, factorShare: w, barVol, volume: level });
    bars.push(out);
    if (sigmaOut !== undefined) volatility.push(sigmaOut);
  }

  const strength = Math.abs(signal);
  const meta: SyntheticMeta = {
    seed: o.seed,
    barsPerYear,
    assets,
    regimes: o.regimes,
    regimeShare,
    regimePath,
    model: {
      garchAlpha: alpha,
      garchBeta: beta,
      tailNu: nu,
      overnightShare: gapShare,
      subSteps: S,
    },
    signal: {
      strength: signal,
      lookback: k,
      perBarSharpe: strength,
      annualizedSharpe: strength * Math.sqrt(barsPerYear),
      description:
        signal === 0
          ? 'none: log returns have zero conditional mean (log prices are a martingale)'
          : `E[r_t | past] = ${signal} × σ_t × sign(close_{t−1} − close_{t−1−${k}}) per ` +
            `symbol (${signal > 0 ? 'momentum' : 'mean reversion'}); the position ` +
            `sign(…)/σ_t has a per-bar Sharpe ratio of ${strength} ` +
            `(${(strength * Math.sqrt(barsPerYear)).toFixed(2)} annualized)`,
    },
  };
  if (o.includeVolatility) meta.volatility = volatility;
  return {
    symbols: assets.map((a) => a.symbol),
    bars,
    calendar: o.calendar,
    timeframe: o.timeframe,
    meta,
  };
}

// ---- options ------------------------------------------------------------------------------------

interface Resolved {
  symbols: (string | undefined)[];
  bars: number;
  timeframe: Timeframe;
  seed: number;
  signal: number;
  signalLookback: number;
  start: number;
  calendar: CalendarName;
  startPrice: readonly number[];
  annualVol: readonly [number, number];
  factorShare: readonly [number, number];
  garchAlpha: number;
  garchBeta: number;
  tailNu: number;
  regimes: readonly RegimeSpec[];
  overnightShare: number;
  volume: number;
  subSteps: number;
  includeVolatility: boolean;
}

function invalid(what: string, value: unknown, expected: string, hint?: string): TradelabError {
  const shown =
    typeof value === 'string'
      ? `"${value}"`
      : typeof value === 'number'
        ? String(value)
        : JSON.stringify(value);
  return new TradelabError(
    'INVALID_ARGUMENT',
    `synthetic data: ${what} ${shown} is not allowed: expected ${expected}`,
    hint === undefined ? {} : { hint },
  );
}

function integerIn(value: number, what: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(what, value, `an integer from ${min} to ${max}`);
  }
  return value;
}

function numberIn(value: number, what: string, min: number, max: number, hint?: string): number {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw invalid(what, value, `a number from ${min} to ${max}`, hint);
  }
  return value;
}

function range(
  value: number | readonly [number, number],
  what: string,
  min: number,
  max: number,
): readonly [number, number] {
  const [lo, hi] = typeof value === 'number' ? [value, value] : value;
  numberIn(lo, what, min, max);
  numberIn(hi, what, min, max);
  if (lo > hi) throw invalid(what, value, '[min, max] with min ≤ max');
  return [lo, hi];
}

function resolve(options: SynthOptions): Resolved {
  const symbols = options.symbols;
  let names: (string | undefined)[];
  if (typeof symbols === 'number') {
    names = new Array<undefined>(integerIn(symbols, 'symbols', 1, 10_000)).fill(undefined);
  } else {
    if (symbols.length === 0) throw invalid('symbols', symbols, 'at least one name');
    const seen = new Set<string>();
    for (const name of symbols) {
      if (name.trim() === '' || seen.has(name)) {
        throw invalid('symbol', name, 'unique, non-empty names');
      }
      seen.add(name);
    }
    names = [...symbols];
  }
  if (!isTimeframe(options.timeframe)) {
    throw invalid('timeframe', options.timeframe, `one of ${TIMEFRAMES.join(', ')}`);
  }
  if (!Number.isSafeInteger(options.seed)) throw invalid('seed', options.seed, 'an integer');
  const calendar = options.calendar ?? '24/7';
  if (!(CALENDARS as readonly string[]).includes(calendar)) {
    throw invalid('calendar', calendar, `one of ${CALENDARS.join(', ')}`);
  }
  const startPrice = options.startPrice ?? 100;
  const prices = typeof startPrice === 'number' ? [startPrice] : [...startPrice];
  if (prices.length === 0 || (typeof startPrice !== 'number' && prices.length !== names.length)) {
    throw invalid('startPrice', startPrice, `one price or one per symbol (${names.length})`);
  }
  for (const p of prices) {
    if (!(p > 0) || !Number.isFinite(p)) throw invalid('startPrice', p, 'a positive price');
  }
  const garchAlpha = numberIn(options.garchAlpha ?? 0.06, 'garchAlpha', 0, 1);
  const garchBeta = numberIn(options.garchBeta ?? 0.9, 'garchBeta', 0, 1);
  if (garchAlpha + garchBeta >= 1) {
    throw invalid(
      'garchAlpha + garchBeta',
      garchAlpha + garchBeta,
      'less than 1',
      'e.g. α 0.06, β 0.9',
    );
  }
  const tailNu = options.tailNu ?? 5;
  if (!(tailNu > 2) || !Number.isFinite(tailNu)) {
    throw invalid(
      'tailNu',
      tailNu,
      'a number > 2',
      'the variance is infinite for ν ≤ 2; 4 to 6 is realistic',
    );
  }
  const regimes = options.regimes ?? DEFAULT_REGIMES;
  checkRegimes(regimes);
  const start = options.start ?? DEFAULT_START;
  if (!Number.isFinite(start)) throw invalid('start', start, 'a time in ms UTC');
  return {
    symbols: names,
    bars: integerIn(options.bars, 'bars', 1, MAX_BARS),
    timeframe: options.timeframe,
    seed: options.seed,
    signal: numberIn(options.signal ?? 0, 'signal', -1, 1, '0.02 is subtle, 0.2 obvious'),
    signalLookback: integerIn(options.signalLookback ?? 5, 'signalLookback', 1, 10_000),
    start,
    calendar,
    startPrice: prices,
    annualVol: range(options.annualVol ?? [0.6, 0.8], 'annualVol', 1e-6, 10),
    factorShare: range(options.factorShare ?? [0.3, 0.8], 'factorShare', 0, 1),
    garchAlpha,
    garchBeta,
    tailNu,
    regimes,
    overnightShare: numberIn(options.overnightShare ?? 0.2, 'overnightShare', 0, 0.95),
    volume: numberIn(options.volume ?? 1_000_000, 'volume', Number.MIN_VALUE, Number.MAX_VALUE),
    subSteps: integerIn(options.subSteps ?? 4, 'subSteps', 1, 64),
    includeVolatility: options.includeVolatility ?? false,
  };
}

function checkRegimes(regimes: readonly RegimeSpec[]): void {
  if (regimes.length === 0 || regimes.length > 255) {
    throw invalid(
      'regimes',
      regimes.length,
      '1 to 255 regimes',
      'use one regime to turn switching off',
    );
  }
  regimes.forEach((r, j) => {
    const at = `regimes[${j}]`;
    numberIn(r.volScale, `${at}.volScale`, Number.MIN_VALUE, 100);
    numberIn(r.factorScale, `${at}.factorScale`, 0, 100);
    numberIn(r.drift, `${at}.drift`, -100, 100);
    numberIn(r.meanDays, `${at}.meanDays`, Number.MIN_VALUE, Number.MAX_VALUE);
    if (regimes.length === 1) return;
    if (r.exits.length !== regimes.length) {
      throw invalid(`${at}.exits`, r.exits, `${regimes.length} probabilities, one per regime`);
    }
    const others = r.exits.reduce((sum, p, k) => {
      if (!(p >= 0) || !Number.isFinite(p))
        throw invalid(`${at}.exits`, r.exits, 'probabilities ≥ 0');
      return k === j ? sum : sum + p;
    }, 0);
    if (!(others > 0))
      throw invalid(`${at}.exits`, r.exits, 'some probability of moving to another regime');
  });
}

function draw(bounds: readonly [number, number], rng: Rng): number {
  const u = rng.uniform();
  return bounds[0] + (bounds[1] - bounds[0]) * u;
}

// ---- time axis ----------------------------------------------------------------------------------

/** The first `n` open bar slots from `start` (rounded up to the bar length). */
function makeTimestamps(calendar: Calendar, start: number, barMs: number, n: number): Float64Array {
  const out = new Float64Array(n);
  let t = Math.ceil(start / barMs) * barMs;
  if (calendar.name === '24/7') {
    for (let i = 0; i < n; i++) out[i] = t + i * barMs;
    return out;
  }
  let i = 0;
  if (barMs >= DAY_MS) {
    for (let day = t / DAY_MS; i < n; day++)
      if (calendar.isSessionDay(day)) out[i++] = day * DAY_MS;
    return out;
  }
  if (barMs >= HALF_HOUR) {
    for (; i < n; t += barMs) if (calendar.isOpen(t)) out[i++] = t;
    return out;
  }
  // Markets open and close on the half hour (UTC offsets are whole hours), so shorter bars go by
  // half-hour blocks: open at both ends means open throughout (30× fewer calls at 1m); a block
  // whose ends disagree is checked slot by slot.
  while (i < n) {
    const end = t - mod(t, HALF_HOUR) + HALF_HOUR;
    const first = calendar.isOpen(t);
    if (first === calendar.isOpen(end - barMs)) {
      if (first) for (; t < end && i < n; t += barMs) out[i++] = t;
      t = end;
    } else {
      for (; t < end && i < n; t += barMs) if (calendar.isOpen(t)) out[i++] = t;
    }
  }
  return out;
}

/** Average open intraday slots per session, counted over four weeks from `from`. */
function barsPerSessionOf(calendar: Calendar, from: number, barMs: number): number {
  if (calendar.name !== 'us-equities') return DAY_MS / barMs;
  let slots = 0;
  const sessions = new Set<number>();
  for (let t = from; t < from + 28 * DAY_MS; t += barMs) {
    if (calendar.isOpen(t)) {
      slots++;
      sessions.add(calendar.sessionOf(t, barMs));
    }
  }
  return sessions.size === 0 ? 1 : slots / sessions.size;
}

/** The intraday U-shaped volume multiplier of each bar (mean 1 over a day or session). */
function volumeShape(calendar: Calendar, timestamps: Float64Array, barMs: number): Float64Array {
  const n = timestamps.length;
  const shape = new Float64Array(n).fill(1);
  if (barMs >= DAY_MS) return shape;
  const norm = 1 + U_DEPTH / 3;
  const sessionOpen = 9.5 * HOUR;
  const sessionLength = 6.5 * HOUR;
  let offsetHour = Number.NaN;
  let offset = 0;
  for (let t = 0; t < n; t++) {
    const mid = (timestamps[t] ?? 0) + barMs / 2;
    let phase: number;
    if (calendar.name === '24/7') {
      phase = mod(mid, DAY_MS) / DAY_MS;
    } else {
      const hour = Math.floor(mid / HOUR);
      if (hour !== offsetHour) {
        offsetHour = hour;
        offset = newYorkOffsetMs(hour * HOUR); // DST switches on the hour
      }
      const local = mod(mid + offset, DAY_MS);
      phase =
        calendar.name === 'fx'
          ? mod(local - 17 * HOUR, DAY_MS) / DAY_MS
          : Math.min(1, Math.max(0, (local - sessionOpen) / sessionLength));
    }
    const d = 2 * phase - 1;
    shape[t] = (1 + U_DEPTH * d * d) / norm;
  }
  return shape;
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

/** Long-run share of bars in each regime: the jump chain's stationary law weighted by durations. */
function stationaryShare(regimes: readonly RegimeSpec[]): number[] {
  const n = regimes.length;
  if (n === 1) return [1];
  const jump = regimes.map((r, j) => {
    const weights = r.exits.map((p, k) => (k === j ? 0 : p));
    const total = weights.reduce((a, b) => a + b, 0);
    return weights.map((p) => p / total);
  });
  // Power iteration on the lazy chain (½I + ½P) converges even for periodic jump chains.
  let psi = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 10_000; iter++) {
    const next = psi.map((p) => 0.5 * p);
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++)
        next[k] = (next[k] ?? 0) + 0.5 * (psi[j] ?? 0) * (jump[j]?.[k] ?? 0);
    }
    const change = next.reduce((acc, p, k) => acc + Math.abs(p - (psi[k] ?? 0)), 0);
    psi = next;
    if (change < 1e-15) break;
  }
  const weighted = psi.map((p, j) => p * (regimes[j]?.meanDays ?? 1));
  const total = weighted.reduce((a, b) => a + b, 0);
  return weighted.map((p) => p / total);
}

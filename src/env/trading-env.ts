import type { Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';
import {
  resolveEnvOptions,
  type ResolvedEnvOptions,
  type TradingEnvOptions,
} from './env-config.js';

/*
 * A vectorized multi-asset portfolio env (FinRL_Crypto-style, with its bugs fixed), stepped as
 * gymnasium's VectorEnv with NEXT_STEP autoreset.
 *
 * Timing: the observation at bar t holds cash, holdings valued at close_t and the features of bars
 * t, t−1, …, t−lookback+1. The action chosen from it fills at bar t+1 (its close, or its open),
 * sells first then buys in asset order limited by cash; the portfolio is then marked at close_{t+1}
 * and the reward is the change of value over the step. An episode at range [start, end) starts at
 * some bar s ≥ start, trades at bars s+1 … and is truncated when it reaches bar end − 1 (or its
 * length): it never fills or marks at a bar outside its range.
 *
 * State is struct-of-arrays over envs; `step` writes into arrays allocated once and returns the
 * same result object every time.
 */

/** Per-env figures after a reset or step, one entry per env (holdings: nEnvs × assets). */
export interface EnvInfo {
  /** Portfolio value: cash + Σ holdings × close at the current bar. */
  value: Float64Array;
  cash: Float64Array;
  /** Units held, nEnvs × assets. */
  holdings: Float64Array;
  /** Fees paid since the episode started. */
  feesPaid: Float64Array;
  /** Notional traded in the last step (buys and sells, at fill prices). */
  turnover: Float64Array;
  /** Equal-weight buy-and-hold of initialCash, bought without fees at the episode's first fill. */
  benchmarkValue: Float64Array;
  /** The current bar index (into the market data). */
  bar: Int32Array;
  /** Steps taken in the current episode. */
  episodeStep: Int32Array;
}

/** What {@link VectorTradingEnv.reset} returns (the same object every call). */
export interface EnvResetResult {
  /**
   * nEnvs × obsDim, row-major; a view into a larger buffer (it shares one with the features), so
   * use it as a Float32Array, not through `obs.buffer`.
   */
  obs: Float32Array;
  info: EnvInfo;
}

/** What {@link VectorTradingEnv.step} returns (the same object, and arrays, every call). */
export interface EnvStepResult {
  obs: Float32Array;
  rewards: Float32Array;
  /** 1 where the episode ended by running out of money. */
  terminations: Uint8Array;
  /** 1 where the episode reached its range's end or its length. */
  truncations: Uint8Array;
  /** 1 where this step was an autoreset (action ignored, reward 0): mask it out of training. */
  resetMask: Uint8Array;
  info: EnvInfo;
}

/** Where each part sits in one env's observation row. */
export interface ObservationLayout {
  /** Offset of the scaled cash (1 value). */
  cash: number;
  /** Offset of the scaled holding values (assets values). */
  holdings: number;
  /** Offset of the features: lookback blocks of assets × F, bar t first, then t−1, … */
  features: number;
  /** Offset of the position weights (assets values), or −1. */
  weights: number;
  /** Offset of the time-in-episode value, or −1. */
  time: number;
}

/** Options of {@link VectorTradingEnv.reset}. */
export interface EnvResetOptions {
  /** One seed (env i gets seed + i, as gymnasium does) or one per env. Default the options' seed. */
  seed?: number | readonly number[];
}

/**
 * What a copy of the env on another device needs besides its options: the price and feature
 * tables as this env reads them, and its episode-start tables (see {@link VectorTradingEnv.tables}).
 */
export interface TradingEnvTables {
  /** Close prices, bars × assets. */
  close: Float64Array;
  /** Fill prices (opens or closes), bars × assets. */
  fill: Float64Array;
  /** Normalized features, bars × assets × F; NaN on bars no observation may read. */
  features: Float32Array;
  /** Units per unit of action, per asset ('units' scaling). */
  unitScale: Float64Array;
  /** Per range: possible episode starts in the ranges before it. */
  startsBefore: Float64Array;
  /** Per range: its last possible start. */
  lastStart: Int32Array;
  /** Possible episode starts over all ranges. */
  totalStarts: number;
}

/** A vectorized trading env over one {@link MarketData}; see the file header for the timing. */
export class VectorTradingEnv {
  /** Environments stepped together. */
  readonly nEnvs: number;
  /** Assets per env. */
  readonly assets: number;
  /** Values per env observation. */
  readonly obsDim: number;
  /** Where each part of an observation row sits. */
  readonly layout: ObservationLayout;
  /** The resolved options. */
  readonly options: Readonly<ResolvedEnvOptions>;

  private readonly close: Float64Array;
  private readonly fill: Float64Array;
  /** T × assets × F normalized features; NaN on bars no observation may read. */
  private readonly features: Float32Array;
  /** Features then observations in one buffer, so a step copies feature rows with `copyWithin`. */
  private readonly store: Float32Array;
  /** Where `obs` starts in `store`. */
  private readonly obsOffset: number;
  private readonly rowWidth: number;
  /** Units per unit of action, per asset ('units' scaling). */
  private readonly unitScale: Float64Array;
  /** Possible episode starts before each range, for the seeded draw. */
  private readonly startsBefore: Float64Array;
  private readonly totalStarts: number;
  private readonly lastStart: Int32Array;

  private readonly obs: Float32Array;
  private readonly info: EnvInfo;
  private readonly result: EnvStepResult;
  private readonly resetResult: EnvResetResult;
  private readonly peak: Float64Array;
  private readonly benchUnits: Float64Array;
  private readonly startBar: Int32Array;
  private readonly lastBar: Int32Array;
  private readonly cursor: Int32Array;
  private readonly needsReset: Uint8Array;
  /** Scratch: the assets a step buys, in order. */
  private readonly buyList: Int32Array;
  /** With target scaling: each asset's order of the step being taken, as an action. */
  private readonly orders: Float32Array;
  private rngs: Rng[];

  /**
   * An env over `data`; `normalizer` (fitted by the caller on training bars only) is applied to the
   * features once, here, and only to the bars observations may read. Without one, raw features.
   */
  constructor(
    data: MarketData,
    normalizer: Normalizer | undefined,
    options: TradingEnvOptions = {},
  ) {
    const assets = data.symbols.length;
    const width = data.featureNames.length;
    const bars = data.timestamps.length;
    if (assets < 1 || data.priceArray.length !== bars * assets)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `env: priceArray has ${data.priceArray.length} values, expected ${bars} bars × ${assets} assets`,
        { hint: 'build the env from loadMarketData’s result as is' },
      );
    if (data.techArray.length !== bars * assets * width)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `env: techArray has ${data.techArray.length} values, expected ${bars} × ${assets} × ${width}`,
        { hint: 'build the env from loadMarketData’s result as is' },
      );
    const o = resolveEnvOptions(options, bars, data.open !== undefined);
    this.options = o;
    this.nEnvs = o.nEnvs;
    this.assets = assets;
    this.rowWidth = assets * width;
    this.close = data.priceArray;
    this.fill =
      o.executionPrice === 'open' && data.open !== undefined ? data.open : data.priceArray;
    if (normalizer !== undefined) normalizer.checkFeatureNames(data.featureNames);
    checkPrices(this.close, this.fill, o, assets);

    const lookbackWidth = o.lookback * this.rowWidth;
    const weights = o.includePositionWeights ? 1 + assets + lookbackWidth : -1;
    const time = o.includeTimeFeature
      ? 1 + assets + lookbackWidth + (o.includePositionWeights ? assets : 0)
      : -1;
    this.layout = { cash: 0, holdings: 1, features: 1 + assets, weights, time };
    this.obsDim =
      1 +
      assets +
      lookbackWidth +
      (o.includePositionWeights ? assets : 0) +
      (o.includeTimeFeature ? 1 : 0);

    const first = o.ranges[0]?.[0] ?? 0;
    this.unitScale = new Float64Array(assets);
    for (let a = 0; a < assets; a++)
      this.unitScale[a] =
        (o.maxTradeFraction * o.initialCash) / (assets * (this.close[first * assets + a] ?? 1));
    this.startsBefore = new Float64Array(o.ranges.length);
    this.lastStart = new Int32Array(o.ranges.length);
    let total = 0;
    o.ranges.forEach(([start, end], r) => {
      const last = o.episodeLength > 0 ? Math.max(start, end - 1 - o.episodeLength) : end - 2;
      this.startsBefore[r] = total;
      this.lastStart[r] = last;
      total += last - start + 1;
    });
    this.totalStarts = total;

    const n = o.nEnvs;
    this.obsOffset = data.techArray.length;
    this.store = windowedFeatures(data.techArray, normalizer, o, this.rowWidth, n * this.obsDim);
    this.features = this.store.subarray(0, this.obsOffset);
    this.obs = this.store.subarray(this.obsOffset);
    this.info = {
      value: new Float64Array(n),
      cash: new Float64Array(n),
      holdings: new Float64Array(n * assets),
      feesPaid: new Float64Array(n),
      turnover: new Float64Array(n),
      benchmarkValue: new Float64Array(n),
      bar: new Int32Array(n),
      episodeStep: new Int32Array(n),
    };
    this.result = {
      obs: this.obs,
      rewards: new Float32Array(n),
      terminations: new Uint8Array(n),
      truncations: new Uint8Array(n),
      resetMask: new Uint8Array(n),
      info: this.info,
    };
    this.resetResult = { obs: this.obs, info: this.info };
    this.peak = new Float64Array(n);
    this.benchUnits = new Float64Array(n * assets);
    this.startBar = new Int32Array(n);
    this.lastBar = new Int32Array(n);
    this.cursor = new Int32Array(n);
    this.needsReset = new Uint8Array(n);
    this.buyList = new Int32Array(assets);
    this.orders = new Float32Array(assets);
    this.rngs = [];
    this.reset();
  }

  /** The tables this env steps on (views, not copies: read them, do not change them). */
  tables(): TradingEnvTables {
    return {
      close: this.close,
      fill: this.fill,
      features: this.features,
      unitScale: this.unitScale,
      startsBefore: this.startsBefore,
      lastStart: this.lastStart,
      totalStarts: this.totalStarts,
    };
  }

  /** Starts a new episode in every env (seeded), clearing every flag and accumulator. */
  reset(options: EnvResetOptions = {}): EnvResetResult {
    const seed = options.seed ?? this.options.seed;
    if (typeof seed !== 'number' && seed.length !== this.nEnvs)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `env: ${seed.length} seeds for ${this.nEnvs} envs`,
        { hint: 'pass one seed (env i gets seed + i) or one per env' },
      );
    this.rngs = Array.from(
      { length: this.nEnvs },
      (_, i) => new Rng(typeof seed === 'number' ? seed + i : (seed[i] ?? 0)),
    );
    const { rewards, terminations, truncations, resetMask } = this.result;
    for (let i = 0; i < this.nEnvs; i++) {
      this.cursor[i] = i;
      this.needsReset[i] = 0;
      rewards[i] = 0;
      terminations[i] = 0;
      truncations[i] = 0;
      resetMask[i] = 0;
      this.resetEnv(i);
      this.writeObs(i);
    }
    return this.resetResult;
  }

  /**
   * Steps every env with `actions` (nEnvs × assets, each in [−1, 1]; values outside are clipped,
   * NaN counts as 0). An env whose episode ended in the previous step is reset instead.
   */
  step(actions: Float32Array): EnvStepResult {
    const A = this.assets;
    if (actions.length !== this.nEnvs * A)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `env: ${actions.length} actions, expected ${this.nEnvs} envs × ${A} assets`,
        { hint: 'pass one Float32Array of nEnvs × assets actions' },
      );
    const o = this.options;
    const close = this.close;
    const fill = this.fill;
    const unitScale = this.unitScale;
    const { cash, holdings, value, feesPaid, turnover, benchmarkValue, bar, episodeStep } =
      this.info;
    const { rewards, terminations, truncations, resetMask } = this.result;
    const peak = this.peak;
    const benchUnits = this.benchUnits;
    const lastBar = this.lastBar;
    const needsReset = this.needsReset;
    // Target scaling's orders are made as fraction scaling's actions (see targetOrders).
    const byFraction = o.actionScaling !== 'units';
    const byTarget = o.actionScaling === 'target';
    const maxFraction = o.maxTradeFraction;
    const perAsset = maxFraction / A;
    const band = o.noTradeBand;
    // With fraction scaling the band is a minimum order: |a| × maxTradeFraction of the portfolio.
    const orderBand = o.actionScaling === 'fraction' ? band / maxFraction : 0;
    const orders = this.orders;
    const buyFee = o.buyFeeBps * 1e-4;
    const sellFee = o.sellFeeBps * 1e-4;
    const slip = o.slippageBps * 1e-4;
    const minOrder = o.minOrderValue;
    const excess = o.reward === 'excess';
    const floor = o.terminationThreshold * o.initialCash;
    const obs = this.obs;
    const obsDim = this.obsDim;
    const store = this.store;
    const obsOffset = this.obsOffset;
    const width = this.rowWidth;
    const lookback = o.lookback;
    const cashScale = o.cashScale;
    const holdingsScale = o.holdingsScale;
    const startBar = this.startBar;
    const buyList = this.buyList;
    const drawdownPenalty = o.drawdownPenalty;
    const turnoverPenalty = o.turnoverPenalty;
    const rewardScale = o.rewardScale;
    const withWeights = o.includePositionWeights;
    const withTime = o.includeTimeFeature;

    for (let i = 0; i < this.nEnvs; i++) {
      if (needsReset[i] === 1) {
        needsReset[i] = 0;
        this.resetEnv(i);
        this.writeObs(i);
        rewards[i] = 0;
        terminations[i] = 0;
        truncations[i] = 0;
        resetMask[i] = 1;
        continue;
      }
      resetMask[i] = 0;
      const t1 = (bar[i] as number) + 1;
      const h0 = i * A;
      const p0 = t1 * A;
      const before = value[i] as number;
      let money = cash[i] as number;
      let traded = 0;
      let fees = 0;
      // With target scaling the targets become orders first, as the fraction scaling's actions:
      // a share of the budget, signed, so the trading below is one code path.
      let acts = actions;
      let q0 = h0;
      if (byTarget) {
        targetOrders(
          actions,
          h0,
          holdings,
          fill,
          p0,
          money,
          maxFraction * before,
          perAsset,
          band,
          orders,
        );
        acts = orders;
        q0 = 0;
      }
      // Sells first, so their proceeds can pay for this step's buys; the buys are listed on the
      // way, so each action's sign is tested once (random signs defeat the branch predictor).
      const budget = maxFraction * before;
      let nBuys = 0;
      for (let a = 0; a < A; a++) {
        const act = acts[q0 + a] as number;
        if (act > 0) {
          if (act > orderBand) buyList[nBuys++] = a;
          continue;
        }
        if (!(act < 0)) continue; // 0 or NaN: no order
        const held = holdings[h0 + a] as number;
        const price = fill[p0 + a] as number;
        const size = act < -1 ? 1 : -act;
        if (size <= orderBand) continue;
        const wanted = byFraction ? (size * budget) / price : size * (unitScale[a] as number);
        const units = wanted < held ? wanted : held;
        const notional = units * price * (1 - slip);
        if (notional < minOrder || notional <= 0) continue;
        const fee = notional * sellFee;
        money += notional - fee;
        holdings[h0 + a] = held - units; // exactly 0 when all of it is sold
        traded += notional;
        fees += fee;
      }
      for (let b = 0; b < nBuys && money > 0; b++) {
        const a = buyList[b] as number;
        const act = acts[q0 + a] as number;
        const price = fill[p0 + a] as number;
        const size = act > 1 ? 1 : act;
        const paid = price * (1 + slip);
        let units = byFraction ? (size * budget) / price : size * (unitScale[a] as number);
        const perUnit = paid * (1 + buyFee);
        if (units * perUnit > money) units = money / perUnit;
        const notional = units * paid;
        if (notional < minOrder || notional <= 0) continue;
        const fee = notional * buyFee;
        const left = money - notional - fee;
        money = left > 0 ? left : 0;
        holdings[h0 + a] = (holdings[h0 + a] as number) + units;
        traded += notional;
        fees += fee;
      }
      // Mark at close_{t+1}, writing the observation's holding values on the way.
      const k0 = i * obsDim;
      let after = money;
      let bench = 0;
      for (let a = 0; a < A; a++) {
        const price = close[p0 + a] as number;
        const held = (holdings[h0 + a] as number) * price;
        obs[k0 + 1 + a] = held * holdingsScale;
        after += held;
        bench += (benchUnits[h0 + a] as number) * price;
      }
      const top = peak[i] as number;
      const newTop = after > top ? after : top;
      const drawdownRise = newTop - after - (top - before);
      let reward = after - before;
      if (excess) reward -= bench - (benchmarkValue[i] as number);
      if (drawdownRise > 0) reward -= drawdownPenalty * drawdownRise;
      reward -= turnoverPenalty * traded;
      rewards[i] = reward * rewardScale;
      cash[i] = money;
      value[i] = after;
      peak[i] = newTop;
      benchmarkValue[i] = bench;
      feesPaid[i] = (feesPaid[i] as number) + fees;
      turnover[i] = traded;
      bar[i] = t1;
      episodeStep[i] = (episodeStep[i] as number) + 1;
      const terminated = after < floor ? 1 : 0;
      const truncated = t1 >= (lastBar[i] as number) ? 1 : 0;
      terminations[i] = terminated;
      truncations[i] = truncated;
      if (terminated === 1 || truncated === 1) needsReset[i] = 1;
      obs[k0] = money * cashScale;
      let k = k0 + 1 + A;
      for (let lag = 0; lag < lookback; lag++, k += width) {
        const from = (t1 - lag) * width;
        store.copyWithin(obsOffset + k, from, from + width);
      }
      if (withWeights)
        for (let a = 0; a < A; a++)
          obs[k++] = ((holdings[h0 + a] as number) * (close[p0 + a] as number)) / after;
      if (withTime) {
        const start = startBar[i] as number;
        obs[k] = (t1 - start) / ((lastBar[i] as number) - start);
      }
    }
    return this.result;
  }

  /** New episode for env i: range and start bar, initial cash, no holdings, cleared accumulators. */
  private resetEnv(i: number): void {
    const o = this.options;
    const A = this.assets;
    let r = 0;
    let start: number;
    if (o.randomStart) {
      const draw = Math.floor((this.rngs[i] as Rng).uniform() * this.totalStarts);
      while (r + 1 < o.ranges.length && draw >= (this.startsBefore[r + 1] as number)) r++;
      start =
        (o.ranges[r] as readonly [number, number])[0] + draw - (this.startsBefore[r] as number);
    } else {
      r = (this.cursor[i] as number) % o.ranges.length;
      this.cursor[i] = (this.cursor[i] as number) + 1;
      start = (o.ranges[r] as readonly [number, number])[0];
    }
    const end = (o.ranges[r] as readonly [number, number])[1];
    const last = o.episodeLength > 0 ? Math.min(end - 1, start + o.episodeLength) : end - 1;
    const { cash, holdings, value, feesPaid, turnover, benchmarkValue, bar, episodeStep } =
      this.info;
    cash[i] = o.initialCash;
    value[i] = o.initialCash;
    this.peak[i] = o.initialCash;
    feesPaid[i] = 0;
    turnover[i] = 0;
    benchmarkValue[i] = o.initialCash;
    bar[i] = start;
    episodeStep[i] = 0;
    this.startBar[i] = start;
    this.lastBar[i] = last;
    const p1 = (start + 1) * A;
    const share = o.initialCash / A;
    for (let a = 0; a < A; a++) {
      holdings[i * A + a] = 0;
      this.benchUnits[i * A + a] = share / (this.fill[p1 + a] as number);
    }
  }

  /** Writes env i's observation at its current bar (`step` writes the same values inline). */
  private writeObs(i: number): void {
    const o = this.options;
    const A = this.assets;
    const obs = this.obs;
    const holdings = this.info.holdings;
    const close = this.close;
    const features = this.features;
    const width = this.rowWidth;
    const t = this.info.bar[i] as number;
    const value = this.info.value[i] as number;
    let k = i * this.obsDim;
    obs[k++] = (this.info.cash[i] as number) * o.cashScale;
    const h0 = i * A;
    const p0 = t * A;
    const hs = o.holdingsScale;
    for (let a = 0; a < A; a++)
      obs[k++] = (holdings[h0 + a] as number) * (close[p0 + a] as number) * hs;
    for (let lag = 0; lag < o.lookback; lag++) {
      const from = (t - lag) * width;
      for (let j = 0; j < width; j++) obs[k++] = features[from + j] as number;
    }
    if (o.includePositionWeights)
      for (let a = 0; a < A; a++)
        obs[k++] = ((holdings[h0 + a] as number) * (close[p0 + a] as number)) / value;
    if (o.includeTimeFeature) {
      const start = this.startBar[i] as number;
      obs[k] = (t - start) / ((this.lastBar[i] as number) - start);
    }
  }
}

/**
 * The features observations may read (bars [start − lookback + 1, end) of each range), normalized;
 * NaN elsewhere, so a read outside them would show; followed by `extra` zeros (the observations).
 * Only those bars of `tech` are read.
 */
function windowedFeatures(
  tech: Float32Array,
  normalizer: Normalizer | undefined,
  o: ResolvedEnvOptions,
  width: number,
  extra: number,
): Float32Array {
  const out = new Float32Array(tech.length + extra).fill(Number.NaN, 0, tech.length);
  for (const [start, end] of o.ranges) {
    const from = (start - o.lookback + 1) * width;
    const to = end * width;
    const window = new Float32Array(to - from);
    for (let j = 0; j < window.length; j++) window[j] = tech[from + j] as number;
    if (normalizer !== undefined) normalizer.apply(window, window);
    for (let j = 0; j < window.length; j++) out[from + j] = window[j] as number;
  }
  return out;
}

/** Throws unless every close and fill price in the ranges is finite and > 0. */
function checkPrices(
  close: Float64Array,
  fill: Float64Array,
  o: ResolvedEnvOptions,
  assets: number,
): void {
  for (const [start, end] of o.ranges) {
    for (let k = start * assets; k < end * assets; k++) {
      const c = close[k] as number;
      const f = fill[k] as number;
      if (!(c > 0 && c < Infinity && f > 0 && f < Infinity)) {
        const bar = Math.floor(k / assets);
        throw new TradelabError(
          'DATA_INVALID',
          `env: price ${c > 0 && c < Infinity ? f : c} of asset ${k % assets} at bar ${bar} is not a finite positive number`,
          { hint: 'fix the dataset, or leave that bar out of the ranges', details: { bar } },
        );
      }
    }
  }
}

/**
 * Target scaling's orders, written into `out` as fraction scaling's actions (a share of `budget`,
 * negative to sell): asset a's target is (clip(action) + 1)/2 × `perAsset` of the portfolio's
 * value at the fill prices (so a price move alone is no gap), and a gap beyond `band` of that value
 * is ordered; within the band, or for a NaN action, nothing is. An order above the budget is
 * clipped to it, as every order is.
 */
function targetOrders(
  actions: Float32Array,
  h0: number,
  holdings: Float64Array,
  fill: Float64Array,
  p0: number,
  money: number,
  budget: number,
  perAsset: number,
  band: number,
  out: Float32Array,
): void {
  const A = out.length;
  let atFill = money;
  for (let a = 0; a < A; a++) atFill += (holdings[h0 + a] as number) * (fill[p0 + a] as number);
  const tolerance = band * atFill;
  for (let a = 0; a < A; a++) {
    const act = actions[h0 + a] as number;
    if (!(act === act)) {
      out[a] = 0;
      continue;
    }
    const weight = ((act > 1 ? 1 : act < -1 ? -1 : act) + 1) * 0.5 * perAsset;
    const gap = weight * atFill - (holdings[h0 + a] as number) * (fill[p0 + a] as number);
    out[a] = gap > tolerance || gap < -tolerance ? gap / budget : 0;
  }
}

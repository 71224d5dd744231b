import type { KernelSpec } from '../pipeline-cache.js';

/*
 * The trading env's step on the device, one invocation per env: env/trading-env.ts's semantics
 * (sells first, then buys in asset order limited by cash; fees, slippage, minimum order, the
 * no-trade band; fraction, units and target scaling; value-change or excess reward with drawdown
 * and turnover penalties; termination below the floor, truncation at the range's end or the
 * episode's length; autoreset on the next step with the action ignored) and its observation
 * (scaled cash and holdings, `lookback` rows of features, position weights, time in episode).
 *
 * WGSL has no f64, and the CPU env keeps money in f64. In f32 a portfolio of 1e6 has a resolution
 * of 0.06, so a reward taken as after − before (two sums of ~1e6) would carry errors of that size
 * every step, as large as a small step's reward. The reward is therefore summed from its parts,
 * each small and exact to f32's relative precision: the held units times each asset's price change,
 * each order's cash flow and the value of the units it moved at the close. Value, peak (as the
 * drawdown, itself a small number) and the benchmark advance by those changes. Cash is kept in f32
 * (errors ~1e-7 of it, seen only by the cash constraint and the observation).
 *
 * Episode starts drawn at random come from a counter-based hash of (seed, env, episode), so the
 * same seed gives the same starts on any device, without a generator's state per env; they are
 * not the CPU env's xoshiro streams. In-order starts (evaluation) are the CPU env's exactly.
 */

/** The shape a step kernel is compiled for (constants in the WGSL). */
export interface TradingEnvKernelShape {
  assets: number;
  /** Features per bar: assets × features per asset. */
  rowWidth: number;
  lookback: number;
  obsDim: number;
  scaling: 'fraction' | 'units' | 'target';
  excessReward: boolean;
  positionWeights: boolean;
  timeFeature: boolean;
  randomStart: boolean;
  ranges: number;
}

/** Per-env f32 fields, each a block of nEnvs values in the `floats` buffer. */
export const ENV_FLOATS = {
  cash: 0,
  value: 1,
  drawdown: 2,
  benchmark: 3,
  fees: 4,
  turnover: 5,
  reward: 6,
  /** Then `assets` blocks of holdings, then `assets` blocks of benchmark units. */
  holdings: 7,
} as const;

/** Per-env u32 fields, each a block of nEnvs values in the `words` buffer. */
export const ENV_WORDS = {
  bar: 0,
  episodeStep: 1,
  startBar: 2,
  lastBar: 3,
  cursor: 4,
  needsReset: 5,
  episodes: 6,
  terminated: 7,
  truncated: 8,
  resetMask: 9,
} as const;

/** Blocks of nEnvs values in the floats buffer. */
export const envFloatBlocks = (assets: number): number => ENV_FLOATS.holdings + 2 * assets;
/** Blocks of nEnvs values in the words buffer. */
export const ENV_WORD_BLOCKS = 10;

/** The uniform's layout: 8 u32 then 16 f32 (96 bytes). */
export const ENV_PARAM_WORDS = 24;

/** Threads per workgroup of the step and reset kernels. */
export const ENV_WORKGROUP = 64;

/**
 * The step kernel (or, with `reset`, the kernel that starts every env's first episode, as the CPU
 * env's reset()). Bindings: params (uniform), prices (close [T × assets] then fill), features
 * [T × rowWidth], config (u32: unit scales' bits [assets], then per range [start, end, lastStart,
 * startsBefore]), floats, words, actions [nEnvs × assets], obs [nEnvs × obsDim].
 */
export function tradingEnvKernel(shape: TradingEnvKernelShape, reset: boolean): KernelSpec {
  const A = shape.assets;
  const scaling = { fraction: 0, units: 1, target: 2 }[shape.scaling];
  const code = /* wgsl */ `
const A = ${A}u;
const W = ${shape.rowWidth}u;
const LOOKBACK = ${shape.lookback}u;
const OBS = ${shape.obsDim}u;
const SCALING = ${scaling}u;
const EXCESS = ${shape.excessReward};
const WEIGHTS = ${shape.positionWeights};
const TIME = ${shape.timeFeature};
const RANDOM_START = ${shape.randomStart};
const RANGES = ${shape.ranges}u;
const RESET = ${reset};

struct Params {
  n: u32, bars: u32, totalStarts: u32, seed: u32, episodeLength: u32, pad0: u32, pad1: u32, pad2: u32,
  initialCash: f32, cashScale: f32, holdingsScale: f32, maxFraction: f32,
  band: f32, minOrder: f32, buyFee: f32, sellFee: f32,
  slip: f32, floor: f32, drawdownPenalty: f32, turnoverPenalty: f32,
  rewardScale: f32, pad3: f32, pad4: f32, pad5: f32,
};
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> prices: array<f32>;
@group(0) @binding(2) var<storage, read> features: array<f32>;
@group(0) @binding(3) var<storage, read> config: array<u32>;
@group(0) @binding(4) var<storage, read_write> floats: array<f32>;
@group(0) @binding(5) var<storage, read_write> words: array<u32>;
@group(0) @binding(6) var<storage, read> actions: array<f32>;
@group(0) @binding(7) var<storage, read_write> obs: array<f32>;

fn fl(field: u32, i: u32) -> f32 { return floats[field * p.n + i]; }
fn setFl(field: u32, i: u32, v: f32) { floats[field * p.n + i] = v; }
fn wd(field: u32, i: u32) -> u32 { return words[field * p.n + i]; }
fn setWd(field: u32, i: u32, v: u32) { words[field * p.n + i] = v; }
fn held(i: u32, a: u32) -> f32 { return floats[(${ENV_FLOATS.holdings}u + a) * p.n + i]; }
fn setHeld(i: u32, a: u32, v: f32) { floats[(${ENV_FLOATS.holdings}u + a) * p.n + i] = v; }
fn benchUnits(i: u32, a: u32) -> f32 { return floats[(${ENV_FLOATS.holdings}u + A + a) * p.n + i]; }
fn closeAt(t: u32, a: u32) -> f32 { return prices[t * A + a]; }
fn fillAt(t: u32, a: u32) -> f32 { return prices[(p.bars + t) * A + a]; }
fn unitScale(a: u32) -> f32 { return bitcast<f32>(config[a]); }
fn rangeField(r: u32, k: u32) -> u32 { return config[A + 4u * r + k]; }

fn fmix(x: u32) -> u32 {
  var h = x;
  h = h ^ (h >> 16u);
  h = h * 0x85ebca6bu;
  h = h ^ (h >> 13u);
  h = h * 0xc2b2ae35u;
  return h ^ (h >> 16u);
}

// The high 32 bits of a × b: floor(a / 2³² × b), a draw in [0, b) from a uniform a.
fn mulHigh(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let lo = a0 * b0; let mid1 = a1 * b0; let mid2 = a0 * b1;
  let carry = ((lo >> 16u) + (mid1 & 0xffffu) + (mid2 & 0xffffu)) >> 16u;
  return a1 * b1 + (mid1 >> 16u) + (mid2 >> 16u) + carry;
}

fn startEpisode(i: u32) {
  var r = 0u;
  var start: u32;
  if (RANDOM_START) {
    let episode = wd(${ENV_WORDS.episodes}u, i);
    let u = fmix(fmix(p.seed ^ fmix(i * 0x9e3779b1u + 0x7f4a7c15u)) ^ (episode * 0x85ebca77u));
    let draw = mulHigh(u, p.totalStarts);
    while (r + 1u < RANGES && draw >= rangeField(r + 1u, 3u)) { r = r + 1u; }
    start = rangeField(r, 0u) + draw - rangeField(r, 3u);
  } else {
    let cursor = wd(${ENV_WORDS.cursor}u, i);
    r = cursor % RANGES;
    setWd(${ENV_WORDS.cursor}u, i, cursor + 1u);
    start = rangeField(r, 0u);
  }
  setWd(${ENV_WORDS.episodes}u, i, wd(${ENV_WORDS.episodes}u, i) + 1u);
  let end = rangeField(r, 1u);
  var last = end - 1u;
  if (p.episodeLength > 0u) { last = min(end - 1u, start + p.episodeLength); }
  setFl(${ENV_FLOATS.cash}u, i, p.initialCash);
  setFl(${ENV_FLOATS.value}u, i, p.initialCash);
  setFl(${ENV_FLOATS.drawdown}u, i, 0.0);
  setFl(${ENV_FLOATS.benchmark}u, i, p.initialCash);
  setFl(${ENV_FLOATS.fees}u, i, 0.0);
  setFl(${ENV_FLOATS.turnover}u, i, 0.0);
  setWd(${ENV_WORDS.bar}u, i, start);
  setWd(${ENV_WORDS.episodeStep}u, i, 0u);
  setWd(${ENV_WORDS.startBar}u, i, start);
  setWd(${ENV_WORDS.lastBar}u, i, last);
  let share = p.initialCash / f32(A);
  for (var a = 0u; a < A; a = a + 1u) {
    setHeld(i, a, 0.0);
    floats[(${ENV_FLOATS.holdings}u + A + a) * p.n + i] = share / fillAt(start + 1u, a);
  }
}

fn writeObservation(i: u32) {
  let t = wd(${ENV_WORDS.bar}u, i);
  let value = fl(${ENV_FLOATS.value}u, i);
  var k = i * OBS;
  obs[k] = fl(${ENV_FLOATS.cash}u, i) * p.cashScale;
  k = k + 1u;
  for (var a = 0u; a < A; a = a + 1u) {
    obs[k] = held(i, a) * closeAt(t, a) * p.holdingsScale;
    k = k + 1u;
  }
  for (var lag = 0u; lag < LOOKBACK; lag = lag + 1u) {
    let row = (t - lag) * W;
    for (var j = 0u; j < W; j = j + 1u) { obs[k + j] = features[row + j]; }
    k = k + W;
  }
  if (WEIGHTS) {
    for (var a = 0u; a < A; a = a + 1u) {
      obs[k] = held(i, a) * closeAt(t, a) / value;
      k = k + 1u;
    }
  }
  if (TIME) {
    let start = wd(${ENV_WORDS.startBar}u, i);
    obs[k] = f32(t - start) / f32(wd(${ENV_WORDS.lastBar}u, i) - start);
  }
}

fn setFlags(i: u32, terminated: u32, truncated: u32, resetMask: u32) {
  setWd(${ENV_WORDS.terminated}u, i, terminated);
  setWd(${ENV_WORDS.truncated}u, i, truncated);
  setWd(${ENV_WORDS.resetMask}u, i, resetMask);
}

fn stepEnv(i: u32) {
  if (wd(${ENV_WORDS.needsReset}u, i) == 1u) {
    setWd(${ENV_WORDS.needsReset}u, i, 0u);
    startEpisode(i);
    writeObservation(i);
    setFl(${ENV_FLOATS.reward}u, i, 0.0);
    setFlags(i, 0u, 0u, 1u);
    return;
  }
  let t0 = wd(${ENV_WORDS.bar}u, i);
  let t1 = t0 + 1u;
  let before = fl(${ENV_FLOATS.value}u, i);
  var money = fl(${ENV_FLOATS.cash}u, i);
  let budget = p.maxFraction * before;
  var holding: array<f32, ${A}>;
  var orders: array<f32, ${A}>;
  for (var a = 0u; a < A; a = a + 1u) {
    holding[a] = held(i, a);
    orders[a] = actions[i * A + a];
  }
  // The change of value, summed from its parts (see the file header): first the held units times
  // each price's move from close_t to close_{t+1}.
  var change = 0.0;
  for (var a = 0u; a < A; a = a + 1u) {
    change = change + holding[a] * (closeAt(t1, a) - closeAt(t0, a));
  }
  if (SCALING == 2u) {
    // Target scaling: each target's gap becomes an order, as fraction scaling's actions.
    var atFill = money;
    for (var a = 0u; a < A; a = a + 1u) { atFill = atFill + holding[a] * fillAt(t1, a); }
    let tolerance = p.band * atFill;
    let perAsset = p.maxFraction / f32(A);
    for (var a = 0u; a < A; a = a + 1u) {
      let act = orders[a];
      if (act != act) { orders[a] = 0.0; continue; }
      let weight = (clamp(act, -1.0, 1.0) + 1.0) * 0.5 * perAsset;
      let gap = weight * atFill - holding[a] * fillAt(t1, a);
      orders[a] = select(0.0, gap / budget, gap > tolerance || gap < -tolerance);
    }
  }
  let byFraction = SCALING != 1u;
  var orderBand = 0.0;
  if (SCALING == 0u) { orderBand = p.band / p.maxFraction; }
  var traded = 0.0;
  var fees = 0.0;
  // Sells first, so their proceeds can pay for this step's buys.
  for (var a = 0u; a < A; a = a + 1u) {
    let act = orders[a];
    if (!(act < 0.0)) { continue; }
    let price = fillAt(t1, a);
    let size = min(-act, 1.0);
    if (size <= orderBand) { continue; }
    var wanted = size * unitScale(a);
    if (byFraction) { wanted = size * budget / price; }
    let units = min(wanted, holding[a]);
    let notional = units * price * (1.0 - p.slip);
    if (notional < p.minOrder || notional <= 0.0) { continue; }
    let fee = notional * p.sellFee;
    money = money + notional - fee;
    holding[a] = holding[a] - units;
    traded = traded + notional;
    fees = fees + fee;
    change = change + (notional - fee) - units * closeAt(t1, a);
  }
  for (var a = 0u; a < A; a = a + 1u) {
    let act = orders[a];
    if (!(act > orderBand) || !(money > 0.0)) { continue; }
    let price = fillAt(t1, a);
    let size = min(act, 1.0);
    let paid = price * (1.0 + p.slip);
    var units = size * unitScale(a);
    if (byFraction) { units = size * budget / price; }
    let perUnit = paid * (1.0 + p.buyFee);
    if (units * perUnit > money) { units = money / perUnit; }
    let notional = units * paid;
    if (notional < p.minOrder || notional <= 0.0) { continue; }
    let fee = notional * p.buyFee;
    let spent = min(notional + fee, money);
    money = money - spent;
    holding[a] = holding[a] + units;
    traded = traded + notional;
    fees = fees + fee;
    change = change + units * closeAt(t1, a) - spent;
  }
  // Mark at close_{t+1}.
  let after = before + change;
  var benchChange = 0.0;
  for (var a = 0u; a < A; a = a + 1u) {
    setHeld(i, a, holding[a]);
    benchChange = benchChange + benchUnits(i, a) * (closeAt(t1, a) - closeAt(t0, a));
  }
  if (wd(${ENV_WORDS.episodeStep}u, i) == 0u) {
    // The first step's benchmark change is from the cash it was bought with, not close_t.
    var bench = 0.0;
    for (var a = 0u; a < A; a = a + 1u) { bench = bench + benchUnits(i, a) * closeAt(t1, a); }
    benchChange = bench - p.initialCash;
  }
  let drawdown = fl(${ENV_FLOATS.drawdown}u, i);
  let newDrawdown = max(drawdown - change, 0.0);
  var reward = change;
  if (EXCESS) { reward = reward - benchChange; }
  let rise = newDrawdown - drawdown;
  if (rise > 0.0) { reward = reward - p.drawdownPenalty * rise; }
  reward = reward - p.turnoverPenalty * traded;
  setFl(${ENV_FLOATS.reward}u, i, reward * p.rewardScale);
  setFl(${ENV_FLOATS.cash}u, i, money);
  setFl(${ENV_FLOATS.value}u, i, after);
  setFl(${ENV_FLOATS.drawdown}u, i, newDrawdown);
  setFl(${ENV_FLOATS.benchmark}u, i, fl(${ENV_FLOATS.benchmark}u, i) + benchChange);
  setFl(${ENV_FLOATS.fees}u, i, fl(${ENV_FLOATS.fees}u, i) + fees);
  setFl(${ENV_FLOATS.turnover}u, i, traded);
  setWd(${ENV_WORDS.bar}u, i, t1);
  setWd(${ENV_WORDS.episodeStep}u, i, wd(${ENV_WORDS.episodeStep}u, i) + 1u);
  let terminated = select(0u, 1u, after < p.floor);
  let truncated = select(0u, 1u, t1 >= wd(${ENV_WORDS.lastBar}u, i));
  setFlags(i, terminated, truncated, 0u);
  if (terminated == 1u || truncated == 1u) { setWd(${ENV_WORDS.needsReset}u, i, 1u); }
  writeObservation(i);
}

@compute @workgroup_size(${ENV_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= p.n) { return; }
  if (RESET) {
    setWd(${ENV_WORDS.cursor}u, i, i);
    setWd(${ENV_WORDS.needsReset}u, i, 0u);
    setWd(${ENV_WORDS.episodes}u, i, 0u);
    setFl(${ENV_FLOATS.reward}u, i, 0.0);
    setFlags(i, 0u, 0u, 0u);
    startEpisode(i);
    writeObservation(i);
    return;
  }
  stepEnv(i);
}
`;
  return {
    label: `trading env ${reset ? 'reset' : 'step'} (${A} assets)`,
    code,
    bindings: ['uniform', 'read', 'read', 'read', 'write', 'write', 'read', 'write'],
    perMinibatch: false,
  };
}

import { describe, expect, it } from 'vitest';
import { fitNormalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import { Rng } from '../core/random.js';
import type { TradingEnvOptions } from './env-config.js';
import { scriptedMarket, syntheticMarket } from './synthetic-market.js';
import { VectorTradingEnv, type EnvStepResult } from './trading-env.js';

function randomActions(rng: Rng, out: Float32Array): Float32Array {
  for (let j = 0; j < out.length; j++) out[j] = rng.uniform() * 2 - 1;
  return out;
}

/** Copies of everything a step returns, for comparing runs. */
function snapshot(r: EnvStepResult): Record<string, number[]> {
  return {
    obs: Array.from(r.obs),
    rewards: Array.from(r.rewards),
    terminations: Array.from(r.terminations),
    truncations: Array.from(r.truncations),
    resetMask: Array.from(r.resetMask),
    value: Array.from(r.info.value),
    cash: Array.from(r.info.cash),
    holdings: Array.from(r.info.holdings),
    feesPaid: Array.from(r.info.feesPaid),
    turnover: Array.from(r.info.turnover),
    benchmarkValue: Array.from(r.info.benchmarkValue),
    bar: Array.from(r.info.bar),
  };
}

describe('VectorTradingEnv', () => {
  it('keeps cash + Σ holdings × close equal to the value, cash ≥ 0 and holdings ≥ 0 at every step', () => {
    const data = syntheticMarket({ assets: 4, bars: 400 });
    const A = 4;
    const env = new VectorTradingEnv(data, undefined, {
      nEnvs: 5,
      episodeLength: 60,
      slippageBps: 5,
      minOrderValue: 1000,
      seed: 3,
    });
    const rng = new Rng(11);
    const actions = new Float32Array(5 * A);
    let trades = 0;
    for (let s = 0; s < 600; s++) {
      const r = env.step(randomActions(rng, actions));
      for (let i = 0; i < 5; i++) {
        const t = r.info.bar[i] ?? 0;
        const cash = r.info.cash[i] ?? 0;
        let marked = cash;
        for (let a = 0; a < A; a++) {
          const held = r.info.holdings[i * A + a] ?? 0;
          expect(held).toBeGreaterThanOrEqual(0);
          marked += held * (data.priceArray[t * A + a] ?? 0);
        }
        expect(cash).toBeGreaterThanOrEqual(0);
        const value = r.info.value[i] ?? 0;
        expect(Math.abs(marked - value) / value).toBeLessThan(1e-9);
        if ((r.info.turnover[i] ?? 0) > 0) trades++;
      }
    }
    expect(trades).toBeGreaterThan(100);
  });

  it('charges hand-computed fees on a scripted sequence of trades', () => {
    // Two assets; closes per bar. Close execution: an action at bar t fills at close_{t+1}.
    const data = scriptedMarket([
      [100, 50],
      [100, 50],
      [110, 40],
      [120, 40],
    ]);
    const env = new VectorTradingEnv(data, undefined, {
      initialCash: 10_000,
      buyFeeBps: 10,
      sellFeeBps: 20,
      randomStart: false,
      terminationThreshold: 0,
      rewardScale: 1,
    });
    const act = new Float32Array(2);

    // Step 1 (fills at bar 1: 100, 50), value before 10,000.
    // buy A0: 0.5 × 10,000 / 100 = 50 units, notional 5,000, fee 5 → cash 4,995
    // buy A1: 0.25 × 10,000 / 50 = 50 units, notional 2,500, fee 2.5 → cash 2,492.5
    // value = 2,492.5 + 50 × 100 + 50 × 50 = 9,992.5; fees 7.5; reward −7.5.
    act.set([0.5, 0.25]);
    let r = env.step(act);
    expect(r.info.cash[0]).toBeCloseTo(2492.5, 9);
    expect(Array.from(r.info.holdings)).toEqual([50, 50]);
    expect(r.info.feesPaid[0]).toBeCloseTo(7.5, 9);
    expect(r.info.value[0]).toBeCloseTo(9992.5, 9);
    expect(r.rewards[0]).toBeCloseTo(-7.5, 4);
    expect(r.info.turnover[0]).toBeCloseTo(7500, 9);

    // Step 2 (fills at bar 2: 110, 40), value before 9,992.5. Sells first:
    // sell A0: wants 9,992.5 / 110 = 90.8 units, holds 50 → 50 units, notional 5,500, fee 11
    //   → cash 2,492.5 + 5,489 = 7,981.5
    // buy A1: wants 9,992.5 / 40 = 249.8 units costing 40 × 1.001 each = 10,002.5 > cash, so
    //   units = 7,981.5 / 40.04 = 199.3382, notional = 7,981.5 / 1.001 = 7,973.5265,
    //   fee 7.9735 → cash 0.
    act.set([-1, 1]);
    r = env.step(act);
    const bought = 7981.5 / 40.04;
    expect(r.info.cash[0]).toBe(0);
    expect(r.info.holdings[0]).toBe(0);
    expect(r.info.holdings[1]).toBeCloseTo(50 + bought, 9);
    expect(r.info.feesPaid[0]).toBeCloseTo(7.5 + 11 + (7981.5 / 1.001) * 0.001, 9);
    expect(r.info.value[0]).toBeCloseTo((50 + bought) * 40, 9);
    expect(r.truncations[0]).toBe(0);

    // Step 3 (bar 3 = the range's last bar): nothing traded, truncated.
    act.set([0, 0]);
    r = env.step(act);
    expect(r.info.value[0]).toBeCloseTo((50 + bought) * 40, 9);
    expect(r.truncations[0]).toBe(1);
    expect(r.terminations[0]).toBe(0);
  });

  it("with 'target' scaling holds positions, trades only gaps beyond the band, and keeps NaN's holding", () => {
    const data = scriptedMarket([
      [100, 50],
      [100, 50],
      [100, 50],
      [125, 50],
      [125, 50],
      [125, 50],
    ]);
    const env = new VectorTradingEnv(data, undefined, {
      initialCash: 10_000,
      buyFeeBps: 0,
      sellFeeBps: 0,
      actionScaling: 'target',
      noTradeBand: 0.05,
      randomStart: false,
      terminationThreshold: 0,
    });
    // Step 1 (fills at bar 1): targets (1 + 1)/2 × 1/2 = 50% and (0 + 1)/2 × 1/2 = 25% of 10,000:
    // 50 units of A0 at 100, 50 units of A1 at 50.
    let r = env.step(Float32Array.from([1, 0]));
    expect(Array.from(r.info.holdings)).toEqual([50, 50]);
    expect(r.info.cash[0]).toBeCloseTo(2500, 9);
    // Step 2: the same actions, the same targets: nothing to trade (the point of a position).
    r = env.step(Float32Array.from([1, 0]));
    expect(r.info.turnover[0]).toBe(0);
    // Step 3 (fills at bar 3, A0 at 125): the portfolio is worth 2,500 + 6,250 + 2,500 = 11,250
    // at the fill prices. A0 holds 6,250 of a 50% target of 5,625: a gap of 625, 5.6% > 5%, so
    // 5 units are sold. A1's target falls to (−0.08 + 1)/2 × 1/2 = 23%: 2,587.5 against 2,500
    // held, a 0.8% gap within the band, so A1 is not traded.
    r = env.step(Float32Array.from([1, -0.08]));
    expect(r.info.holdings[0]).toBeCloseTo(45, 9);
    expect(r.info.holdings[1]).toBe(50);
    // Step 4: NaN keeps A1's holding whatever its gap; A0 at −1 sells everything.
    r = env.step(Float32Array.from([-1, Number.NaN]));
    expect(r.info.holdings[0]).toBe(0);
    expect(r.info.holdings[1]).toBe(50);
  });

  it("with 'fraction' scaling and a band places no order of at most the band's share", () => {
    const data = scriptedMarket([
      [100, 50],
      [100, 50],
      [100, 50],
      [100, 50],
    ]);
    const env = new VectorTradingEnv(data, undefined, {
      initialCash: 10_000,
      buyFeeBps: 0,
      sellFeeBps: 0,
      maxTradeFraction: 0.5,
      noTradeBand: 0.05,
      randomStart: false,
      terminationThreshold: 0,
    });
    // Orders are |a| × 0.5 of 10,000: a = 0.09 is 4.5% of the portfolio, within the band, not
    // placed; a = 0.12 is 6%: 600 of A1, 12 units at 50.
    let r = env.step(Float32Array.from([0.09, 0.12]));
    expect(r.info.holdings[0]).toBe(0);
    const bought = r.info.holdings[1] as number;
    expect(bought).toBeCloseTo(12, 6); // 0.12 as float32
    // Sells the same way: −0.08 keeps A1's 12 units, −0.2 (10% of 10,000 = 20 units) sells all 12.
    r = env.step(Float32Array.from([0, -0.08]));
    expect(r.info.holdings[1]).toBe(bought);
    r = env.step(Float32Array.from([0, -0.2]));
    expect(r.info.holdings[1]).toBe(0);
    expect(
      () => new VectorTradingEnv(data, undefined, { actionScaling: 'units', noTradeBand: 0.05 }),
    ).toThrow(/noTradeBand 0.05 is a share of the portfolio, and units scaling orders units/);
  });

  it('skips orders below minOrderValue and applies slippage to the fill price', () => {
    const data = scriptedMarket([
      [100, 100],
      [100, 100],
      [100, 100],
    ]);
    const env = new VectorTradingEnv(data, undefined, {
      initialCash: 10_000,
      buyFeeBps: 0,
      sellFeeBps: 0,
      slippageBps: 100,
      minOrderValue: 500,
      randomStart: false,
    });
    // A0: 0.01 × 10,000 = 100 < 500, skipped. A1: 0.25 × 10,000 / 100 = 25 units at 101 = 2,525.
    const r = env.step(Float32Array.from([0.01, 0.25]));
    expect(Array.from(r.info.holdings)).toEqual([0, 25]);
    expect(r.info.cash[0]).toBeCloseTo(10_000 - 2525, 9);
  });

  it('buy-and-hold of equal weights reproduces the benchmark return minus one round of fees', () => {
    const data = syntheticMarket({ assets: 3, bars: 300, seed: 5 });
    const A = 3;
    const fee = 0.001;
    const start = 10;
    const end = 250;
    const env = new VectorTradingEnv(data, undefined, {
      ranges: [[start, end]],
      randomStart: false,
      buyFeeBps: 10,
      sellFeeBps: 10,
      executionPrice: 'close', // the arithmetic below buys at bar start+1's close
    });
    // Each asset gets 1/(A(1+fee)) of the value: notional plus fee spends exactly all the cash.
    const buy = new Float32Array(A).fill(1 / (A * (1 + fee)));
    const hold = new Float32Array(A);
    let r = env.step(buy);
    let steps = 1;
    while (r.truncations[0] === 0) {
      r = env.step(hold);
      steps++;
    }
    expect(steps).toBe(end - 1 - start);
    // The benchmark independently: equal money in each asset at bar start+1, held to bar end−1.
    let growth = 0;
    for (let a = 0; a < A; a++)
      growth +=
        (data.priceArray[(end - 1) * A + a] ?? 0) / (data.priceArray[(start + 1) * A + a] ?? 1) / A;
    const benchmarkReturn = growth - 1;
    const initial = 1e6;
    expect((r.info.benchmarkValue[0] ?? 0) / initial - 1).toBeCloseTo(benchmarkReturn, 10);
    const agentReturn = (r.info.value[0] ?? 0) / initial - 1;
    // Float32 actions: the buy fraction is 1/(A(1+fee)) to ~1e-8, hence the tolerance.
    expect(agentReturn).toBeCloseTo((1 + benchmarkReturn) / (1 + fee) - 1, 6);
  });

  it('observes bars t, t−1, …, t−lookback+1 (normalized), not the last rows', () => {
    const data = syntheticMarket({ assets: 2, bars: 120, features: 3 });
    const normalizer = fitNormalizer(data.techArray, { assets: 2, features: 3 }, [[0, 60]]);
    const lookback = 4;
    const env = new VectorTradingEnv(data, normalizer, {
      lookback,
      ranges: [[20, 100]],
      randomStart: false,
      includePositionWeights: true,
      includeTimeFeature: true,
    });
    const normalized = normalizer.apply(data.techArray);
    const width = 6;
    expect(env.obsDim).toBe(1 + 2 + lookback * width + 2 + 1);
    const act = new Float32Array(2).fill(0.3);
    for (let s = 0; s < 10; s++) {
      const r = env.step(act);
      const t = r.info.bar[0] ?? 0;
      for (let lag = 0; lag < lookback; lag++)
        for (let j = 0; j < width; j++)
          expect(r.obs[env.layout.features + lag * width + j]).toBe(
            normalized[(t - lag) * width + j],
          );
      expect(r.obs[env.layout.time]).toBeCloseTo((t - 20) / (99 - 20), 6);
      expect(r.obs[env.layout.cash]).toBeCloseTo((r.info.cash[0] ?? 0) / 1e6, 6);
    }
  });

  for (const executionPrice of ['close', 'open'] as const) {
    it(`has no look-ahead: perturbing bars after t changes nothing up to t (${executionPrice} fills)`, () => {
      const base = syntheticMarket({ assets: 3, bars: 200, seed: 9 });
      const normalizer = fitNormalizer(base.techArray, { assets: 3, features: 4 }, [[0, 100]]);
      const rng = new Rng(17);
      const options: TradingEnvOptions = {
        lookback: 3,
        ranges: [[30, 190]],
        randomStart: false,
        executionPrice,
        reward: 'excess',
        drawdownPenalty: 0.1,
        turnoverPenalty: 0.001,
      };
      for (let trial = 0; trial < 8; trial++) {
        const cut = 35 + Math.floor(rng.uniform() * 150);
        const changed: MarketData = {
          ...base,
          priceArray: base.priceArray.slice(),
          open: (base.open ?? new Float64Array()).slice(),
          techArray: base.techArray.slice(),
        };
        for (let k = (cut + 1) * 3; k < changed.priceArray.length; k++) {
          changed.priceArray[k] = (changed.priceArray[k] ?? 0) * (0.5 + rng.uniform());
          if (changed.open !== undefined)
            changed.open[k] = (changed.open[k] ?? 0) * (0.5 + rng.uniform());
        }
        for (let k = (cut + 1) * 12; k < changed.techArray.length; k++)
          changed.techArray[k] = rng.uniform() * 9;
        const a = new VectorTradingEnv(base, normalizer, options);
        const b = new VectorTradingEnv(changed, normalizer, options);
        const actions = new Float32Array(3);
        for (let t = 30; t < cut; t++) {
          randomActions(rng, actions);
          // The action chosen at t fills at t+1 ≤ cut: its fill, reward and next observation must agree.
          expect(snapshot(b.step(actions))).toEqual(snapshot(a.step(actions)));
        }
        expect(a.step(actions).info.bar[0]).toBe(cut + 1);
      }
    });
  }

  it('steps N envs together bit-identically to N single envs with the same seeds', () => {
    const data = syntheticMarket({ assets: 3, bars: 300, seed: 2 });
    const options: TradingEnvOptions = {
      ranges: [
        [10, 120],
        [150, 290],
      ],
      episodeLength: 25,
      slippageBps: 3,
      reward: 'excess',
      terminationThreshold: 0.99,
    };
    const n = 4;
    const together = new VectorTradingEnv(data, undefined, { ...options, nEnvs: n, seed: 7 });
    const singles = Array.from(
      { length: n },
      (_, i) => new VectorTradingEnv(data, undefined, { ...options, seed: 7 + i }),
    );
    const rng = new Rng(23);
    const actions = new Float32Array(n * 3);
    let resets = 0;
    for (let s = 0; s < 300; s++) {
      const all = snapshot(together.step(randomActions(rng, actions)));
      singles.forEach((env, i) => {
        const one = snapshot(env.step(actions.subarray(i * 3, i * 3 + 3)));
        for (const [key, values] of Object.entries(one)) {
          const width = values.length;
          expect(all[key]?.slice(i * width, (i + 1) * width), key).toEqual(values);
        }
      });
      resets += all.resetMask?.reduce((x, y) => x + y, 0) ?? 0;
    }
    expect(resets).toBeGreaterThan(10);
  });

  it('reads no bar outside the ranges and keeps each episode inside one range', () => {
    const base = syntheticMarket({ assets: 2, bars: 220, seed: 4 });
    const ranges = [
      [20, 60],
      [80, 130],
      [150, 200],
    ] as const;
    const lookback = 3;
    const width = 2 * 4;
    const priceBars = new Set<number>();
    const featureBars = new Set<number>();
    const spy = <T extends Float64Array | Float32Array>(
      array: T,
      seen: Set<number>,
      per: number,
    ): T =>
      new Proxy(array, {
        get(target, key) {
          if (typeof key === 'string' && /^\d+$/.test(key)) seen.add(Math.floor(Number(key) / per));
          return Reflect.get(target, key) as unknown;
        },
      });
    const data: MarketData = {
      ...base,
      priceArray: spy(base.priceArray, priceBars, 2),
      open: spy(base.open ?? new Float64Array(), priceBars, 2),
      techArray: spy(base.techArray, featureBars, width),
    };
    const env = new VectorTradingEnv(data, undefined, {
      nEnvs: 6,
      lookback,
      ranges,
      executionPrice: 'open',
      actionScaling: 'units',
    });
    const rangeOf = (bar: number): number => ranges.findIndex(([s, e]) => bar >= s && bar < e);
    const rng = new Rng(5);
    const actions = new Float32Array(12);
    const episodeRange = Array.from(env.step(actions).info.bar, rangeOf);
    for (let s = 0; s < 800; s++) {
      const r = env.step(randomActions(rng, actions));
      for (let i = 0; i < 6; i++) {
        const range = rangeOf(r.info.bar[i] ?? -1);
        expect(range).toBeGreaterThanOrEqual(0);
        if (r.resetMask[i] === 1) episodeRange[i] = range;
        else expect(range).toBe(episodeRange[i]);
      }
      expect(r.obs.some(Number.isNaN)).toBe(false);
    }
    for (const bar of priceBars) expect(rangeOf(bar), `price bar ${bar}`).toBeGreaterThanOrEqual(0);
    for (const bar of featureBars)
      expect(
        ranges.some(([s, e]) => bar >= s - lookback + 1 && bar < e),
        `feature bar ${bar}`,
      ).toBe(true);
    expect(priceBars.size).toBeGreaterThan(100);
  });

  it('starts every episode from the initial cash and zero holdings, with no reward carried over', () => {
    const data = syntheticMarket({ assets: 3, bars: 200 });
    const env = new VectorTradingEnv(data, undefined, { nEnvs: 3, episodeLength: 10 });
    const rng = new Rng(8);
    const actions = new Float32Array(9);
    const zero = new Float32Array(9);
    for (let round = 0; round < 3; round++) {
      for (let s = 0; s < 25; s++) {
        const r = env.step(randomActions(rng, actions));
        for (let i = 0; i < 3; i++) {
          if (r.resetMask[i] !== 1) continue;
          expect(r.rewards[i]).toBe(0);
          expect(r.info.cash[i]).toBe(1e6);
          expect(r.info.value[i]).toBe(1e6);
          expect(r.info.feesPaid[i]).toBe(0);
          expect(Array.from(r.info.holdings.subarray(i * 3, i * 3 + 3))).toEqual([0, 0, 0]);
        }
      }
      const { info } = env.reset({ seed: round });
      expect(Array.from(info.cash)).toEqual([1e6, 1e6, 1e6]);
      expect(Array.from(info.holdings)).toEqual(new Array<number>(9).fill(0));
      expect(Array.from(info.feesPaid)).toEqual([0, 0, 0]);
      expect(Array.from(info.episodeStep)).toEqual([0, 0, 0]);
      // Holding nothing, the first step's reward is exactly 0: nothing carried over.
      const first = env.step(zero);
      expect(Array.from(first.rewards)).toEqual([0, 0, 0]);
      expect(Array.from(first.resetMask)).toEqual([0, 0, 0]);
    }
  });

  it('autoresets in NEXT_STEP mode: final observation first, then a masked reset step', () => {
    const data = syntheticMarket({ assets: 2, bars: 50 });
    const env = new VectorTradingEnv(data, undefined, { ranges: [[0, 5]], randomStart: false });
    const buy = new Float32Array([0.5, 0.5]);
    let r = env.step(buy);
    for (let s = 2; s <= 4; s++) {
      expect(r.truncations[0]).toBe(0);
      r = env.step(buy);
    }
    // Fourth step reached bar 4, the range's last: truncated, with its true final observation.
    expect(r.truncations[0]).toBe(1);
    expect(r.terminations[0]).toBe(0);
    expect(r.info.bar[0]).toBe(4);
    expect(r.obs[env.layout.features]).toBe(data.techArray[4 * 8]);
    const finalHolding = r.obs[env.layout.holdings] ?? 0;
    expect(finalHolding).toBeGreaterThan(0);
    // The next step resets: action ignored, reward 0, flagged.
    r = env.step(buy);
    expect(r.resetMask[0]).toBe(1);
    expect(r.rewards[0]).toBe(0);
    expect(r.truncations[0]).toBe(0);
    expect(r.info.bar[0]).toBe(0);
    expect(Array.from(r.info.holdings)).toEqual([0, 0]);
    expect(r.obs[env.layout.holdings]).toBe(0);
    r = env.step(buy);
    expect(r.resetMask[0]).toBe(0);
    expect(r.info.bar[0]).toBe(1);
  });

  it('terminates when the value falls below the threshold (not a truncation)', () => {
    const data = scriptedMarket([[100], [100], [30], [30], [30]]);
    const env = new VectorTradingEnv(data, undefined, {
      randomStart: false,
      terminationThreshold: 0.5,
    });
    let r = env.step(new Float32Array([1]));
    expect(r.terminations[0]).toBe(0);
    r = env.step(new Float32Array([0]));
    expect(r.terminations[0]).toBe(1);
    expect(r.truncations[0]).toBe(0);
    r = env.step(new Float32Array([1]));
    expect(r.resetMask[0]).toBe(1);
    expect(r.info.value[0]).toBe(1e6);
  });

  it('returns the same result object and arrays from every step (no per-step allocation)', () => {
    const data = syntheticMarket({ assets: 2, bars: 60 });
    const env = new VectorTradingEnv(data, undefined, { nEnvs: 3, episodeLength: 5 });
    const reset = env.reset({ seed: 1 });
    const first = env.step(new Float32Array(6));
    const parts = [
      first.obs,
      first.rewards,
      first.terminations,
      first.truncations,
      first.resetMask,
    ];
    const info = Object.values(first.info) as unknown[];
    expect(first.obs).toBe(reset.obs);
    expect(first.info).toBe(reset.info);
    const rng = new Rng(1);
    const actions = new Float32Array(6);
    for (let s = 0; s < 20; s++) {
      const r = env.step(randomActions(rng, actions));
      expect(r).toBe(first);
      expect([r.obs, r.rewards, r.terminations, r.truncations, r.resetMask]).toEqual(parts);
      [r.obs, r.rewards, r.terminations, r.truncations, r.resetMask].forEach((x, k) => {
        expect(x).toBe(parts[k]);
      });
      (Object.values(r.info) as unknown[]).forEach((x, k) => {
        expect(x).toBe(info[k]);
      });
    }
  });

  it('rejects bad options with a TradelabError that names the value', () => {
    const data = syntheticMarket({ assets: 2, bars: 60 });
    const { open: _open, ...noOpen } = data;
    const cases: [MarketData, TradingEnvOptions, RegExp][] = [
      [
        data,
        {
          ranges: [
            [0, 10],
            [5, 20],
          ],
        },
        /overlap/,
      ],
      [data, { ranges: [[3, 4]] }, /fewer than 2 bars/],
      [data, { lookback: 5, ranges: [[2, 20]] }, /out of bounds/],
      [data, { nEnvs: 0 }, /nEnvs must be a positive integer/],
      [noOpen, { executionPrice: 'open' }, /needs open prices/],
      [data, { maxTradeFraction: 2 }, /above 1/],
      [data, { allowShort: true }, /not implemented/],
    ];
    for (const [market, options, message] of cases)
      expect(() => new VectorTradingEnv(market, undefined, options)).toThrow(message);
    const env = new VectorTradingEnv(data, undefined, {});
    expect(() => env.step(new Float32Array(3))).toThrow(/3 actions, expected 1 envs × 2 assets/);
  });

  it("fills at the next bar's open by default where the data has opens, else at its close", () => {
    const data = syntheticMarket({ assets: 2, bars: 60 });
    const { open: _open, ...noOpen } = data;
    expect(new VectorTradingEnv(data, undefined).options.executionPrice).toBe('open');
    expect(new VectorTradingEnv(noOpen, undefined).options.executionPrice).toBe('close');
    // The default fills where `open` says: the same trade as asking for it.
    const buy = Float32Array.from([0.5, 0.5]);
    const byDefault = new VectorTradingEnv(data, undefined, { randomStart: false }).step(buy);
    const holdings = Array.from(byDefault.info.holdings);
    const asked = new VectorTradingEnv(data, undefined, {
      randomStart: false,
      executionPrice: 'open',
    }).step(buy);
    expect(Array.from(asked.info.holdings)).toEqual(holdings);
    const atClose = new VectorTradingEnv(data, undefined, {
      randomStart: false,
      executionPrice: 'close',
    }).step(buy);
    expect(Array.from(atClose.info.holdings)).not.toEqual(holdings);
  });
});

import { openDatasetStore, type MarketData } from '../data/index.js';
import { buyAndHoldEquity, periodsPerYear, type Finding } from '../eval/index.js';
import type { StudyRecord, StudyStorage, TrialRecord } from '../storage/index.js';
import { decodeOosReturns, DRL_ARTIFACTS, drlSpecOf } from './drl-objective.js';
import { loadStudyData } from './study-data.js';
import type { DrlStudySpec } from './study-spec.js';
import { splitsTurnover, trialVerdict } from './trial-verdict.js';

/** A trial's out-of-sample equity beside equal-weight buy-and-hold on the same bars. */
export interface TrialEquity {
  study: string;
  trial: number;
  /** Bar open times (ms UTC) of the out-of-sample bars, in order. */
  times: number[];
  /** Both start at 1 before the first bar. */
  strategy: number[];
  benchmark: number[];
  /** The verdict on these curves (see trial-verdict.ts), as `study show` gives a holdout's. */
  findings: Finding[];
}

/*
 * The chart the dashboard draws for a trial: its out-of-sample returns (what the objective
 * stored, CPCV's path mean included) chained, and buy-and-hold over the same bars. Test ranges need
 * not touch, so buy-and-hold is computed per run of adjacent bars and chained, as the objective's
 * own benchmark is; it never bridges a gap between two ranges. The verdict on the two curves
 * comes with them, so the page says in words what the chart shows.
 */

/** The market data of studies, loaded once per data spec (a study's data never changes). */
export class MarketCache {
  private readonly loaded = new Map<string, Promise<MarketData>>();

  constructor(private readonly dataDir: string) {}

  /** The market data `spec` was created on. */
  of(spec: DrlStudySpec): Promise<MarketData> {
    const key = JSON.stringify([spec.data.spec, spec.features, spec.data.digest]);
    let market = this.loaded.get(key);
    if (market === undefined) {
      market = loadStudyData(openDatasetStore(this.dataDir), spec);
      market.catch(() => this.loaded.delete(key));
      this.loaded.set(key, market);
    }
    return market;
  }
}

/** Trial `trial`'s equity curves; ARTIFACT_NOT_FOUND when it kept no out-of-sample returns. */
export async function trialEquity(
  storage: StudyStorage,
  markets: MarketCache,
  study: StudyRecord,
  trial: TrialRecord,
): Promise<TrialEquity> {
  const spec = drlSpecOf(study);
  const { bars, returns } = decodeOosReturns(
    await storage.getArtifact(trial.id, DRL_ARTIFACTS.oosReturns),
  );
  const market = await markets.of(spec);
  const assets = market.symbols.length;
  const times: number[] = [];
  const strategy: number[] = [1];
  const benchmark: number[] = [1];
  let i = 0;
  while (i < bars.length) {
    // A run of adjacent bars [first, last]: its buy-and-hold buys at the close before it.
    let j = i;
    while (j + 1 < bars.length && bars[j + 1] === (bars[j] as number) + 1) j++;
    const first = bars[i] as number;
    const last = bars[j] as number;
    const hold = buyAndHoldEquity(market.priceArray, assets, { start: first - 1, end: last + 1 });
    for (let k = i; k <= j; k++) {
      const bar = bars[k] as number;
      times.push(market.timestamps[bar] as number);
      strategy.push((strategy.at(-1) as number) * (1 + (returns[k] as number)));
      const step = (hold[bar - first + 1] as number) / (hold[bar - first] as number);
      benchmark.push((benchmark.at(-1) as number) * step);
    }
    i = j + 1;
  }
  // Element 0 (the 1 before the first bar) has no bar of its own: drop it to keep one time each.
  const curves = {
    bars: Array.from(bars),
    strategy: strategy.slice(1),
    benchmark: benchmark.slice(1),
  };
  const verdict = trialVerdict(
    curves,
    periodsPerYear(market.timeframe, market.calendar),
    splitsTurnover(trial.userAttrs),
  );
  return {
    study: study.name,
    trial: trial.number,
    times,
    strategy: curves.strategy,
    benchmark: curves.benchmark,
    findings: verdict.findings,
  };
}

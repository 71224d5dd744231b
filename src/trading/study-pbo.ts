import { probabilityOfBacktestOverfitting, type PboResult } from '../eval/pbo.js';
import { TradelabError } from '../core/index.js';
import type { StudyRecord, TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { decodeOosReturns, DRL_ARTIFACTS } from './drl-objective.js';

/*
 * PBO of a finished trading study (Bailey et al., CSCV): the complete trials' per-bar
 * out-of-sample returns as the T × N matrix, over the bars every one of them was tested on.
 */

/** The PBO of a study, with the trials and bars it used. */
export interface StudyPbo {
  result: PboResult;
  /** Trial numbers, in the matrix's column order. */
  trials: number[];
  /** Out-of-sample bars used (common to every trial). */
  bars: number;
}

/** Computes the PBO of `study`'s complete trials. */
export async function studyPbo(
  storage: StudyStorage,
  study: StudyRecord,
  options: { blocks?: number } = {},
): Promise<StudyPbo> {
  const complete = (await storage.getTrials(study.id, ['complete'])).sort(
    (a, b) => a.number - b.number,
  );
  const columns: { trial: TrialRecord; bars: Float64Array; returns: Float64Array }[] = [];
  for (const trial of complete) {
    const names = await storage.listArtifacts(trial.id);
    if (!names.includes(DRL_ARTIFACTS.oosReturns)) continue;
    const oos = decodeOosReturns(await storage.getArtifact(trial.id, DRL_ARTIFACTS.oosReturns));
    columns.push({ trial, ...oos });
  }
  if (columns.length < 2)
    throw new TradelabError(
      'NOT_ENOUGH_TRIALS',
      `study "${study.name}" has ${columns.length} complete trial${columns.length === 1 ? '' : 's'} with out-of-sample returns; PBO compares at least 2`,
      { hint: `run more trials: tradelab study run ${study.name} --trials 20` },
    );
  // Bars every trial was tested on (the same set for trials of one study; intersected for safety).
  let common = new Set(columns[0]?.bars ?? []);
  for (const c of columns.slice(1)) {
    const mine = new Set(c.bars);
    common = new Set([...common].filter((b) => mine.has(b)));
  }
  const bars = [...common].sort((a, b) => a - b);
  const matrix = columns.map((c) => {
    const index = new Map<number, number>();
    c.bars.forEach((bar, i) => index.set(bar, i));
    return Float64Array.from(bars, (bar) => c.returns[index.get(bar) as number] as number);
  });
  const blocks = options.blocks ?? Math.min(16, 2 * Math.floor(bars.length / 4));
  return {
    result: probabilityOfBacktestOverfitting(matrix, { blocks }),
    trials: columns.map((c) => c.trial.number),
    bars: bars.length,
  };
}

import { deflatedSharpe, returnMoments, type DeflatedSharpe } from '../eval/deflated-sharpe.js';
import type { StudyRecord, TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { decodeOosReturns, DRL_ARTIFACTS } from './drl-objective.js';

/*
 * The deflated Sharpe ratio of a trading study's selected trial: its out-of-sample returns over
 * the CV splits (the figure the search selected on) against the best that the study's number of
 * trials would reach by luck, given how much their Sharpe ratios spread. Trials count when they
 * completed with out-of-sample returns; pruned and failed ones were tried too, so the figure is
 * generous to the selection where many were pruned, and says how many it counted.
 */

/** The deflated Sharpe of a study's selected trial, with what it was computed from. */
export interface StudyDeflatedSharpe extends DeflatedSharpe {
  /** The selected trial's number. */
  trial: number;
  /** Complete trials whose Sharpe spread was measured (`trials` in the deflation). */
  trialNumbers: number[];
}

/**
 * The DSR of `selected` among `study`'s complete trials; undefined when fewer than 2 of them
 * (the selected one included) kept their out-of-sample returns.
 */
export async function studyDeflatedSharpe(
  storage: StudyStorage,
  study: StudyRecord,
  selected: TrialRecord,
): Promise<StudyDeflatedSharpe | undefined> {
  const complete = (await storage.getTrials(study.id, ['complete'])).sort(
    (a, b) => a.number - b.number,
  );
  const sharpes: number[] = [];
  const numbers: number[] = [];
  let chosen: ReturnType<typeof returnMoments> | undefined;
  for (const trial of complete) {
    const names = await storage.listArtifacts(trial.id);
    if (!names.includes(DRL_ARTIFACTS.oosReturns)) continue;
    const { returns } = decodeOosReturns(
      await storage.getArtifact(trial.id, DRL_ARTIFACTS.oosReturns),
    );
    const moments = returnMoments(returns);
    if (moments.bars < 2) continue;
    sharpes.push(moments.sharpe);
    numbers.push(trial.number);
    if (trial.id === selected.id) chosen = moments;
  }
  if (chosen === undefined || sharpes.length < 2) return undefined;
  const mean = sharpes.reduce((a, b) => a + b, 0) / sharpes.length;
  const variance = sharpes.reduce((a, b) => a + (b - mean) ** 2, 0) / (sharpes.length - 1);
  return {
    ...deflatedSharpe({ ...chosen, trials: sharpes.length, trialSharpeVariance: variance }),
    trial: selected.number,
    trialNumbers: numbers,
  };
}

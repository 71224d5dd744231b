import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backtestModel, disposeModel } from '../agents/backtest.js';
import { loadPpoModel, type LoadedPpoModel } from '../agents/ppo-checkpoint.js';
import type { MarketData } from '../data/load-market-data.js';
import { sha256 } from '../models/index.js';
import type { EnvRange } from '../env/env-config.js';
import { TradelabError } from '../core/index.js';
import { makeOwnedTempDir, removeOwnedTempDir } from '../core/owned-temp-dir.js';
import type { RangeEvaluation } from '../eval/evaluate.js';
import type { TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { studySplits } from './cv-spec.js';
import { DRL_ARTIFACTS } from './drl-objective.js';
import type { DrlStudySpec } from './study-spec.js';

/*
 * A trial's kept model (its best split's) back out of the study storage, and what it does on the
 * final holdout: the one figure model selection never saw.
 */

/** Loads trial `trial`'s model from the storage. Dispose it with `disposeModel`. */
export async function loadTrialModel(
  storage: StudyStorage,
  trial: TrialRecord,
): Promise<LoadedPpoModel> {
  const names = await storage.listArtifacts(trial.id);
  if (!names.includes(DRL_ARTIFACTS.modelJson) || !names.includes(DRL_ARTIFACTS.modelWeights))
    throw new TradelabError(
      'ARTIFACT_NOT_FOUND',
      `trial ${trial.number} kept no model (${trial.state === 'complete' ? 'it was trained before models were kept' : `it ended ${trial.state}`})`,
      { hint: 'pick a complete trial: `tradelab study trials NAME --state complete`' },
    );
  const dir = makeOwnedTempDir('tradelab-model-');
  try {
    for (const name of [DRL_ARTIFACTS.modelJson, DRL_ARTIFACTS.modelWeights])
      writeFileSync(join(dir, name), await storage.getArtifact(trial.id, name));
    // Named as the trial's artifacts: the temp dir they were copied to is gone after this.
    return await loadPpoModel(dir, {
      label: `trial ${trial.number}'s kept model`,
      damagedHint: `the trial's stored model changed after it was saved (a disk or copy error, or an edit): restore the study storage (and its artifact directory) from a backup, or pick another trial`,
    });
  } finally {
    removeOwnedTempDir(dir);
  }
}

/**
 * Checks trial `trial`'s kept model as stored, without loading it: model.json must parse, and
 * weights.bin must have the SHA-256 model.json recorded when both were saved (a model of an older
 * tradelab recorded none and passes). `study export` runs it on every trial it copies, so a
 * damaged model is never copied on as if it were whole.
 * @throws TradelabError MODEL_INVALID naming the study, the trial and the artifact.
 */
export function checkKeptModel(
  study: string,
  trial: number,
  json: Uint8Array,
  weights: Uint8Array,
): void {
  const where = `study "${study}", trial ${trial}`;
  const hint = `the stored model changed after it was saved (a disk or copy error, or an edit): restore the study storage (and its artifact directory) from a backup`;
  let recorded: unknown;
  try {
    recorded = (JSON.parse(Buffer.from(json).toString('utf8')) as { weightsSha256?: unknown })
      .weightsSha256;
  } catch (error) {
    throw new TradelabError(
      'MODEL_INVALID',
      `${where}: artifact ${DRL_ARTIFACTS.modelJson} is not valid JSON (${(error as Error).message})`,
      { hint, cause: error },
    );
  }
  if (typeof recorded !== 'string') return;
  const actual = sha256(weights);
  if (actual !== recorded)
    throw new TradelabError(
      'MODEL_INVALID',
      `${where}: artifact ${DRL_ARTIFACTS.modelWeights} is corrupted: its SHA-256 is ${actual.slice(0, 12)}…, ${DRL_ARTIFACTS.modelJson} recorded ${recorded.slice(0, 12)}… when it was saved`,
      { hint, details: { study, trial, artifact: DRL_ARTIFACTS.modelWeights } },
    );
}

/** The study's holdout range on its data, or undefined when it has none. */
export function holdoutRange(spec: DrlStudySpec): EnvRange | undefined {
  return studySplits(spec.data.bars, spec.cv, spec).holdout;
}

/** Evaluates a trial's model on `range` (default: the study's holdout) beside buy-and-hold. */
export async function evaluateTrialModel(
  storage: StudyStorage,
  spec: DrlStudySpec,
  trial: TrialRecord,
  data: MarketData,
  range: EnvRange | undefined = holdoutRange(spec),
): Promise<RangeEvaluation> {
  if (range === undefined)
    throw new TradelabError('USAGE', 'the study has no holdout', {
      hint: 'pass a range to evaluate on, e.g. --range 2023-01-01..',
    });
  const model = await loadTrialModel(storage, trial);
  try {
    return await backtestModel(model, data, { range });
  } finally {
    disposeModel(model);
  }
}

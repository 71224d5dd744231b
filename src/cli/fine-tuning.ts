import type { ParamValue, StudyStorage } from '../storage/index.js';
import { drlSpecOf, bestTrials, fineTuneSpec, type DrlStudySpec } from '../trading/index.js';

/** For a study with `from`: its narrowed parameters and the source trials to enqueue first. */
export async function fineTuning(
  storage: StudyStorage,
  spec: DrlStudySpec,
): Promise<{ spec?: DrlStudySpec; enqueue?: Record<string, ParamValue>[] }> {
  if (spec.from === null) return {};
  const source = await storage.getStudy(spec.from.study);
  const trials = await storage.getTrials(source.id, ['complete']);
  return fineTuneSpec(
    spec,
    spec.from,
    drlSpecOf(source),
    bestTrials(trials, source.direction, spec.from.top),
  );
}

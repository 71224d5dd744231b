import { TradelabError } from '../../core/index.js';
import type { StudyStorage, TrialRecord } from '../../storage/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { openStorageAt, readStudyStorage } from '../open-study-storage.js';
import { countStates, TRIAL_STATES } from '../../tune/index.js';
import { checkKeptModel, DRL_ARTIFACTS } from '../../trading/index.js';

/** `tradelab study export NAME --to URL`: copies a study with its trials into another storage. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = context.positionals[0] ?? '';
  const to = options.to;
  if (typeof to !== 'string' || to === '')
    throw new TradelabError('USAGE', '--to is required', {
      hint: `e.g. tradelab study export ${name} --to sqlite:./copy.db (or postgres://user:password@host:5432/db)`,
    });
  await readStudyStorage(context, async (source) => {
    const study = await source.getStudy(name);
    const trials = await source.getTrials(study.id);
    const target = await openStorageAt(context, to);
    try {
      if (target.url === source.url)
        throw new TradelabError('INVALID_ARGUMENT', `--to ${to} is the study's own storage`, {
          hint: 'export to another SQLite file or database',
        });
      await refuseTaken(target, name);
      let imported;
      try {
        imported = await target.importStudy(study, trials);
      } catch (error) {
        // Taken meanwhile by another process: same answer as the check above.
        if (error instanceof TradelabError && error.code === 'STUDY_EXISTS')
          throw takenError(target, name, error);
        throw error;
      }
      let artifacts;
      try {
        artifacts = await copyArtifacts(source, target, study.name, trials, imported.id);
      } catch (error) {
        // No half copy: without its artifacts the copy goes, so the export can simply be rerun.
        await target.deleteStudy(name);
        throw error;
      }
      const states = countStates(trials);
      const byState = TRIAL_STATES.filter((s) => states[s] > 0)
        .map((s) => `${states[s]} ${s}`)
        .join(', ');
      if (out.json) {
        out.record({
          type: 'exported',
          study: study.name,
          from: source.url,
          to: target.url,
          trials: trials.length,
          states,
          artifacts,
        });
        return;
      }
      out.line(
        `Exported study "${study.name}" from ${source.url} to ${target.url}: ${plural(trials.length, 'trial')}${byState === '' ? '' : ` (${byState})`}, ${plural(artifacts, 'artifact')}.`,
      );
      if (states.running > 0)
        out.note(
          `note: ${plural(states.running, 'trial')} running when copied stay running in the copy; \`tradelab study fail-stale --storage ${to} --study ${study.name}\` fails and retries them there`,
        );
    } finally {
      await target.close();
    }
  });
}

async function refuseTaken(target: StudyStorage, name: string): Promise<void> {
  try {
    await target.getStudy(name);
  } catch (error) {
    if (error instanceof TradelabError && error.code === 'STUDY_NOT_FOUND') return;
    throw error;
  }
  throw takenError(target, name);
}

function takenError(target: StudyStorage, name: string, cause?: unknown): TradelabError {
  return new TradelabError('STUDY_EXISTS', `${target.url} already has a study named "${name}"`, {
    hint: `nothing was copied; remove that one first (\`tradelab study rm ${name} --storage ${target.url}\`) or export to another storage`,
    details: { study: name, to: target.url },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Copies each trial's artifacts onto its copy (matched by number), a trading trial's kept model
 * checked against the SHA-256 it recorded first; returns how many.
 */
async function copyArtifacts(
  source: StudyStorage,
  target: StudyStorage,
  study: string,
  trials: readonly TrialRecord[],
  studyId: number,
): Promise<number> {
  const copies = new Map((await target.getTrials(studyId)).map((t) => [t.number, t.id]));
  let copied = 0;
  for (const trial of trials) {
    const names = await source.listArtifacts(trial.id);
    const copyId = copies.get(trial.number);
    if (names.length === 0 || copyId === undefined) continue;
    const artifacts = new Map<string, Uint8Array>();
    for (const artifact of names)
      artifacts.set(artifact, await source.getArtifact(trial.id, artifact));
    const json = artifacts.get(DRL_ARTIFACTS.modelJson);
    const weights = artifacts.get(DRL_ARTIFACTS.modelWeights);
    if (json !== undefined && weights !== undefined)
      checkKeptModel(study, trial.number, json, weights);
    for (const [artifact, bytes] of artifacts) {
      await target.putArtifact(copyId, artifact, bytes);
      copied++;
    }
  }
  return copied;
}

import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { withStudyStorage } from '../open-study-storage.js';
import { countStates } from '../../tune/index.js';

/** `tradelab study rm NAME [--force]`: removes a study with its trials and artifacts. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const name = context.positionals[0] ?? '';
  await withStudyStorage(context, async (storage) => {
    const study = await storage.getStudy(name);
    const trials = await storage.getTrials(study.id);
    const { running } = countStates(trials);
    // Workers of a live run would fail on every write: removing a study under them needs --force.
    if (running > 0 && context.options.force !== true)
      throw new TradelabError(
        'STUDY_RUNNING',
        `study "${name}" has ${plural(running, 'running trial')}; not removed`,
        {
          hint: `stop its run first; if nothing runs (a killed process), \`tradelab study fail-stale --study ${name}\` fails them, or pass --force`,
          details: { study: name, running },
        },
      );
    await storage.deleteStudy(name);
    out.record({ type: 'removed', study: name, storage: storage.url, trials: trials.length });
    out.line(`Removed study "${name}" from ${storage.url} with ${plural(trials.length, 'trial')}.`);
  });
}

import { benchCampaign } from '../../bench/index.js';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

const RUNS = ['one', 'auto', 'pruned'] as const;

/** `tradelab bench campaign`: FinRL_Crypto's CPCV study as a tradelab study, trials/hour. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials', 1);
  const prunedTrials = intOption(options, 'pruned-trials', 1);
  const steps = intOption(options, 'steps', 1000);
  const runs =
    typeof options.runs === 'string'
      ? options.runs.split(',').map((r) => {
          if (!(RUNS as readonly string[]).includes(r))
            throw new TradelabError('INVALID_ARGUMENT', `--runs: "${r}" is not a run`, {
              hint: `runs: ${RUNS.join(', ')} (e.g. --runs auto,pruned)`,
            });
          return r as (typeof RUNS)[number];
        })
      : undefined;
  const results = await benchCampaign({
    ...(trials === undefined ? {} : { trials }),
    ...(prunedTrials === undefined ? {} : { prunedTrials }),
    ...(steps === undefined ? {} : { steps }),
    ...(runs === undefined ? {} : { runs }),
    onTrial: (name, trial, done, total) => {
      if (!out.json)
        out.note(
          `${name}: trial ${trial.number} ${trial.state} (${done}/${total})${trial.value === null ? '' : `, value ${trial.value.toFixed(3)}`}`,
        );
    },
  });
  printBench(out, results);
}

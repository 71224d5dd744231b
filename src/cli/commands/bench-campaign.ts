import { benchCampaign } from '../../bench/index.js';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { benchProgress, printBench } from '../print-bench.js';

const RUNS = ['one', 'auto', 'pruned', 'gpu'] as const;
const DEFAULT_RUNS = ['one', 'auto', 'pruned'] as const;

/** `tradelab bench campaign`: FinRL_Crypto's CPCV study as a tradelab study, trials/hour. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials', 1);
  const prunedTrials = intOption(options, 'pruned-trials', 1);
  const steps = intOption(options, 'steps', 1000);
  const gpuTrials = intOption(options, 'gpu-trials', 1);
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
  // Every run's trials, as benchCampaign sizes them: the progress line counts them all.
  let total = 0;
  for (const run of runs ?? DEFAULT_RUNS)
    total +=
      run === 'pruned'
        ? (prunedTrials ?? 14)
        : run === 'gpu'
          ? (gpuTrials ?? 16)
          : (trials ?? (run === 'one' ? 4 : 6));
  const progress = benchProgress(total, 'trials', out);
  let ended = 0;
  const results = await benchCampaign({
    ...(trials === undefined ? {} : { trials }),
    ...(prunedTrials === undefined ? {} : { prunedTrials }),
    ...(steps === undefined ? {} : { steps }),
    ...(runs === undefined ? {} : { runs }),
    ...(gpuTrials === undefined ? {} : { gpuTrials }),
    profile: context.project().config.settings.profile,
    onTrial: (name, trial, done, of) => {
      progress.update(++ended, `run ${name}: trial ${trial.number} ${trial.state} (${done}/${of})`);
    },
  });
  progress.done();
  printBench(out, results);
}

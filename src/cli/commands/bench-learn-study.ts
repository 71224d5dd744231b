import { benchLearnStudy } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';
import { createProgress } from '../progress.js';
import { projectPath } from '../project-path.js';

/** `tradelab bench learn-study`: a small trading study on a planted signal, trials/hour and holdout. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials', 2);
  const workers = intOption(options, 'workers', 1);
  const steps = intOption(options, 'steps', 2048);
  const marketSeed = intOption(options, 'seed', 0);
  const dir = typeof options.dir === 'string' ? projectPath(context, options.dir) : undefined;
  const progress = out.json ? undefined : createProgress({ total: trials ?? 12, unit: 'trials' });
  const result = await benchLearnStudy({
    ...(trials === undefined ? {} : { trials }),
    ...(workers === undefined ? {} : { workers }),
    ...(steps === undefined ? {} : { steps }),
    ...(marketSeed === undefined ? {} : { marketSeed }),
    ...(dir === undefined ? {} : { dir }),
    onTrial: (trial, done) => {
      progress?.update(done, `trial ${trial.number} ${trial.state}`);
    },
  });
  progress?.done();
  printBench(out, result.results);
  if (dir !== undefined && !out.json)
    out.line(
      `The study is kept: tradelab study show learn-study --storage ${result.storageUrl} --data-dir ${dir}/data`,
    );
}

import { join } from 'node:path';
import { benchLearnStudy } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { count, fixed } from '../format.js';
import { benchProgress, printBench } from '../print-bench.js';
import { printVerdict } from '../print-evaluation.js';
import { rangeVerdict } from '../../eval/index.js';
import { projectPath } from '../project-path.js';
import { suggestCommand } from '../suggest-command.js';

/** `tradelab bench learn-study`: a small trading study on a planted signal, trials/hour and holdout. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials', 2);
  const workers = intOption(options, 'workers', 1);
  const steps = intOption(options, 'steps', 2048);
  const marketSeed = intOption(options, 'seed', 0);
  const dir = typeof options.dir === 'string' ? projectPath(context, options.dir) : undefined;
  const progress = benchProgress(trials ?? 12, 'trials', out);
  const result = await benchLearnStudy({
    ...(trials === undefined ? {} : { trials }),
    ...(workers === undefined ? {} : { workers }),
    ...(steps === undefined ? {} : { steps }),
    ...(marketSeed === undefined ? {} : { marketSeed }),
    ...(dir === undefined ? {} : { dir }),
    onTrial: (trial, done) => {
      progress.update(done, `trial ${trial.number} ${trial.state}`);
    },
  });
  progress.done();
  printBench(out, result.results);
  const { best, holdout } = result;
  if (best !== undefined && holdout !== undefined) {
    const sharpe = holdout.metrics.sharpe;
    const buyAndHold = holdout.benchmarkMetrics.sharpe;
    out.record({
      type: 'holdout',
      trial: best.number,
      value: best.value,
      bars: holdout.equity.length - 1,
      sharpe,
      benchmarkSharpe: buyAndHold,
      verdict: rangeVerdict(holdout),
    });
    out.line(
      `Best trial ${best.number} (mean CV Sharpe ${fixed(best.value ?? Number.NaN, 3)}) on the holdout's ${count(holdout.equity.length - 1)} bars: Sharpe ${fixed(sharpe, 2)} against ${fixed(buyAndHold, 2)} for buy-and-hold (${sharpe > buyAndHold ? 'ahead by' : 'behind by'} ${fixed(Math.abs(sharpe - buyAndHold), 2)}).`,
    );
    printVerdict(out, holdout);
  }
  if (dir !== undefined && !out.json)
    out.line(
      `The study is kept: ${suggestCommand(context, ['study', 'show', 'learn-study'], { storage: result.storageUrl, dataDir: join(dir, 'data') })}`,
    );
}

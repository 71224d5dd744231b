import { PBO_MIN_TRIALS, pboCaveats } from '../../eval/index.js';
import { studyPbo } from '../../trading/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, num } from '../format.js';
import { intOption } from '../option-values.js';
import { readStudyStorage } from '../open-study-storage.js';
import { suggestCommand } from '../suggest-command.js';

/** `tradelab study pbo NAME [--blocks S]`: probability of backtest overfitting by CSCV. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const name = context.positionals[0] ?? '';
  const blocks = intOption(options, 'blocks', 2);
  await readStudyStorage(context, async (storage) => {
    const study = await storage.getStudy(name);
    const { result, trials, bars } = await studyPbo(
      storage,
      study,
      blocks === undefined ? {} : { blocks },
    );
    const { degradation } = result;
    const caveats = pboCaveats(result);
    if (out.json) {
      out.record({
        study: study.name,
        pbo: result.pbo,
        probabilityOfLoss: result.probabilityOfLoss,
        trials,
        bars,
        blocks: result.blocks,
        combinations: result.logits.length,
        degradationSlope: degradation.slope,
        degradationIntercept: degradation.intercept,
        reliable: caveats.length === 0,
        caveats,
      });
      return;
    }
    out.line(
      `Study "${study.name}": PBO by CSCV over ${trials.length} complete trials × ${count(bars)} out-of-sample bars (${result.blocks} blocks of ${result.blockBars}, ${count(result.logits.length)} combinations)`,
    );
    out.line(
      `  PBO                  ${num(result.pbo * 100, 3)} %  (share of combinations where the in-sample best trial is at or below the out-of-sample median)`,
    );
    out.line(
      `  probability of loss  ${num(result.probabilityOfLoss * 100, 3)} %  (the in-sample best loses out of sample)`,
    );
    out.line(
      `  degradation          OOS Sharpe ≈ ${degradation.slope === null ? '-' : num(degradation.slope, 3)} × IS Sharpe + ${degradation.intercept === null ? '-' : num(degradation.intercept, 3)}`,
    );
    if (caveats.length > 0) {
      for (const caveat of caveats) out.line(`Unreliable: ${caveat}.`);
      out.line(
        trials.length < PBO_MIN_TRIALS
          ? `Not interpreted; run more trials: ${suggestCommand(context, ['study', 'run', study.name, '--trials', String(PBO_MIN_TRIALS - trials.length)])}`
          : 'Not interpreted; pass --blocks 6 or more, or test on more out-of-sample bars.',
      );
      return;
    }
    out.line(
      result.pbo > 0.5
        ? 'Above 50%: picking the best backtest is worse than picking at random here; distrust the winner.'
        : 'At or below 50%: the in-sample ranking carries some out-of-sample information.',
    );
  });
}

import { describeBarRange } from '../../data/index.js';
import { rangeVerdict } from '../../eval/index.js';
import { runBacktest } from '../../app/index.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { intOption, numberOption } from '../option-values.js';
import { printEvaluation } from '../print-evaluation.js';

/**
 * `tradelab backtest --model runs/NAME [--data SYM[,SYM]:TF] [--range RANGE]`: the saved model's
 * deterministic policy on a range, beside buy-and-hold. By default the data it was trained on and
 * its run's test range. The rules are app/'s runBacktest; this file reads the flags and prints.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const result = await runBacktest(
    context.project(),
    {
      model: typeof options.model === 'string' ? projectPath(context, options.model) : undefined,
      study: typeof options.study === 'string' ? options.study : undefined,
      trial: intOption(options, 'trial', 0),
      data: typeof options.data === 'string' ? options.data : undefined,
      range: typeof options.range === 'string' ? options.range : undefined,
      feeBps: numberOption(options, 'fee-bps', 0, 1000, '10'),
      out: typeof options.out === 'string' ? projectPath(context, options.out) : undefined,
    },
    {
      onWarning: (message) => {
        out.note(`warning: ${message}`);
      },
    },
  );
  const { evaluation, range, market } = result;
  if (out.json) {
    out.record({
      type: 'backtest',
      model: result.label,
      data: result.data,
      range,
      metrics: evaluation.metrics,
      benchmarkMetrics: evaluation.benchmarkMetrics,
      fees: evaluation.fees,
      initialCash: evaluation.equity[0] ?? null,
      ended: evaluation.ended,
      verdict: rangeVerdict(evaluation, result.verdict),
      inSample: result.inSample,
      files: result.files,
    });
    return;
  }
  const origin =
    result.rangeOrigin === 'holdout'
      ? " (the study's holdout)"
      : result.rangeOrigin === 'test'
        ? " (the run's test range)"
        : '';
  out.line(result.title);
  out.line(`  range ${describeBarRange(range, market.timestamps)}${origin}`);
  out.line();
  printEvaluation(out, evaluation, 'POLICY', result.verdict);
  for (const file of result.files) out.line(`wrote ${file}`);
}

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  backtestModel,
  checkModelData,
  disposeModel,
  loadModel,
  modelDirectory,
  modelMeta,
} from '../../agents/backtest.js';
import type { RunEnvOptions } from '../../agents/run-manifest.js';
import {
  describeBarRange,
  digestMarketData,
  loadMarketData,
  parseBarRange,
  parseDatasetKeys,
  writeFileAtomic,
  type BarRange,
} from '../../data/index.js';
import { equityCsv, evaluationReportHtml } from '../../eval/index.js';
import { TradelabError } from '../../errors/index.js';
import { tradelabVersion } from '../../project/version.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { numberOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { printEvaluation } from '../print-evaluation.js';
import { startBackend } from '../../project/start-backend.js';

/**
 * `tradelab backtest --model runs/NAME [--data SYM[,SYM]:TF] [--range RANGE]`: the saved model's
 * deterministic policy on a range, beside buy-and-hold. By default the data it was trained on and
 * its run's test range.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const project = context.project();
  if (typeof options.model !== 'string')
    throw new TradelabError('USAGE', 'backtest needs --model DIR', {
      hint: 'e.g. tradelab backtest --model runs/btc-ppo (a `tradelab train ppo --out` directory)',
    });
  const runDir = projectPath(context, options.model);
  const backend = await startBackend(project);
  const model = await loadModel(runDir);
  try {
    const meta = modelMeta(model);
    const spec = typeof options.data === 'string' ? options.data : meta.data?.spec;
    if (spec === undefined)
      throw new TradelabError('USAGE', 'this model does not say what data it was trained on', {
        hint: 'pass --data SYM[,SYM]:TF',
      });
    const data = await loadMarketData(openStore(context), parseDatasetKeys(spec));
    const where = `the model in ${modelDirectory(runDir)}`;
    checkModelData(model, data, where);
    const sameData = meta.data !== undefined && meta.data.sha256 === digestMarketData(data);
    const lookback = meta.env.lookback ?? 1;
    const bars = data.timestamps.length;
    let range: BarRange;
    if (typeof options.range === 'string')
      range = parseBarRange(options.range, data.timestamps, '--range');
    else if (sameData) {
      const trainEnd = (model.meta.train as { bars?: BarRange } | undefined)?.bars?.[1] ?? 0;
      if (bars - trainEnd < 2)
        throw new TradelabError(
          'USAGE',
          'the training range reaches the end of the data: no bars are left to test on',
          {
            hint: 'pass --range with the bars to evaluate',
          },
        );
      range = [trainEnd, bars];
    } else range = [lookback - 1, bars];
    const feeBps = numberOption(options, 'fee-bps', 0, 1000, '10');
    const env: RunEnvOptions =
      feeBps === undefined ? {} : { buyFeeBps: feeBps, sellFeeBps: feeBps };
    const evaluation = await backtestModel(model, data, { range, env });
    const title = `Backtest of ${modelDirectory(runDir)} on ${data.symbols.join(', ')} ${data.timeframe}`;
    let files: string[] = [];
    if (typeof options.out === 'string') {
      const outDir = projectPath(context, options.out);
      mkdirSync(outDir, { recursive: true });
      const csv = join(outDir, 'equity.csv');
      writeFileAtomic(csv, equityCsv(evaluation, data.timestamps));
      const html = join(outDir, 'report.html');
      writeFileAtomic(
        html,
        evaluationReportHtml({
          title,
          evaluation,
          timestamps: data.timestamps,
          facts: [
            { label: 'model', value: modelDirectory(runDir) },
            { label: 'data', value: spec },
            { label: 'range', value: describeBarRange(range, data.timestamps) },
            { label: 'backend', value: `${backend.name} (${backend.matmul})` },
          ],
          footer: `written by tradelab ${tradelabVersion()} at ${new Date().toISOString()}`,
        }),
      );
      files = [csv, html];
    }
    if (out.json) {
      out.record({
        type: 'backtest',
        model: modelDirectory(runDir),
        data: spec,
        range,
        metrics: evaluation.metrics,
        benchmarkMetrics: evaluation.benchmarkMetrics,
        fees: evaluation.fees,
        ended: evaluation.ended,
        files,
      });
      return;
    }
    out.line(title);
    out.line(
      `  range ${describeBarRange(range, data.timestamps)}${sameData && typeof options.range !== 'string' ? " (the run's test range)" : ''}`,
    );
    out.line();
    printEvaluation(out, evaluation);
    for (const file of files) out.line(`wrote ${file}`);
  } finally {
    disposeModel(model);
  }
}

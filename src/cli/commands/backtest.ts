import { writeFileAtomic, TradelabError, makeDirectory } from '../../core/index.js';
import { join } from 'node:path';
import {
  backtestModel,
  checkModelData,
  disposeModel,
  inSampleRanges,
  loadModel,
  modelDirectory,
  modelMeta,
  runVerdictContext,
  trainedRanges,
  type LoadedPpoModel,
  type RunEnvOptions,
  evaluationReportHtml,
  withRecordedEncoder,
} from '../../agents/index.js';
import {
  describeBarRange,
  digestMarketData,
  loadMarketData,
  parseBarRange,
  parseDatasetKeys,
  type BarRange,
} from '../../data/index.js';
import { equityCsv, rangeVerdict, type VerdictContext } from '../../eval/index.js';
import { tradelabVersion, startBackend } from '../../app/index.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { intOption, numberOption } from '../option-values.js';
import { readStudyStorage } from '../open-study-storage.js';
import {
  drlSpecOf,
  holdoutRange,
  loadStudyData,
  loadTrialModel,
  type DrlStudySpec,
} from '../../trading/index.js';
import { openStore } from '../open-store.js';
import { printEvaluation } from '../print-evaluation.js';

/**
 * `tradelab backtest --model runs/NAME [--data SYM[,SYM]:TF] [--range RANGE]`: the saved model's
 * deterministic policy on a range, beside buy-and-hold. By default the data it was trained on and
 * its run's test range.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const project = context.project();
  const backend = await startBackend(project);
  const source = await modelSource(context);
  const { model } = source;
  for (const warning of model.warnings) out.note(`warning: ${warning}`);
  try {
    const meta = modelMeta(model);
    const spec = typeof options.data === 'string' ? options.data : meta.data?.spec;
    if (spec === undefined)
      throw new TradelabError('USAGE', 'this model does not say what data it was trained on', {
        hint: 'pass --data SYM[,SYM]:TF',
      });
    // A trial's study data unless --data says otherwise: checked against the study's digest.
    const market =
      source.study !== undefined && typeof options.data !== 'string'
        ? await loadStudyData(openStore(context), source.study.spec, source.study.name)
        : await loadMarketData(openStore(context), parseDatasetKeys(spec));
    const data = withRecordedEncoder(market, meta.data?.encoder ?? source.encoder);
    checkModelData(model, data, source.where);
    // Runs and studies digest the market, before any encoder's features.
    const sameData = meta.data !== undefined && meta.data.sha256 === digestMarketData(market);
    const lookback = meta.env.lookback ?? 1;
    const bars = data.timestamps.length;
    let range: BarRange;
    if (typeof options.range === 'string')
      range = parseBarRange(options.range, data.timestamps, '--range');
    else if (source.holdout !== undefined && sameData) range = source.holdout;
    else if (source.holdout === undefined && sameData) {
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
    const inSample = inSampleRanges(model.meta, data, range, sameData);
    if (inSample.length > 0) {
      const bars = inSample.reduce((sum, [start, end]) => sum + end - start, 0);
      const trained = trainedRanges(model.meta, data, sameData)
        .map((r) => describeBarRange(r, data.timestamps, data.timeframe))
        .join(', ');
      out.note(
        `warning: the backtest range ${describeBarRange(range, data.timestamps, data.timeframe)} overlaps the bars this model trained on, ${trained}: ${bars} of ${range[1] - range[0]} bars are in-sample, and their figures say nothing of how it does on new data${source.holdout === undefined ? '' : " (the study's holdout is out of sample: leave --range out)"}`,
      );
    }
    const evaluation = await backtestModel(model, data, { range, env });
    const title = `Backtest of ${source.label} on ${data.symbols.join(', ')} ${data.timeframe}`;
    let files: string[] = [];
    if (typeof options.out === 'string') {
      const outDir = projectPath(context, options.out);
      makeDirectory(outDir);
      const csv = join(outDir, 'equity.csv');
      writeFileAtomic(csv, equityCsv(evaluation, data.timestamps));
      const html = join(outDir, 'report.html');
      writeFileAtomic(
        html,
        evaluationReportHtml({
          title,
          evaluation,
          timestamps: data.timestamps,
          inSample,
          ...(source.verdict === undefined ? {} : { verdict: source.verdict }),
          facts: [
            { label: 'model', value: source.label },
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
        model: source.label,
        data: spec,
        range,
        metrics: evaluation.metrics,
        benchmarkMetrics: evaluation.benchmarkMetrics,
        fees: evaluation.fees,
        initialCash: evaluation.equity[0] ?? null,
        ended: evaluation.ended,
        verdict: rangeVerdict(evaluation, source.verdict),
        inSample,
        files,
      });
      return;
    }
    out.line(title);
    out.line(
      `  range ${describeBarRange(range, data.timestamps)}${sameData && typeof options.range !== 'string' ? (source.holdout === undefined ? " (the run's test range)" : " (the study's holdout)") : ''}`,
    );
    out.line();
    printEvaluation(out, evaluation, 'POLICY', source.verdict);
    for (const file of files) out.line(`wrote ${file}`);
  } finally {
    disposeModel(model);
  }
}

/** Where the model comes from: a run directory, or a trial of a trading study. */
interface ModelSource {
  model: LoadedPpoModel;
  /** How the output names it. */
  label: string;
  /** "the model in …", for errors. */
  where: string;
  /** A trial's default range: its study's holdout. */
  holdout?: BarRange;
  /** A trial's study's pretrained encoder, when it has one. */
  encoder?: { run: string; weightsSha256: string };
  /** A trial's study: its data is the default, and must be what the study was created on. */
  study?: { name: string; spec: DrlStudySpec };
  /** What training says to the verdict (a run's explained variance). */
  verdict?: VerdictContext;
}

/** `--model DIR`, or `--study NAME --trial N` (the trial's kept model). */
async function modelSource(context: CommandContext): Promise<ModelSource> {
  const { options } = context;
  if (typeof options.study === 'string') {
    const trialNumber = intOption(options, 'trial', 0);
    if (trialNumber === undefined)
      throw new TradelabError('USAGE', '--study needs --trial N', {
        hint: `e.g. tradelab backtest --study ${options.study} --trial 12 (see \`tradelab study show ${options.study}\`)`,
      });
    const name = options.study;
    return readStudyStorage(context, async (storage) => {
      const study = await storage.getStudy(name);
      const spec = drlSpecOf(study);
      const trial = (await storage.getTrials(study.id)).find((t) => t.number === trialNumber);
      if (trial === undefined)
        throw new TradelabError('TRIAL_NOT_FOUND', `study "${name}" has no trial ${trialNumber}`, {
          hint: `see its trials: tradelab study trials ${name}`,
        });
      const holdout = holdoutRange(spec);
      return {
        model: await loadTrialModel(storage, trial),
        label: `trial ${trialNumber} of study ${name}`,
        where: `trial ${trialNumber}'s model`,
        ...(holdout === undefined ? {} : { holdout }),
        ...(spec.encoder === undefined ? {} : { encoder: spec.encoder }),
        study: { name, spec },
      };
    });
  }
  if (typeof options.model !== 'string')
    throw new TradelabError('USAGE', 'backtest needs --model DIR or --study NAME --trial N', {
      hint: 'e.g. tradelab backtest --model runs/btc-ppo (a `tradelab train ppo --out` directory)',
    });
  const runDir = projectPath(context, options.model);
  const model = await loadModel(runDir);
  return {
    model,
    label: modelDirectory(runDir),
    where: `the model in ${modelDirectory(runDir)}`,
    verdict: runVerdictContext(runDir),
  };
}

import { join } from 'node:path';
import type { LoadedPpoModel, RunEnvOptions } from '../agents/index.js';
import { makeDirectory, TradelabError, writeFileAtomic } from '../core/index.js';
import {
  describeBarRange,
  digestMarketData,
  loadMarketData,
  openDatasetStore,
  parseBarRange,
  parseDatasetKeys,
  type BarRange,
  type MarketData,
} from '../data/index.js';
import type { RangeEvaluation, VerdictContext } from '../eval/index.js';
import type { DrlStudySpec } from '../trading/index.js';
import type { Project } from './open-project.js';
import { openProjectStorage } from './project-storage.js';
import { startBackend } from './start-backend.js';
import { tradelabVersion } from './version.js';

/*
 * A saved model's deterministic policy on a range, beside buy-and-hold: the use case of
 * `tradelab backtest`, a service job and the public API. Its rules: the model of a run directory or
 * a trading study's trial; the data it was trained on unless told otherwise (a trial's checked
 * against its study's digest); by default the study's holdout, or the run's test range, and a
 * warning when the range overlaps the bars the model trained on.
 */

/** What a backtest is asked. */
export interface BacktestOptions {
  /** A `train ppo --out` run directory (absolute, or relative to the project root)… */
  model?: string | undefined;
  /** …or a trading study's trial (its kept model). */
  study?: string | undefined;
  trial?: number | undefined;
  /** `SYM[,SYM]:TF`: default the data the model was trained on. */
  data?: string | undefined;
  /** `START:END` (dates or bar numbers): default the study's holdout or the run's test range. */
  range?: string | undefined;
  /** One fee for both sides, in basis points (default the model's env's). */
  feeBps?: number | undefined;
  /** A directory for equity.csv and report.html. */
  out?: string | undefined;
}

/** What a backtest found. */
export interface BacktestOutcome {
  /** How the output names the model. */
  label: string;
  /** The data's spec. */
  data: string;
  market: MarketData;
  range: BarRange;
  /** Why that range: given, the study's holdout, the run's test range, or all the bars. */
  rangeOrigin: 'asked' | 'holdout' | 'test' | 'all';
  evaluation: RangeEvaluation;
  /** Bars of the range the model trained on. */
  inSample: BarRange[];
  /** What training says to the verdict (a run's explained variance). */
  verdict: VerdictContext | undefined;
  /** Files written with `out`. */
  files: string[];
  /** The title of the report. */
  title: string;
}

/** What a backtest tells as it goes. */
export interface BacktestEvents {
  /** Warnings: an older model file, a range in-sample. */
  onWarning?: (message: string) => void;
}

/** Backtests a model as `options` ask. */
export async function runBacktest(
  project: Project,
  options: BacktestOptions,
  events: BacktestEvents = {},
): Promise<BacktestOutcome> {
  // Loaded here: agents/ and trading/ bring TensorFlow.js, which opening a project does not need.
  const agents = await import('../agents/index.js');
  const { equityCsv } = await import('../eval/index.js');
  const { loadStudyData } = await import('../trading/index.js');
  const backend = await startBackend(project);
  const store = openDatasetStore(project.config.settings.dataDir);
  const source = await modelSource(project, options);
  const { model } = source;
  for (const warning of model.warnings) events.onWarning?.(warning);
  try {
    const meta = agents.modelMeta(model);
    const spec = options.data ?? meta.data?.spec;
    if (spec === undefined)
      throw new TradelabError('USAGE', 'this model does not say what data it was trained on', {
        hint: 'pass --data SYM[,SYM]:TF',
      });
    // A trial's study data unless --data says otherwise: checked against the study's digest.
    const market =
      source.study !== undefined && options.data === undefined
        ? await loadStudyData(store, source.study.spec, source.study.name)
        : await loadMarketData(store, parseDatasetKeys(spec));
    const data = agents.withRecordedEncoder(market, meta.data?.encoder ?? source.encoder);
    agents.checkModelData(model, data, source.where);
    // Runs and studies digest the market, before any encoder's features.
    const sameData = meta.data !== undefined && meta.data.sha256 === digestMarketData(market);
    const lookback = meta.env.lookback ?? 1;
    const bars = data.timestamps.length;
    let range: BarRange;
    let rangeOrigin: BacktestOutcome['rangeOrigin'];
    if (options.range !== undefined) {
      range = parseBarRange(options.range, data.timestamps, '--range');
      rangeOrigin = 'asked';
    } else if (source.holdout !== undefined && sameData) {
      range = source.holdout;
      rangeOrigin = 'holdout';
    } else if (source.holdout === undefined && sameData) {
      const trainEnd = (model.meta.train as { bars?: BarRange } | undefined)?.bars?.[1] ?? 0;
      if (bars - trainEnd < 2)
        throw new TradelabError(
          'USAGE',
          'the training range reaches the end of the data: no bars are left to test on',
          { hint: 'pass --range with the bars to evaluate' },
        );
      range = [trainEnd, bars];
      rangeOrigin = 'test';
    } else {
      range = [lookback - 1, bars];
      rangeOrigin = 'all';
    }
    const env: RunEnvOptions =
      options.feeBps === undefined ? {} : { buyFeeBps: options.feeBps, sellFeeBps: options.feeBps };
    const inSample = agents.inSampleRanges(model.meta, data, range, sameData);
    if (inSample.length > 0) {
      const inBars = inSample.reduce((sum, [start, end]) => sum + end - start, 0);
      const trained = agents
        .trainedRanges(model.meta, data, sameData)
        .map((r) => describeBarRange(r, data.timestamps, data.timeframe))
        .join(', ');
      events.onWarning?.(
        `the backtest range ${describeBarRange(range, data.timestamps, data.timeframe)} overlaps the bars this model trained on, ${trained}: ${inBars} of ${range[1] - range[0]} bars are in-sample, and their figures say nothing of how it does on new data${source.holdout === undefined ? '' : " (the study's holdout is out of sample: leave --range out)"}`,
      );
    }
    const evaluation = await agents.backtestModel(model, data, { range, env });
    const title = `Backtest of ${source.label} on ${data.symbols.join(', ')} ${data.timeframe}`;
    let files: string[] = [];
    if (options.out !== undefined) {
      makeDirectory(options.out);
      const csv = join(options.out, 'equity.csv');
      writeFileAtomic(csv, equityCsv(evaluation, data.timestamps));
      const html = join(options.out, 'report.html');
      writeFileAtomic(
        html,
        agents.evaluationReportHtml({
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
    return {
      label: source.label,
      data: spec,
      market: data,
      range,
      rangeOrigin,
      evaluation,
      inSample,
      verdict: source.verdict,
      files,
      title,
    };
  } finally {
    agents.disposeModel(model);
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

/** `model` (a run directory), or `study` and `trial` (the trial's kept model). */
async function modelSource(project: Project, options: BacktestOptions): Promise<ModelSource> {
  const agents = await import('../agents/index.js');
  const { drlSpecOf, holdoutRange, loadTrialModel } = await import('../trading/index.js');
  if (options.study !== undefined) {
    const { study: name, trial: trialNumber } = options;
    if (trialNumber === undefined)
      throw new TradelabError('USAGE', '--study needs --trial N', {
        hint: `e.g. tradelab backtest --study ${name} --trial 12 (see \`tradelab study show ${name}\`)`,
      });
    const storage = await openProjectStorage(project, undefined, { readOnly: true });
    try {
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
    } finally {
      await storage.close();
    }
  }
  if (options.model === undefined)
    throw new TradelabError('USAGE', 'backtest needs --model DIR or --study NAME --trial N', {
      hint: 'e.g. tradelab backtest --model runs/btc-ppo (a `tradelab train ppo --out` directory)',
    });
  const runDir = options.model;
  const model = await agents.loadModel(runDir);
  return {
    model,
    label: agents.modelDirectory(runDir),
    where: `the model in ${agents.modelDirectory(runDir)}`,
    verdict: agents.runVerdictContext(runDir),
  };
}

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  LEARNING_CHECK_FEATURES,
  LEARNING_CHECK_PPO,
  PPO_DEFAULTS,
  trainPpoRun,
} from '../../agents/index.js';
import { featureMarket } from '../../env/index.js';
import { planHere, tradelabVersion, startBackend } from '../../app/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, num } from '../format.js';
import { intOption } from '../option-values.js';
import { printEvaluation } from '../print-evaluation.js';
import { printPlan } from '../print-plan.js';
import { createProgress, PLAIN_PROGRESS_INTERVAL_S } from '../progress.js';

/** Bars of the quickstart's synthetic market; the first half trains, the second tests. */
const QUICKSTART_BARS = 12_000;

/**
 * `tradelab quickstart`: the main job on embedded defaults. Detect the GPU, pick a profile, print
 * the worker plan for the PPO model and data it trains; then train a small PPO on a synthetic market with a
 * planted signal and evaluate it on held-out bars beside buy-and-hold, with a report.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const project = context.project();
  const steps = intOption(options, 'steps', 1) ?? 150_000;
  const signal = 0.2;
  const data = featureMarket({
    assets: 2,
    bars: QUICKSTART_BARS,
    signal,
    seed: 1,
    features: LEARNING_CHECK_FEATURES,
  });
  const bars = data.timestamps.length;
  const ppo = { ...PPO_DEFAULTS, ...LEARNING_CHECK_PPO, breakStep: steps, seed: 1 };
  out.line(
    'tradelab quickstart: detect the GPU, choose a profile, plan trial workers for the PPO model it trains.',
  );
  out.line();
  const detection = await project.detect();
  if (detection !== undefined) {
    for (const tool of detection.tools)
      out.line(`  ${tool.tool.padEnd(10)} ${tool.status.padEnd(10)} ${tool.detail}`);
    out.line();
  }
  // The plan of the model and data trained below (not a default 10-asset 3×1024 one).
  const result = await planHere(project, {
    netDim: ppo.netDim,
    layers: ppo.layers,
    batchSize: ppo.batchSize,
    nEnvs: ppo.nEnvs,
    targetStep: ppo.targetStep,
    dataset: { bars, assets: data.symbols.length, features: data.featureNames.length },
    timeframe: '1h',
  });
  out.line(`Profile: ${result.choice.profile.name}: ${result.choice.reason}`);
  out.line();
  printPlan(out, result);
  out.line();

  const backend = await startBackend(project, { nativeThreads: 'all' });
  out.line(
    `Training PPO for ${count(steps)} env steps (netDim ${ppo.netDim}, ${ppo.layers} layers, ${ppo.nEnvs} envs) on a synthetic 2-asset 1h market with a planted momentum signal (${signal}), on ${backend.name} (${backend.matmul}).`,
  );
  const split = Math.floor(bars / 2);
  const dir = join(project.config.projectRoot, '.tradelab', 'quickstart', 'ppo');
  rmSync(dir, { recursive: true, force: true }); // the quickstart's own run, remade each time
  // Made before training starts, so the first update's rate counts the time it took.
  const progress = createProgress({
    total: 0,
    unit: 'env steps',
    one: 'env step',
    plainIntervalS: PLAIN_PROGRESS_INTERVAL_S,
  });
  const run = await trainPpoRun({
    dir,
    data,
    dataSpec: `synthetic ${data.symbols.join(',')}:1h (quickstart, signal ${signal}, seed 1)`,
    train: [0, split],
    test: [split, bars],
    ppo,
    env: { buyFeeBps: 5, sellFeeBps: 5, episodeLength: 256 },
    backend: { name: backend.name, matmul: backend.matmul },
    tradelabVersion: tradelabVersion(),
    command: ['quickstart'],
    onUpdate: (report, trainer) => {
      const ret = report.meanEpisodeReturn;
      progress.update(
        report.envSteps,
        ret === null ? '' : `return ${num(ret, 4)}`,
        trainer.totalUpdates * trainer.config.targetStep,
      );
    },
  });
  progress.done();
  const { manifest } = run;
  out.line(
    `${count(manifest.progress.envSteps)} env steps in ${num(manifest.progress.seconds, 3)} s. Held-out half (${count(bars - split)} bars), fees 5 bps a side:`,
  );
  out.line();
  if (run.evaluation !== undefined) printEvaluation(out, run.evaluation);
  if (run.reportPath !== undefined) out.line(`Report: ${run.reportPath}`);
  out.line();
  out.line(
    'Next: `tradelab train ppo --help` to train on your own data; `tradelab study create --help` to tune agents by cross-validated Sharpe (--preset ensemble_balanced); `tradelab profiles plan --help` to size your own model.',
  );
}

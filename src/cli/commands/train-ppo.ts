import { resolve } from 'node:path';
import { POLICY_NETWORKS, RUN_FILES } from '../../agents/index.js';
import {
  markRunInterrupted,
  resumeCommandOf,
  trainPpo,
  type TrainPpoOptions,
} from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import { describeBarRange } from '../../data/index.js';
import { rangeVerdict } from '../../eval/index.js';
import { ACTION_SCALINGS, EXECUTION_PRICES } from '../../env/index.js';
import type { CommandContext } from '../command-spec.js';
import { logProfileBanner } from '../profile-banner.js';
import { projectPath } from '../project-path.js';
import { count, num, shellQuote } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { createProgress, progressIntervalOption } from '../progress.js';
import { printEvaluation } from '../print-evaluation.js';
import { onStopSignals, signalExitCode } from '../stop-signals.js';

/**
 * `tradelab train ppo --data SYM[,SYM]:TF --out DIR`: trains PPO on the training range,
 * checkpoints, and evaluates the deterministic policy on the test range beside buy-and-hold. The
 * rules are app/'s trainPpo; this file reads the flags and prints.
 */
export async function run(context: CommandContext): Promise<number | undefined> {
  const { out, options } = context;
  if (typeof options.out !== 'string')
    throw new TradelabError('USAGE', 'train ppo needs --out DIR (where the run is written)', {
      hint: 'e.g. tradelab train ppo --data BTCUSDT:1h --out runs/btc-ppo',
    });
  const request = trainPpoOptions(context, options.out);
  const dir = request.out;
  const resumeCommand = resumeCommandOf(options.out);
  const signals = onStopSignals({
    requested(signal) {
      out.note(
        `\n${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after this update (Ctrl-C again to quit at once)…`,
      );
    },
    forced(signal) {
      // Quitting mid-update: the run resumes from its last checkpoint, as after a stop.
      const problem = markRunInterrupted(dir);
      if (problem !== undefined) out.note(problem);
      out.note(`\nquit at once (${signal}); continue with: ${resumeCommand}`);
      out.note('  --resume goes on from the last checkpoint; updates since then run again');
    },
  });
  // Made before training starts, so the first update's rate counts the time it took.
  const progress = createProgress({
    total: 0,
    unit: 'env steps',
    one: 'env step',
    plainIntervalS: progressIntervalOption(options),
    out,
  });
  let progressFrom: number | undefined;
  let outcome;
  try {
    outcome = await trainPpo(context.project(), request, {
      onNote: (text) => {
        out.note(text);
      },
      onStart: async (start) => {
        await logProfileBanner(context, 1);
        if (out.json) return;
        const { data } = start;
        out.line(
          `${start.resuming ? 'Resuming' : 'Training'} PPO on ${data.symbols.join(', ')} at ${data.timeframe}: ${count(data.timestamps.length)} bars × ${data.featureNames.length} features`,
        );
        out.line(`  train ${describeBarRange(start.train, data.timestamps, data.timeframe)}`);
        out.line(
          `  test  ${start.test === undefined ? 'none' : describeBarRange(start.test, data.timestamps, data.timeframe)}`,
        );
        out.line(`  backend ${start.backend.name} (${start.backend.matmul}); ${start.backend.why}`);
        if (start.backend.gpu !== undefined && start.policy === 'ft_transformer')
          out.line(
            "  the FT-Transformer's update stays on the CPU (wasm): the GPU engine trains MLP actors",
          );
        out.line(`  run directory ${start.dir}`);
        out.line();
      },
      onUpdate: (report, trainer) => {
        if (out.json) out.record({ type: 'update', ...report });
        // Counted from where this process started (a resumed run's earlier steps took no time here).
        progressFrom ??= report.envSteps - trainer.config.targetStep;
        const ret = report.meanEpisodeReturn;
        progress.update(
          report.envSteps - progressFrom,
          `update ${report.update}/${trainer.totalUpdates}${ret === null ? '' : ` return ${num(ret, 4)}`}`,
          trainer.totalUpdates * trainer.config.targetStep - progressFrom,
        );
      },
      onWarning: (message) => {
        out.note(`warning: ${message}`);
      },
      shouldStop: () => signals.received() !== undefined,
    });
  } finally {
    progress.done();
    signals.dispose();
  }
  if (outcome.kind === 'nothing-left') {
    const previous = outcome.manifest;
    const { updatesDone, totalUpdates, envSteps } = previous.progress;
    if (out.json) out.record({ type: 'run', dir, manifest: previous, nothingLeft: true });
    else {
      out.line(
        `nothing left to train: run ${dir} finished ${updatesDone}/${totalUpdates} updates (${count(envSteps)} env steps)`,
      );
      out.line(
        `  to train longer: --resume --steps N above ${count(previous.ppo.breakStep)}; to evaluate it again: tradelab backtest --model ${shellQuote(options.out)}`,
      );
    }
    return undefined;
  }
  const { manifest, reports } = outcome.result;
  if (outcome.kind === 'stopped') {
    out.note(
      `stopped after update ${manifest.progress.updatesDone}; continue with: ${resumeCommand}`,
    );
    if (outcome.resumePoint !== undefined) out.note(`  ${outcome.resumePoint}`);
    // As a shell reports a command ended by that signal: 130 after Ctrl-C, 143 after SIGTERM.
    return signalExitCode(signals.received() ?? 'SIGINT');
  }
  const report = outcome.result.reportPath;
  const { evaluation, verdictContext } = outcome;
  if (out.json) {
    out.record({
      type: 'run',
      dir,
      manifest,
      report,
      ...(evaluation === undefined ? {} : { verdict: rangeVerdict(evaluation, verdictContext) }),
    });
    return undefined;
  }
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  out.line(
    `${count(manifest.progress.envSteps)} env steps in ${manifest.progress.updatesDone} updates, ${num(manifest.progress.seconds, 3)} s`,
  );
  if (reports.length > 0)
    out.line(
      `per update (median): rollout ${num(median(reports.map((r) => r.rolloutSeconds)), 3)} s at ${count(Math.round(median(reports.map((r) => r.envStepsPerSecond))))} env steps/s, update ${num(median(reports.map((r) => r.updateSeconds)), 3)} s at ${count(Math.round(median(reports.map((r) => r.samplesPerSecond))))} samples/s`,
    );
  if (reports.length > 0)
    out.line(
      `host↔device per update (median): ${num(median(reports.map((r) => (r.uploadBytes + r.downloadBytes) / 2 ** 20)), 3)} MiB in ${count(median(reports.map((r) => r.reads)))} reads, ${num(median(reports.map((r) => r.transferSeconds)), 3)} s (reads include waiting for the device)`,
    );
  out.line();
  if (evaluation !== undefined) printEvaluation(out, evaluation, 'POLICY', verdictContext);
  out.line(`model: ${resolve(dir, RUN_FILES.model)}`);
  if (report !== undefined) out.line(`report: ${report}`);
  return undefined;
}

/** The flags as the use case's options: each parsed and range-checked here, once. */
function trainPpoOptions(context: CommandContext, outFlag: string): TrainPpoOptions {
  const { options } = context;
  const policy = typeof options.policy === 'string' ? options.policy : undefined;
  return {
    out: projectPath(context, outFlag),
    data: typeof options.data === 'string' ? options.data : undefined,
    resume: options.resume === true,
    threads: options.threads === undefined ? undefined : threadsOption(options.threads),
    policy:
      policy?.startsWith('tcn:') === true
        ? { tcnRun: projectPath(context, policy.slice('tcn:'.length)) }
        : choiceOption(options, 'policy', POLICY_NETWORKS),
    ppo: {
      nEnvs: intOption(options, 'envs', 1),
      netDim: intOption(options, 'net-dim', 1),
      layers: intOption(options, 'layers', 1),
      batchSize: intOption(options, 'batch-size', 1),
      targetStep: intOption(options, 'target-step', 1),
      repeatTimes: intOption(options, 'repeat-times', 1),
      learningRate: numberOption(options, 'lr', 1e-8, 1, '3e-4'),
      gamma: numberOption(options, 'gamma', 0, 1, '0.99'),
      lambdaGae: numberOption(options, 'lambda-gae', 0, 1, '0.95'),
      ratioClip: numberOption(options, 'ratio-clip', 1e-6, 1, '0.2'),
      lambdaEntropy: numberOption(options, 'entropy', 0, 1, '0.01'),
      normalizeRewards: options['no-reward-scaling'] === true ? false : undefined,
      seed: intOption(options, 'seed', 0),
      breakStep: intOption(options, 'steps', 1),
    },
    env: {
      lookback: intOption(options, 'lookback', 1),
      buyFeeBps: numberOption(options, 'fee-bps', 0, 1000, '10'),
      episodeLength: intOption(options, 'episode-length', 1),
      reward: choiceOption(options, 'reward', ['value-change', 'excess'] as const),
      turnoverPenalty: numberOption(options, 'turnover-penalty', 0, 1, '0.001'),
      actionScaling: choiceOption(options, 'action-scaling', ACTION_SCALINGS),
      noTradeBand: numberOption(options, 'rebalance-band', 0, 0.99, '0.02'),
      executionPrice: choiceOption(options, 'execution-price', EXECUTION_PRICES),
    },
    train: typeof options.train === 'string' ? options.train : undefined,
    test:
      typeof options.test === 'string'
        ? options.test
        : options['no-test'] === true
          ? false
          : undefined,
    checkpointEvery: intOption(options, 'checkpoint-every', 1),
    command: process.argv.slice(2),
  };
}

/** --threads N|all: threads of the native GEMM; a single training run uses every core. */
export function threadsOption(raw: string | boolean | undefined): number | 'all' {
  if (raw === undefined || raw === 'all') return 'all';
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--threads: ${JSON.stringify(raw)} is not allowed: expected a whole number >= 1 or all`,
      { hint: 'e.g. --threads 1 (several runs side by side) or --threads all (the default)' },
    );
  return value;
}

import { join } from 'node:path';
import {
  planPretrain,
  pretrainTcnRun,
  type PretrainSettingsAsked,
  type PretrainTcnOptions,
} from '../../app/index.js';
import { BAR_FEATURE_COUNT, DAY_MS } from '../../data/index.js';
import {
  EPOCH_HEADERS,
  epochCells,
  PRECISIONS,
  REPORT_FILE,
  verdict,
  type EpochRow,
} from '../../supervised/index.js';
import type { CommandContext } from '../command-spec.js';
import { count } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { renderTable } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';
import { createProgress, progressIntervalOption } from '../progress.js';
import { projectPath } from '../project-path.js';
import { onStopSignals, signalExitCode } from '../stop-signals.js';

/**
 * `tradelab pretrain tcn --data SYM[,SYM]:TF --out DIR`: pretrains a TCN on log forward realized
 * volatility beside HAR-RV, an epoch table as it goes; `--summary` prints the network and its
 * memory plan only. The rules are app/'s pretrainTcnRun; this file reads the flags and prints.
 */
export async function run(context: CommandContext): Promise<number | undefined> {
  const { out, options } = context;
  const project = context.project();
  const request = pretrainOptions(context);

  if (options.summary === true) {
    const { settings, plan, why } = await planPretrain(project, request);
    const { tcnSize } = await import('../../models/index.js');
    const size = tcnSize({
      inputs: BAR_FEATURE_COUNT,
      hidden: settings.hidden,
      layers: settings.layers,
      kernel: settings.kernel,
      dropout: settings.dropout,
    });
    if (out.json) {
      out.record({
        type: 'summary',
        layers: size.layers,
        params: size.params,
        receptiveField: size.receptiveField,
        plan,
        why,
      });
      return undefined;
    }
    out.line(
      `TCN ${settings.layers}×${settings.hidden}, kernel ${settings.kernel}, ${BAR_FEATURE_COUNT} features a bar`,
    );
    out.line();
    for (const line of renderTable(size.layers, [
      { header: 'LAYER', value: (r) => r.name },
      { header: 'KIND', value: (r) => r.kind },
      { header: 'OUTPUT', value: (r) => r.output },
      { header: 'PARAMS', value: (r) => count(r.params), right: true },
    ]))
      out.line(line);
    out.line();
    out.line(
      `parameters: ${count(size.params)}; the last step sees ${count(size.receptiveField)} bars (chunks are ${count(settings.chunkLen)})`,
    );
    for (const line of why) out.line(line);
    return undefined;
  }

  const resumeCommand = `tradelab pretrain tcn --out ${String(options.out)} --resume`;
  const signals = onStopSignals({
    requested(signal) {
      out.note(
        `\n${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after this step (Ctrl-C again to quit at once)…`,
      );
    },
    forced(signal) {
      // The checkpoint of the last finished epoch is on disk; the interrupted epoch is redone.
      out.note(`\nquit at once (${signal}); continue with: ${resumeCommand}`);
    },
  });
  let stepsPerEpoch = 0;
  const newProgress = (): ReturnType<typeof createProgress> =>
    createProgress({
      total: stepsPerEpoch,
      unit: 'steps',
      plainIntervalS: progressIntervalOption(options),
      out,
    });
  let progress = newProgress();
  const header = EPOCH_HEADERS.map((h) => h.toUpperCase());
  const printRow = (row: EpochRow): void => {
    if (out.json) {
      out.record({ type: 'epoch', ...row });
      return;
    }
    const cells = epochCells(row);
    out.line(cells.map((c, i) => c.padStart((header[i] ?? '').length)).join('  '));
  };
  let result;
  try {
    result = await pretrainTcnRun(project, request, {
      onPrepared: () => logProfileBanner(context, 1),
      onNote: (text) => {
        out.note(text);
      },
      onStart: ({ dataset, settings, backend }) => {
        const date = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
        const { ranges } = dataset;
        out.note(
          `data: ${dataset.symbols.join(', ')}; train ${date(ranges.train.firstDay)} … ${date(ranges.train.lastDay)} (${count(dataset.train.count)} chunks), validation ${date(ranges.validation.firstDay)} … ${date(ranges.validation.lastDay)} (${count(dataset.validation.count)} session closes), test ${date(ranges.test.firstDay)} … (${count(dataset.test.count)}); ${ranges.gap}-session gaps`,
        );
        out.note(
          `backend ${backend.name} (${backend.matmul}); ${settings.chunks} chunks × ${settings.accum} accumulated a step, ${settings.stepsPerEpoch} steps an epoch, up to ${settings.epochs} epochs`,
        );
        if (backend.gpu !== undefined)
          out.note(
            `the TCN's steps run on tradelab's GPU engine${settings.checkpoint ? ", which recomputes each block's convolutions (gradient checkpointing)" : ''}; validation on the CPU`,
          );
        stepsPerEpoch = settings.stepsPerEpoch;
        progress = newProgress();
        if (!out.json) out.line(header.join('  '));
      },
      onStep: (epoch, step, loss) => {
        progress.update(step, `epoch ${epoch}, loss ${loss.toFixed(4)}`);
      },
      onEpoch: (row) => {
        progress.done();
        printRow(row);
        // One bar an epoch, so its rate and ETA are the epoch's.
        progress = newProgress();
      },
      shouldStop: () => signals.received() !== undefined,
    });
  } finally {
    progress.done();
    signals.dispose();
  }
  const { dir } = result;
  if (out.json)
    out.record({
      type: 'run',
      dir,
      status: result.status,
      bestEpoch: result.bestEpoch,
      test: result.test ?? null,
    });
  else {
    out.line();
    out.line(
      result.bestEpoch === null
        ? `run ${result.status} before its first epoch ended: no weights yet`
        : `run ${result.status}; best epoch ${result.bestEpoch} (its weights: ${join(dir, 'model')})`,
    );
    if (result.test !== undefined) {
      out.line(
        `test rows (${count(result.test.tcn.rows)}): TCN corr ${result.test.tcn.correlation.toFixed(3)}, R² ${result.test.tcn.r2.toFixed(3)}, RMSE ${result.test.tcn.rmse.toFixed(4)}; HAR-RV corr ${result.test.har.correlation.toFixed(3)}, R² ${result.test.har.r2.toFixed(3)}, RMSE ${result.test.har.rmse.toFixed(4)}`,
      );
      out.line(verdict(result.test));
    }
    out.line(`report: ${join(dir, REPORT_FILE)}`);
  }
  if (result.status === 'stopped') {
    out.note(`stopped; continue with: ${resumeCommand}`);
    return signalExitCode(signals.received() ?? 'SIGINT');
  }
  return undefined;
}

/** The flags as the use case's options: each parsed and range-checked here, once. */
function pretrainOptions(context: CommandContext): PretrainTcnOptions {
  const { options } = context;
  const settings: PretrainSettingsAsked = {
    hidden: intOption(options, 'hidden', 1),
    layers: intOption(options, 'layers', 1),
    kernel: intOption(options, 'kernel', 1),
    dropout: numberOption(options, 'dropout', 0, 0.99, '0.1'),
    chunkLen: intOption(options, 'chunk-len', 2),
    horizon: intOption(options, 'horizon', 1),
    chunks: intOption(options, 'chunks', 1),
    accum: intOption(options, 'accum', 1),
    stepsPerEpoch: intOption(options, 'steps-per-epoch', 1),
    learningRate: numberOption(options, 'lr', 1e-8, 0.99, '1e-3'),
    patience: intOption(options, 'patience', 1),
    seed: intOption(options, 'seed', 0),
    precision: choiceOption(options, 'precision', PRECISIONS),
    checkpoint:
      options['no-checkpoint'] === true ? false : options.checkpoint === true ? true : undefined,
    epochs: intOption(options, 'epochs', 1),
  };
  return {
    out: typeof options.out === 'string' ? projectPath(context, options.out) : undefined,
    data: typeof options.data === 'string' ? options.data : undefined,
    resume: options.resume === true,
    threads: options.threads === 'all' ? 'all' : intOption(options, 'threads', 1),
    settings,
  };
}

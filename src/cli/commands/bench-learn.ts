import { parsePpoOverrides } from '../../agents/index.js';
import { benchLearn, LEARN_SIGNALS } from '../../bench/index.js';
import { TradelabError } from '../../core/index.js';
import { ACTION_SCALINGS, EXECUTION_PRICES } from '../../env/index.js';
import type { CommandContext } from '../command-spec.js';
import { choiceOption, intListOption, intOption, numberOption } from '../option-values.js';
import { renderTable } from '../output.js';
import { fixed, plural } from '../format.js';
import { benchProgress } from '../print-bench.js';

/** `tradelab bench learn`: held-out Sharpe of PPO vs buy-and-hold, planted signal vs random walk. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const seeds = intListOption(options.seeds, 'seeds', '1,2,3');
  const steps = intOption(options, 'steps', 1);
  let signals: number[] | undefined;
  if (typeof options.signals === 'string') {
    signals = options.signals.split(',').map((s) => Number(s.trim()));
    if (signals.some((s) => !Number.isFinite(s) || Math.abs(s) > 1))
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `--signals: ${JSON.stringify(options.signals)} is not allowed: expected numbers in [-1, 1] separated by commas`,
        {
          hint: 'e.g. --signals 0.2,0',
        },
      );
  }
  const ppo = typeof options.ppo === 'string' ? parsePpoOverrides(options.ppo) : undefined;
  const actionScaling = choiceOption(options, 'action-scaling', ACTION_SCALINGS);
  const noTradeBand = numberOption(options, 'rebalance-band', 0, 0.99, '0.02');
  const executionPrice = choiceOption(options, 'execution-price', EXECUTION_PRICES);
  const turnoverPenalty = numberOption(options, 'turnover-penalty', 0, 1, '0.001');
  const trading = {
    ...(turnoverPenalty === undefined ? {} : { turnoverPenalty }),
    ...(executionPrice === undefined ? {} : { executionPrice }),
    ...(actionScaling === undefined ? {} : { actionScaling }),
    ...(noTradeBand === undefined ? {} : { noTradeBand }),
  };
  const total = (signals ?? LEARN_SIGNALS).length * (seeds?.length ?? 5) * (steps ?? 300_000);
  const progress = benchProgress(total, 'steps', out);
  const results = await benchLearn({
    ...(signals === undefined ? {} : { signals }),
    ...(seeds === undefined ? {} : { seeds }),
    ...(steps === undefined ? {} : { steps }),
    ...(ppo === undefined ? {} : { ppo }),
    ...(Object.keys(trading).length === 0 ? {} : { trading }),
    onResult: (result, done) => {
      progress.update(done * result.steps, `signal ${result.signal} seed ${result.seed}`);
      if (out.json) out.record({ bench: 'learn', ppo: ppo ?? {}, trading, ...result });
    },
  });
  progress.done();
  if (out.json) return;
  for (const line of renderTable(results, [
    { header: 'SIGNAL', value: (r) => String(r.signal), right: true },
    { header: 'SEED', value: (r) => String(r.seed), right: true },
    { header: 'STEPS', value: (r) => r.steps.toLocaleString('en-US'), right: true },
    { header: 'SHARPE', value: (r) => r.sharpe.toFixed(2), right: true },
    { header: 'B&H SHARPE', value: (r) => r.benchmarkSharpe.toFixed(2), right: true },
    { header: 'MARGIN', value: (r) => fixed(r.sharpe - r.benchmarkSharpe, 2), right: true },
    { header: 'ORACLE', value: (r) => r.oracleSharpe.toFixed(2), right: true },
    {
      header: 'CAPTURED',
      value: (r) =>
        Number.isFinite(r.shareCaptured) ? `${Math.round(r.shareCaptured * 100)}%` : '-',
      right: true,
    },
    { header: 'RETURN', value: (r) => `${(r.totalReturn * 100).toFixed(1)}%`, right: true },
    { header: 'B&H RETURN', value: (r) => `${(r.benchmarkReturn * 100).toFixed(1)}%`, right: true },
    { header: 'TURNOVER/Y', value: (r) => fixed(r.annualizedTurnover, 1), right: true },
    { header: 'FEES', value: (r) => `${(r.feeShare * 100).toFixed(2)}%`, right: true },
    { header: 'EXPL VAR', value: (r) => fixed(r.explainedVariance, 2), right: true },
    { header: 'TRAIN S', value: (r) => r.trainSeconds.toFixed(1), right: true },
  ]))
    out.line(line);
  out.line();
  const bySignal = new Map<number, typeof results>();
  for (const r of results) bySignal.set(r.signal, [...(bySignal.get(r.signal) ?? []), r]);
  for (const [signal, runs] of bySignal) {
    const margins = runs.map((r) => r.sharpe - r.benchmarkSharpe);
    const mean = margins.reduce((s, m) => s + m, 0) / margins.length;
    const wins = margins.filter((m) => m > 0).length;
    const captured = runs.filter((r) => r.shareCaptured >= 0.5).length;
    const fees = runs.map((r) => r.feeShare).sort((a, b) => a - b);
    out.line(
      `signal ${signal}: mean Sharpe margin over buy-and-hold ${fixed(mean, 2)}, ahead in ${wins} of ${plural(margins.length, 'seed')}; ${
        signal === 0
          ? `median fees ${((fees[Math.floor(fees.length / 2)] ?? 0) * 100).toFixed(2)}% of the cash`
          : `half the oracle's after-fee Sharpe or more in ${captured} of ${plural(runs.length, 'seed')}`
      }`,
    );
  }
  out.line(
    "Sharpe: annualized, on the held-out half (1h bars, fees 5 bps a side, fills at the next bar's open unless --execution-price close). ORACLE: the planted signal traded perfectly (long while the last 5 bars rose) at the same fees and fills; CAPTURED: the policy's Sharpe as a share of it.",
  );
  if (ppo !== undefined) out.line(`PPO settings over the check's own: ${JSON.stringify(ppo)}`);
  if (Object.keys(trading).length > 0) out.line(`Trading: ${JSON.stringify(trading)}`);
}

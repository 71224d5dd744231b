import {
  renderDrawdownChart,
  renderHtmlReport,
  renderLineChart,
  type ReportFact,
  type ReportSection,
  type ReportTable,
} from '../report/index.js';
import type { BarRange } from '../data/bar-range.js';
import type { RangeEvaluation } from '../eval/evaluate.js';
import type { TradingMetrics } from '../eval/metrics.js';
import { rangeVerdict, type RangeVerdict, type VerdictContext } from '../eval/range-verdict.js';

/*
 * An evaluated range as report sections: the equity curve beside buy-and-hold, both under water,
 * the verdict (ahead of buy-and-hold or not, and why a loss happened), and the metrics side by
 * side. `tradelab train ppo` and `tradelab backtest` show them.
 */

const pct = (x: number | null): string =>
  x === null || !Number.isFinite(x) ? '-' : `${(x * 100).toFixed(2)} %`;
const fixed = (x: number | null, digits = 2): string =>
  x === null || !Number.isFinite(x) ? '-' : x.toFixed(digits);

/** An amount of the quote currency, to the cent, with thousands separators. */
const money = (x: number): string =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    : '-';

/**
 * The metrics rows shown for a strategy and its benchmark: label and formatted values. Amounts are
 * in the data's quote currency (the currency its prices are in), and fees are also given as a
 * share of `initialCash`, so "fees paid 410,564.22" is not read without its scale.
 */
export function metricRows(
  metrics: TradingMetrics,
  benchmark: TradingMetrics,
  fees: number,
  initialCash: number,
): [label: string, strategy: string, benchmark: string][] {
  return [
    ['total return', pct(metrics.totalReturn), pct(benchmark.totalReturn)],
    ['annualized return', pct(metrics.annualizedReturn), pct(benchmark.annualizedReturn)],
    [
      'annualized volatility',
      pct(metrics.annualizedVolatility),
      pct(benchmark.annualizedVolatility),
    ],
    ['Sharpe (annualized)', fixed(metrics.sharpe), fixed(benchmark.sharpe)],
    ['Sortino (annualized)', fixed(metrics.sortino), fixed(benchmark.sortino)],
    ['max drawdown', pct(metrics.maxDrawdown), pct(benchmark.maxDrawdown)],
    ['Calmar', fixed(metrics.calmar), fixed(benchmark.calmar)],
    ['hit rate', pct(metrics.hitRate), pct(benchmark.hitRate)],
    ['turnover (annualized, × value)', fixed(metrics.annualizedTurnover, 1), '-'],
    ['exposure (mean invested share)', pct(metrics.exposure), '100.00 %'],
    ['initial cash (quote currency)', money(initialCash), money(initialCash)],
    [
      'fees paid (quote currency)',
      `${money(fees)} (${initialCash > 0 ? pct(fees / initialCash) : '-'} of initial cash)`,
      '0.00',
    ],
    ['bars', String(metrics.bars), String(benchmark.bars)],
  ];
}

/** The verdict's findings as a table: what the range shows, and what to try. */
export function verdictSection(verdict: RangeVerdict): ReportSection {
  return {
    heading: 'Verdict',
    paragraph:
      'Whether the policy beats buy-and-hold on these bars, with the interval a block bootstrap gives their Sharpe difference, and what explains a loss.',
    table: {
      headers: ['', 'finding', 'what to try'],
      rows: verdict.findings.map((f) => [
        f.severity === 'warning' ? 'warning' : 'note',
        f.text,
        f.advice ?? '',
      ]),
    },
  };
}

/** The equity, drawdown, verdict and metrics sections of one evaluated range. */
export function evaluationSections(
  evaluation: RangeEvaluation,
  timestamps: Float64Array,
  label = 'policy',
  inSample: readonly BarRange[] = [],
  context: VerdictContext = {},
): ReportSection[] {
  const x = Float64Array.from(evaluation.bars, (bar) => timestamps[bar] ?? Number.NaN);
  // A span covers its bars up to the next bar's time (the last bar's own when there is none).
  const shade = inSample.map(([start, end]) => ({
    from: timestamps[start] ?? Number.NaN,
    to: timestamps[end] ?? timestamps[end - 1] ?? Number.NaN,
    label: 'in-sample (trained on)',
  }));
  const inSampleBars = inSample.reduce((sum, [start, end]) => sum + end - start, 0);
  const inSampleNote =
    inSample.length === 0
      ? ''
      : ` Shaded: ${inSampleBars} bars the model trained on (in-sample); figures over them say nothing of how it does on new data.`;
  const initial = evaluation.equity[0] ?? 0;
  const table: ReportTable = {
    headers: ['metric', label, 'buy-and-hold'],
    rows: metricRows(evaluation.metrics, evaluation.benchmarkMetrics, evaluation.fees, initial),
  };
  const flags = [...evaluation.metrics.flags, ...evaluation.benchmarkMetrics.flags];
  return [
    {
      heading: 'Equity',
      paragraph: `The ${label} and an equal-weight buy-and-hold of the same symbols, from the same cash, on the same bars. The episode ${evaluation.ended === 'terminated' ? 'was terminated: the portfolio fell below the termination threshold' : 'ran to the end of the range'}.${inSampleNote}`,
      charts: [
        renderLineChart({
          title: 'Portfolio value',
          xKind: 'time',
          series: [
            { name: label, x, y: evaluation.equity },
            { name: 'buy-and-hold', x, y: evaluation.benchmark, dash: '6 4' },
          ],
          referenceLine: { y: initial, label: 'initial cash' },
          shade,
        }),
        renderDrawdownChart({
          xKind: 'time',
          shade,
          series: [
            { name: label, x, equity: evaluation.equity },
            { name: 'buy-and-hold', x, equity: evaluation.benchmark },
          ],
        }),
      ],
    },
    verdictSection(rangeVerdict(evaluation, context)),
    {
      heading: 'Metrics',
      ...(flags.length === 0 ? {} : { paragraph: `Flags: ${[...new Set(flags)].join(', ')}.` }),
      table,
    },
  ];
}

/** A whole report page for one evaluated range (what `tradelab backtest --out` writes). */
export function evaluationReportHtml(options: {
  title: string;
  facts: readonly ReportFact[];
  evaluation: RangeEvaluation;
  timestamps: Float64Array;
  footer: string;
  /** Bars of the range the model trained on: shaded in the charts. Default none. */
  inSample?: readonly BarRange[];
  /** What the verdict may use besides the range (the run's explained variance). Default none. */
  verdict?: VerdictContext;
}): string {
  return renderHtmlReport({
    title: options.title,
    facts: options.facts,
    sections: evaluationSections(
      options.evaluation,
      options.timestamps,
      'policy',
      options.inSample ?? [],
      options.verdict ?? {},
    ),
    footer: options.footer,
  });
}

import { plural } from '../core/plural.js';
import { describeRun } from './campaign-file.js';
import { renderBarChart, type Bar } from '../report/bar-chart.js';
import { escapeHtml } from '../report/escape-html.js';
import { htmlPage } from '../report/html-report.js';
import { renderHeatmap } from '../report/heatmap.js';
import { renderLineChart, type LineSeries, type SvgMarkup } from '../report/line-chart.js';
import { REPORT_CSS } from '../report/report-style.js';
import { PRUNED_VALUE_MEANING } from '../tune/pruned-value.js';
import type { StudySummary } from '../tune/index.js';
import type { CampaignReport, ReportStudy, ReportTrial } from './campaign-report.js';
import { PARAM_IMPORTANCE_METHOD, paramImportance } from './param-importance.js';

/*
 * The campaign report as one HTML file to open anywhere and pass around: the campaign's table,
 * facts and diagnosis, then each study's optimization history, trials by state, parameter
 * importance, Sharpe by split and its best trial on the holdout. Everything is inline (CSS, SVG),
 * nothing is fetched and nothing runs. Each chart is a `<figure class="chart" data-chart="KIND">`
 * (with `data-study="KEY"` inside a study), and a chart without data is a sentence instead, a
 * `<p class="no-chart">` with the same attributes, never empty axes.
 */

/** The kinds of chart in the report, as their figures' `data-chart` names them. */
export type CampaignChartKind =
  'throughput' | 'phases' | 'history' | 'states' | 'importance' | 'splits' | 'holdout';

/** The seed of the importance forest: fixed, so one report renders to one page. */
const IMPORTANCE_SEED = 0;
/** Below this many complete trials the importance caption says its ranking is rough. */
const FEW_TRIALS = 20;

const CAMPAIGN_CSS = `
nav.contents { margin: 8px 0 0; color: var(--muted); }
nav.contents a { color: inherit; margin-right: 12px; }
h3 { font-size: 1rem; margin: 24px 0 4px; }
figure.chart figcaption { color: var(--muted); font-size: 0.85rem; margin-top: 2px; }
p.no-chart { color: var(--muted); border: 1px dashed var(--rule); border-radius: 4px; padding: 8px 12px; }
ul.diagnosis { padding-left: 20px; }
ul.diagnosis li { margin: 4px 0; }
tr.total td { font-weight: 600; border-top: 2px solid var(--rule); }
table[data-table="campaign"] { font-size: 0.9rem; }
table[data-table="campaign"] th, table[data-table="campaign"] td { padding: 4px 6px; }
table[data-table="campaign"] th[scope="row"] { white-space: nowrap; }
section.study { margin-top: 40px; }
`.trim();

/** The campaign report as a self-contained HTML page. */
export function renderCampaignHtml(report: CampaignReport): string {
  const title = `Campaign ${report.name}`;
  const body: string[] = [
    '<header>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="subtitle">${escapeHtml(`${report.studies.length} ${report.studies.length === 1 ? 'study' : 'studies'} in ${report.storage}; report of ${utc(report.generatedAt)}`)}</p>`,
  ];
  if (report.studies.length > 0)
    body.push(
      `<nav class="contents">${report.studies
        .map((s, i) => `<a href="#study-${i + 1}">${escapeHtml(s.key)}</a>`)
        .join(' ')}</nav>`,
    );
  body.push('</header>', campaignSection(report));
  report.studies.forEach((study, i) => body.push(studySection(study, i + 1)));
  body.push(
    `<footer>${escapeHtml(`written by tradelab from ${report.storage} at ${utc(report.generatedAt)}`)}</footer>`,
  );
  return htmlPage(title, `${REPORT_CSS}\n${CAMPAIGN_CSS}`, body);
}

// ---------------------------------------------------------------------------------------------
// The campaign: table, facts, diagnosis, throughput, where trial time goes

function campaignSection(report: CampaignReport): string {
  const parts = [
    '<section class="campaign">',
    '<h2>Studies</h2>',
    campaignTable(report),
    '<h2>Facts</h2>',
    facts(report),
    '<h2>Diagnosis</h2>',
    `<ul class="diagnosis">\n${report.diagnosis.map((d) => `<li>${escapeHtml(d)}</li>`).join('\n')}\n</ul>`,
    '<h3>Trials per hour</h3>',
    throughputChart(report),
    '<h3>Where trial time goes</h3>',
    phasesChart(report),
    '</section>',
  ];
  return parts.join('\n');
}

/** The columns of the CLI's `campaign report` table, one row per study and a TOTAL. */
function campaignTable(report: CampaignReport): string {
  const headers = [
    'study',
    'trials',
    'complete',
    'pruned',
    'failed',
    'rate/h',
    'best\n(mean CV Sharpe)',
    'holdout Sharpe',
    'buy & hold',
  ];
  const totalBest = report.total.counts.best;
  // The TOTAL's best is one study's best: name the study, as a trial number alone is ambiguous.
  const bestOwner = report.studies.find((s) => s.counts.best === totalBest)?.key;
  const cells = (
    counts: StudySummary,
    target: number,
    holdout: ReportStudy['holdout'],
    owner?: string,
  ): string[] => [
    `${counts.done}/${target}`,
    String(counts.complete),
    String(counts.pruned),
    String(counts.failed),
    counts.perHour === null ? '-' : counts.perHour.toFixed(1),
    counts.best === undefined || counts.best.value === null
      ? '-'
      : // The study's name on a line of its own: the widest text of the table otherwise.
        `${stat(counts.best.value)} (#${counts.best.number})${owner === undefined ? '' : `\n${owner}`}`,
    holdout === undefined ? '-' : stat(holdout.sharpe),
    holdout === undefined ? '-' : stat(holdout.benchmarkSharpe),
  ];
  const row = (attributes: string, name: string, values: string[]): string =>
    `<tr${attributes}><th scope="row">${escapeHtml(name)}</th>${values.map((v) => `<td class="num">${breakable(v)}</td>`).join('')}</tr>`;
  const rows = [
    ...report.studies.map((s) =>
      row(` data-study="${escapeHtml(s.key)}"`, s.key, cells(s.counts, s.target, s.holdout)),
    ),
    row(
      ' class="total" data-total=""',
      'TOTAL',
      cells(report.total.counts, report.total.target, undefined, bestOwner),
    ),
  ];
  return [
    '<div class="table-wrap"><table data-table="campaign">',
    `<thead><tr>${headers.map((h, i) => `<th scope="col"${i === 0 ? '' : ' class="num"'}>${breakable(h)}</th>`).join('')}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
  ].join('\n');
}

function facts(report: CampaignReport): string {
  const c = report.total.counts;
  const ended = c.complete + c.pruned + c.failed;
  const { phases } = report;
  const time = phases.rollout + phases.update + phases.other;
  const items: [string, string][] = [
    [
      'ended trials',
      ended === 0
        ? 'none yet'
        : `${ended}: ${ratio(c.complete, ended)} complete, ${ratio(c.pruned, ended)} pruned, ${ratio(c.failed, ended)} failed`,
    ],
    [
      'running, waiting',
      `${c.running}, ${report.studies.reduce((n, s) => n + stillWaiting(s), 0)}`,
    ],
    ['mean trial', c.meanDurationMs === null ? '-' : duration(c.meanDurationMs)],
    ['rate', c.perHour === null ? 'no rate yet' : `${c.perHour.toFixed(1)} trials/hour`],
    [
      'trial time',
      phases.trials > 0 && time > 0
        ? `rollout ${ratio(phases.rollout, time)}, update ${ratio(phases.update, time)}, evaluation and setup ${ratio(phases.other, time)} (${plural(phases.trials, 'trial')})`
        : 'no trial recorded its phases yet',
    ],
  ];
  const pruned = Object.entries(report.prunedAfterSplit)
    .map(([split, count]) => [Number(split), count] as const)
    .sort((a, b) => a[0] - b[0]);
  if (pruned.length > 0)
    items.push([
      'pruned after',
      pruned.map(([split, count]) => `split ${split + 1}: ${count}`).join(', '),
    ]);
  const run = report.plan.run;
  if (run !== undefined) items.push(['last run', describeRun(run)]);
  return `<dl class="facts">\n${items.map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`).join('\n')}\n</dl>`;
}

// Round bin widths for the throughput chart, from a second to a month.
const BIN_WIDTHS_MS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
  172_800, 604_800, 2_592_000,
].map((seconds) => seconds * 1000);
const MAX_BINS = 24;
/** Fewer ended trials a bin on average and one bin's rate says more about chance than speed. */
const TRIALS_PER_BIN = 3;

/** The throughput chart's lines: per bin of time, trials ended per hour, stacked by study. */
export interface ThroughputSeries {
  /** Bin edges (ms since the epoch), from the campaign's first trial start to its last end. */
  edges: number[];
  /** The round width of every bin but the last, which may be up to 1.5 times as long. */
  widthMs: number;
  /**
   * One line per study that ended a trial, in the campaign's order, each the sum of its own rate
   * and the lines' before it: the last one is all studies, and no study hides under another.
   */
  lines: { study: string; perHour: number[] }[];
}

/**
 * Trials ended per hour in bins of the campaign's running time. The bins tile the time the table's
 * rate is over (first start to last end) with no partial bin at either end, so the top line
 * averages, weighted by bin length, to the table's TOTAL rate/h; undefined with fewer than two
 * ended trials or no elapsed time.
 */
export function throughputSeries(report: CampaignReport): ThroughputSeries | undefined {
  const ends = report.studies.map((s) =>
    s.trials.filter((t) => isEnded(t) && t.finishedAt !== null).map((t) => t.finishedAt as number),
  );
  const all = ends.flat();
  const first = report.total.counts.firstStart ?? Math.min(...all);
  const last = Math.max(...all);
  if (all.length < 2 || !(last > first)) return undefined;
  const span = last - first;
  const wanted = Math.max(1, Math.min(MAX_BINS, Math.floor(all.length / TRIALS_PER_BIN)));
  const widthMs = BIN_WIDTHS_MS.find((w) => span / w <= wanted) ?? span / wanted;
  const edges = [first];
  while ((edges.at(-1) ?? last) + widthMs < last) edges.push((edges.at(-1) ?? last) + widthMs);
  // A sliver of a last bin would turn one trial into a spike: it joins the bin before.
  if (edges.length > 1 && last - (edges.at(-1) ?? last) < widthMs / 2) edges.pop();
  edges.push(last);
  const bins = edges.length - 1;
  const stacked = new Array<number>(bins).fill(0);
  const lines: ThroughputSeries['lines'] = [];
  report.studies.forEach((study, i) => {
    const times = ends[i] ?? [];
    if (times.length === 0) return; // a study with no ended trial adds nothing
    for (const t of times) {
      let bin = 0;
      while (bin < bins - 1 && t >= (edges[bin + 1] ?? last)) bin++;
      stacked[bin] = (stacked[bin] ?? 0) + 1;
    }
    lines.push({
      study: study.key,
      perHour: stacked.map(
        (count, b) => count / (((edges[b + 1] ?? last) - (edges[b] ?? first)) / 3_600_000),
      ),
    });
  });
  return { edges, widthMs, lines };
}

/** Trials ended per hour over the campaign, stacked by study, beside the table's rate. */
function throughputChart(report: CampaignReport): string {
  const data = throughputSeries(report);
  if (data === undefined)
    return noChart(
      'throughput',
      undefined,
      'No rate over time yet: it needs two ended trials at different times.',
    );
  const { edges, widthMs, lines } = data;
  const series: LineSeries[] = lines.map((line, i) => {
    const x: number[] = [];
    const y: number[] = [];
    line.perHour.forEach((rate, b) => {
      x.push(edges[b] ?? 0, edges[b + 1] ?? 0);
      y.push(rate, rate);
    });
    const top = lines.length > 1 && i === lines.length - 1;
    return { name: `${i === 0 ? '' : '+ '}${line.study}${top ? ' = all studies' : ''}`, x, y };
  });
  const lastWidth = (edges.at(-1) ?? 0) - (edges.at(-2) ?? 0);
  const bins =
    edges.length === 2
      ? `one bin of ${duration(lastWidth)}`
      : `bins of ${duration(widthMs)}${Math.abs(lastWidth - widthMs) > 1 ? ` (the last one ${duration(lastWidth)})` : ''}`;
  const rate = report.total.counts.perHour;
  return figure(
    'throughput',
    undefined,
    renderLineChart({
      series,
      xKind: 'time',
      xLabel: 'time (UTC)',
      yLabel: 'trials/hour',
      yMin: 0,
      height: 280,
    }),
    `Trials that ended (complete, pruned or failed) per hour, in ${bins} from the first trial's start to the last one's end${
      lines.length > 1
        ? ', stacked: each line adds one study to the ones below it, and the top line is all studies'
        : ''
    }.${rate === null ? '' : ` Over the whole campaign: ${rate.toFixed(1)} trials/hour, the table's TOTAL rate/h.`}`,
  );
}

/** Where the ended trials' time went: rollout, update and the rest, as shares. */
function phasesChart(report: CampaignReport): string {
  const { phases } = report;
  const time = phases.rollout + phases.update + phases.other;
  if (phases.trials === 0 || !(time > 0))
    return noChart('phases', undefined, 'No trial has recorded where its time went yet.');
  return figure(
    'phases',
    undefined,
    renderBarChart({
      bars: [
        { label: 'rollout', value: (phases.rollout / time) * 100, color: '#2f6fdf' },
        { label: 'update', value: (phases.update / time) * 100, color: '#e8730c' },
        { label: 'evaluation and setup', value: (phases.other / time) * 100, color: '#8c8c8c' },
      ],
      unit: '%',
      decimals: 1,
    }),
    `Share of the ${phases.trials} ended trials' time (${duration((time / phases.trials) * 1000)} a trial on average).`,
  );
}

// ---------------------------------------------------------------------------------------------
// One study

function studySection(study: ReportStudy, index: number): string {
  const data = ` data-study="${escapeHtml(study.key)}"`;
  const about = [
    `preset ${study.preset}`,
    `stored as ${study.study}`,
    study.state,
    `${study.counts.done} of ${plural(study.target, 'trial')} done`,
    study.splits > 0 ? `${plural(study.splits, 'split')} a trial` : undefined,
  ].filter((s) => s !== undefined);
  return [
    `<section class="study" id="study-${index}"${data}>`,
    `<h2>${escapeHtml(study.key)}</h2>`,
    `<p class="subtitle">${escapeHtml(about.join(' · '))}</p>`,
    '<h3>Optimization history</h3>',
    historyChart(study),
    '<h3>Trials by state</h3>',
    statesChart(study),
    '<h3>Parameter importance</h3>',
    importanceChart(study),
    '<h3>Sharpe by split</h3>',
    splitsChart(study),
    '<h3>Best trial on the holdout</h3>',
    holdoutChart(study),
    '</section>',
  ].join('\n');
}

/** Each complete trial's value by trial number, as dots, and the best so far, as a step line. */
function historyChart(study: ReportStudy): string {
  const complete = study.trials
    .filter((t) => t.state === 'complete' && t.value !== null && Number.isFinite(t.value))
    .sort((a, b) => a.number - b.number);
  if (complete.length === 0)
    return noChart(
      'history',
      study.key,
      'No complete trial yet: the history starts with the first one.',
    );
  const maximize = study.direction === 'maximize';
  // A gap after each point makes each one a lone point, which the line chart draws as a dot.
  const dots = { x: [] as number[], y: [] as number[] };
  const best = { x: [] as number[], y: [] as number[] };
  let bestValue: number | undefined;
  for (const t of complete) {
    const value = t.value as number;
    dots.x.push(t.number, Number.NaN);
    dots.y.push(value, Number.NaN);
    const better = bestValue === undefined || (maximize ? value > bestValue : value < bestValue);
    if (bestValue !== undefined) {
      // The step: the old best up to this trial, then the new one.
      best.x.push(t.number);
      best.y.push(bestValue);
    }
    if (better) bestValue = value;
    best.x.push(t.number);
    best.y.push(bestValue ?? value);
  }
  const top = study.counts.best;
  return figure(
    'history',
    study.key,
    renderLineChart({
      series: [
        { name: 'trial value', ...dots, color: '#2f6fdf' },
        { name: 'best so far', ...best, color: '#e8730c' },
      ],
      xKind: 'integer',
      xLabel: 'trial',
      yLabel: 'mean CV Sharpe',
      height: 280,
    }),
    `${plural(complete.length, 'complete trial')}${
      top === undefined || top.value === null
        ? ''
        : `; best ${stat(top.value)} at trial #${top.number}`
    } (${maximize ? 'higher' : 'lower'} is better).${
      study.counts.pruned === 0
        ? ''
        : ` ${study.counts.pruned === 1 ? 'The pruned trial is' : `The ${study.counts.pruned} pruned trials are`} not drawn: ${PRUNED_VALUE_MEANING}.`
    }`,
  );
}

const STATE_COLORS = {
  complete: '#2a9d4b',
  pruned: '#e8730c',
  failed: '#c43c5c',
  running: '#2f6fdf',
  waiting: '#8c8c8c',
} as const;

function statesChart(study: ReportStudy): string {
  const c = { ...study.counts, waiting: stillWaiting(study) };
  const bars: Bar[] = (['complete', 'pruned', 'failed', 'running', 'waiting'] as const).map(
    (state) => ({ label: state, value: c[state], color: STATE_COLORS[state] }),
  );
  const unneeded = study.counts.waiting - c.waiting;
  if (bars.every((b) => b.value === 0))
    return noChart(
      'states',
      study.key,
      study.state === 'pending'
        ? 'No trials yet: the study starts once its source has enough complete trials.'
        : 'No trials yet.',
    );
  return figure(
    'states',
    study.key,
    renderBarChart({ bars }),
    `Failed trials that were retried count once, as their retry.${
      unneeded === 0
        ? ''
        : ` ${unneeded === 1 ? 'One enqueued trial' : `${unneeded} enqueued trials`} never ran: the study reached its target first.`
    }`,
  );
}

/**
 * The study's trials that will still run: none once it is done. A fine-tuning study enqueues its
 * source's best trials, and those its target did not need stay stored as waiting.
 */
function stillWaiting(study: ReportStudy): number {
  return study.state === 'done' ? 0 : study.counts.waiting;
}

function importanceChart(study: ReportStudy): string {
  const result = paramImportance(study.trials, { seed: IMPORTANCE_SEED });
  const fixed =
    result.fixed.length === 0
      ? ''
      : ` Left out, one value in every trial: ${result.fixed.join(', ')}.`;
  if (result.reason !== undefined)
    return noChart('importance', study.key, `No parameter importance: ${result.reason}.${fixed}`);
  return figure(
    'importance',
    study.key,
    renderBarChart({
      bars: result.params.map((p) => ({ label: p.param, value: p.share * 100 })),
      unit: '%',
      decimals: 1,
    }),
    `From ${result.trials} complete trials${result.trials < FEW_TRIALS ? ' (few: read the ranking as a hint)' : ''}: ${PARAM_IMPORTANCE_METHOD}, as shares of the total.${fixed}`,
  );
}

/** The Sharpe of each split of each trial that reached one: rows trials, columns splits. */
function splitsChart(study: ReportStudy): string {
  const rows = study.trials
    .filter((t) => t.splitSharpes.some((s) => s !== null))
    .sort((a, b) => a.number - b.number);
  const columns = Math.max(study.splits, ...rows.map((t) => t.splitSharpes.length));
  if (rows.length === 0 || columns === 0)
    return noChart('splits', study.key, 'No trial has finished a split yet.');
  const pruned = rows.filter((t) => t.state === 'pruned').length;
  const columnLabels = Array.from({ length: columns }, (_, c) => `split ${c + 1}`);
  return figure(
    'splits',
    study.key,
    renderHeatmap({
      rowLabels: rows.map((t) => `#${t.number}`),
      columnLabels,
      values: rows.map((t) => Array.from({ length: columns }, (_, c) => t.splitSharpes[c] ?? null)),
      cellTitle: (r, c, value) => {
        const t = rows[r] as ReportTrial;
        const where = `trial #${t.number} (${t.state}), split ${c + 1}`;
        if (value !== null) return `${where}: Sharpe ${stat(value)}`;
        return t.state === 'pruned' && t.prunedAfterSplit !== null && c > t.prunedAfterSplit
          ? `${where}: not run, pruned after split ${t.prunedAfterSplit + 1}`
          : `${where}: no result`;
      },
    }),
    `Sharpe ratio of each trial (rows) on each cross-validation split (columns); blue above zero, orange below.${
      pruned > 0 ? ` Empty cells are splits that the ${pruned} pruned trials never ran.` : ''
    }`,
  );
}

function holdoutChart(study: ReportStudy): string {
  const holdout = study.holdout;
  if (holdout === undefined)
    return noChart(
      'holdout',
      study.key,
      'No holdout result in this report: the study has no complete trial yet, or the report was made without the holdout evaluation.',
    );
  const { times, strategy, benchmark } = holdout.equity;
  if (times.length === 0 || strategy.length !== times.length || benchmark.length !== times.length)
    return noChart(
      'holdout',
      study.key,
      `The holdout evaluation of trial #${holdout.trial} has no equity curve to draw (${times.length} times, ${strategy.length} and ${benchmark.length} values).`,
    );
  const start = strategy[0];
  return figure(
    'holdout',
    study.key,
    renderLineChart({
      series: [
        { name: `best trial #${holdout.trial}`, x: times, y: strategy },
        { name: 'buy-and-hold', x: times, y: benchmark, dash: '6 4' },
      ],
      xKind: 'time',
      xLabel: 'time (UTC)',
      yLabel: 'equity',
      ...(start !== undefined && Number.isFinite(start)
        ? { referenceLine: { y: start, label: 'start' } }
        : {}),
      height: 300,
    }),
    [
      `On the holdout: Sharpe ${stat(holdout.sharpe)} against ${stat(holdout.benchmarkSharpe)} for buy-and-hold; return ${signedPercent(holdout.totalReturn)} against ${signedPercent(holdout.benchmarkReturn)}.`,
      ...(holdout.findings ?? []).map(
        (f) =>
          `${f.severity === 'warning' ? 'Warning: ' : ''}${f.text}${f.advice === undefined ? '' : ` Try: ${f.advice}.`}`,
      ),
    ].join(' '),
  );
}

// ---------------------------------------------------------------------------------------------
// Helpers

function figure(
  kind: CampaignChartKind,
  study: string | undefined,
  chart: SvgMarkup,
  caption: string,
): string {
  return [
    `<figure class="chart" data-chart="${kind}"${studyAttribute(study)}>`,
    chart,
    `<figcaption>${escapeHtml(caption)}</figcaption>`,
    '</figure>',
  ].join('\n');
}

function noChart(kind: CampaignChartKind, study: string | undefined, sentence: string): string {
  return `<p class="no-chart" data-chart="${kind}"${studyAttribute(study)}>${escapeHtml(sentence)}</p>`;
}

/**
 * Escaped text that may wrap after an underscore (and does at a line break): the presets' names
 * (`ensemble_conservative`) are the table's widest words, and would otherwise widen it past its
 * column.
 */
function breakable(text: string): string {
  return escapeHtml(text).replaceAll('_', '_<wbr>').replaceAll('\n', '<br>');
}

function studyAttribute(study: string | undefined): string {
  return study === undefined ? '' : ` data-study="${escapeHtml(study)}"`;
}

function isEnded(t: ReportTrial): boolean {
  return t.state === 'complete' || t.state === 'pruned' || t.state === 'fail';
}

/** A statistic such as a Sharpe ratio: four significant digits, at most. */
function stat(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  if (Math.abs(x) >= 10_000) return Math.round(x).toLocaleString('en-US');
  if (Math.abs(x) < 1e-3) return x.toExponential(2);
  return String(Number(x.toPrecision(4)));
}

function ratio(n: number, d: number): string {
  return d === 0 ? '-' : `${Math.round((n / d) * 100)}%`;
}

function signedPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '-';
  const value = (fraction * 100).toFixed(1);
  return `${fraction > 0 ? '+' : ''}${value}%`;
}

/** A duration in ms as people say it: 850 ms, 42.3 s, 3 min 20 s, 2 h 05 min, 3 d 4 h. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60)
    return `${minutes} min${seconds % 60 >= 1 ? ` ${Math.floor(seconds % 60)} s` : ''}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24)
    return `${hours} h${minutes % 60 > 0 ? ` ${String(minutes % 60).padStart(2, '0')} min` : ''}`;
  return `${Math.floor(hours / 24)} d${hours % 24 > 0 ? ` ${hours % 24} h` : ''}`;
}

/** A time as `2025-01-02 03:04 UTC`. */
function utc(ms: number): string {
  return Number.isFinite(ms)
    ? `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
    : '-';
}

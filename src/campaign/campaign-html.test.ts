import { describe, expect, it } from 'vitest';
import { trialRecord, type StudyRecord, type TrialRecord } from '../storage/records.js';
import type { CampaignPlan } from './campaign-file.js';
import { renderCampaignHtml } from './campaign-html.js';
import { buildCampaignReport, type CampaignReport } from './campaign-report.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 2, 1, 8);

/** A stored study of the campaign, with 4-fold cross-validation. */
const study = (id: number, name: string): StudyRecord => ({
  id,
  name,
  direction: 'maximize',
  userAttrs: {},
  systemAttrs: { drl: { cv: { method: 'kfold', k: 4 } } },
  createdAt: T0,
});

/** An ended trial of study `studyId`: its splits' Sharpe ratios and phases as a run records them. */
function ended(
  studyId: number,
  number: number,
  state: 'complete' | 'pruned' | 'fail',
  params: TrialRecord['params'],
  sharpes: number[],
): TrialRecord {
  const startedAt = T0 + number * 0.2 * HOUR;
  const mean = sharpes.reduce((s, v) => s + v, 0) / Math.max(1, sharpes.length);
  return trialRecord({
    number,
    studyId,
    state,
    params,
    value: state === 'fail' ? null : mean,
    createdAt: startedAt,
    startedAt,
    finishedAt: startedAt + 0.15 * HOUR,
    userAttrs: {
      splits: sharpes.map((sharpe, split) => ({ split, sharpe })),
      ...(state === 'pruned' ? { prunedAfterSplit: sharpes.length - 1 } : {}),
      rolloutSeconds: 200,
      updateSeconds: 300,
    },
  });
}

/**
 * Study "alpha": eight complete trials whose Sharpe follows netDim, two pruned after split 1 and
 * 2, one failed, one running; study "beta <fine-tune>": not started. Names with markup test the
 * escaping.
 */
function report(): CampaignReport {
  const alpha: TrialRecord[] = [];
  for (let n = 0; n < 8; n++) {
    const netDim = [16, 32, 64, 128][n % 4] ?? 16;
    const base = netDim / 64 - 0.5;
    alpha.push(
      ended(1, n, 'complete', { netDim, gamma: 0.9 + 0.01 * ((n * 3) % 8), act: 'tanh' }, [
        base + 0.1,
        base - 0.05,
        base + 0.2,
        base,
      ]),
    );
  }
  alpha.push(ended(1, 8, 'pruned', { netDim: 16, gamma: 0.95, act: 'tanh' }, [-0.8]));
  alpha.push(ended(1, 9, 'pruned', { netDim: 16, gamma: 0.91, act: 'tanh' }, [-0.6, -0.9]));
  alpha.push(ended(1, 10, 'fail', { netDim: 32, gamma: 0.92, act: 'tanh' }, []));
  alpha.push(trialRecord({ number: 11, studyId: 1, state: 'running', createdAt: T0 + 3 * HOUR }));
  const plan: CampaignPlan = {
    version: 1,
    name: 'spring <test>',
    file: '/tmp/spring.yaml',
    data: 'SYN0:1h',
    workers: 2,
    studies: [
      {
        key: 'alpha',
        study: 'spring.alpha',
        preset: 'ensemble_balanced',
        trials: 20,
        weight: 1,
        from: null,
        after: 0,
      },
      {
        key: 'beta <fine-tune>',
        study: 'spring.beta',
        preset: 'ft_small',
        trials: 5,
        weight: 1,
        from: 'alpha',
        after: 10,
      },
    ],
    run: { workers: 2, cores: 2, why: 'cores', profile: 'cpu' },
  };
  const equityTimes = Array.from({ length: 50 }, (_, i) => T0 + 24 * HOUR + i * HOUR);
  return buildCampaignReport({
    storage: 'sqlite:/tmp/t.db',
    plan,
    now: T0 + 4 * HOUR,
    studies: [
      {
        record: study(1, 'spring.alpha'),
        trials: alpha,
        holdout: {
          trial: 3,
          sharpe: 1.234,
          benchmarkSharpe: 0.4,
          totalReturn: 0.125,
          benchmarkReturn: -0.031,
          equity: {
            times: equityTimes,
            strategy: equityTimes.map((_, i) => 1 + 0.003 * i),
            benchmark: equityTimes.map((_, i) => 1 - 0.0006 * i),
          },
          findings: [
            { kind: 'ahead-of-benchmark', severity: 'info', text: 'Ahead of buy-and-hold.' },
            {
              kind: 'extreme-turnover',
              severity: 'warning',
              text: 'The book was traded 812× a year.',
              advice: 'trade less',
            },
          ],
        },
      },
      { record: undefined, trials: [] },
    ],
  });
}

/** The figures of the page: kind and study of each. */
function figures(html: string): { chart: string; study: string | undefined }[] {
  return [
    ...html.matchAll(/<figure class="chart" data-chart="([a-z]+)"(?: data-study="([^"]*)")?>/g),
  ].map((m) => ({ chart: m[1] ?? '', study: m[2] }));
}

/** The sentences standing in for charts without data. */
function notes(html: string): { chart: string; study: string | undefined; text: string }[] {
  return [
    ...html.matchAll(
      /<p class="no-chart" data-chart="([a-z]+)"(?: data-study="([^"]*)")?>([^<]*)<\/p>/g,
    ),
  ].map((m) => ({ chart: m[1] ?? '', study: m[2], text: m[3] ?? '' }));
}

/** The part of the page between two markers. */
function between(html: string, from: string, to: string): string {
  const start = html.indexOf(from);
  const end = html.indexOf(to, start + from.length);
  expect(start, from).toBeGreaterThanOrEqual(0);
  return html.slice(start, end < 0 ? undefined : end);
}

describe('renderCampaignHtml', () => {
  const html = renderCampaignHtml(report());

  it('is one self-contained page: inline style, no script, nothing to fetch', () => {
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toMatch(/<style>[\s\S]*figure\.chart[\s\S]*<\/style>/);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(|@import/i);
    // The only absolute URL is the SVG namespace, which browsers never fetch.
    const urls = [...html.matchAll(/https?:\/\/[^"'\s<>]+/g)].map((m) => m[0]);
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg']));
    expect(html).not.toMatch(/NaN|Infinity/);
  });

  it('has the CLI table: one row per study, then TOTAL', () => {
    const table = between(html, '<table data-table="campaign">', '</table>');
    const rows = [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
      // A cell's text as read: a line break a space, a break opportunity nothing.
      [...(m[1] ?? '').matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) =>
        (c[1] ?? '').replaceAll('<br>', ' ').replaceAll('<wbr>', ''),
      ),
    );
    expect(rows[0]).toEqual([
      'study',
      'trials',
      'complete',
      'pruned',
      'failed',
      'rate/h',
      'best (mean CV Sharpe)',
      'holdout Sharpe',
      'buy &amp; hold',
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['alpha', 'beta &lt;fine-tune&gt;', 'TOTAL']);
    const [alpha, beta, total] = rows.slice(1);
    expect(alpha?.slice(1, 5)).toEqual(['11/20', '8', '2', '1']);
    expect(alpha?.[6]).toBe('1.563 (#3)');
    expect(alpha?.slice(7)).toEqual(['1.234', '0.4']);
    expect(beta?.slice(1)).toEqual(['0/5', '0', '0', '0', '-', '-', '-', '-']);
    expect(total?.[1]).toBe('11/25');
    expect(total?.[6]).toBe('1.563 (#3) alpha');
    expect(table).toContain('<tr class="total" data-total="">');
  });

  it('lists the facts and every diagnosis line', () => {
    const facts = between(html, '<dl class="facts">', '</dl>');
    expect(facts).toContain('<dd>11: 73% complete, 18% pruned, 9% failed</dd>');
    expect(facts).toContain('<dt>mean trial</dt><dd>9 min</dd>');
    expect(facts).toContain('rollout 37%, update 56%, evaluation and setup 7% (11 trials)');
    expect(facts).toContain('<dd>split 1: 1, split 2: 1</dd>');
    expect(facts).toContain('2 workers on 2 cores, profile cpu');
    const diagnosis = between(html, '<ul class="diagnosis">', '</ul>');
    expect(diagnosis.match(/<li>/g)).toHaveLength(report().diagnosis.length);
    expect(diagnosis).toContain('beta &lt;fine-tune&gt; has not started');
  });

  it('draws every chart of a study with data, and says why for the one without', () => {
    expect(figures(html)).toEqual([
      { chart: 'throughput', study: undefined },
      { chart: 'phases', study: undefined },
      { chart: 'history', study: 'alpha' },
      { chart: 'states', study: 'alpha' },
      { chart: 'importance', study: 'alpha' },
      { chart: 'splits', study: 'alpha' },
      { chart: 'holdout', study: 'alpha' },
    ]);
    const beta = notes(html).filter((n) => n.study === 'beta &lt;fine-tune&gt;');
    expect(beta.map((n) => n.chart)).toEqual([
      'history',
      'states',
      'importance',
      'splits',
      'holdout',
    ]);
    expect(beta.find((n) => n.chart === 'importance')?.text).toBe(
      'No parameter importance: 0 complete trials; parameter importance needs at least 5.',
    );
    expect(beta.find((n) => n.chart === 'states')?.text).toMatch(/starts once its source/);
    // No empty axes anywhere: a chart's own "no data" frame never appears.
    expect(html).not.toContain('>no data</text>');
  });

  it('ranks the parameter the Sharpe follows first, naming the fixed one', () => {
    const importance = between(html, 'data-chart="importance" data-study="alpha"', '</figure>');
    const labels = [...importance.matchAll(/class="bar"[^>]*data-label="([^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(labels).toEqual(['netDim', 'gamma']);
    expect(importance).toContain('Left out, one value in every trial: act.');
    expect(importance).toContain(
      'From 8 complete trials (few: read the ranking as a hint): permutation importance',
    );
  });

  it("shows a pruned trial's splits it never ran as empty cells", () => {
    const splits = between(html, 'data-chart="splits" data-study="alpha"', '</figure>');
    // Rows: the eight complete trials and the two pruned ones (the failed one ran no split).
    expect(splits.match(/<rect class="cell[ "]/g)).toHaveLength(10 * 4);
    expect(splits.match(/<rect class="cell empty"/g)).toHaveLength(3 + 2);
    expect(splits).toContain('trial #8 (pruned), split 2: not run, pruned after split 1');
    expect(splits).toContain('trial #9 (pruned), split 2: Sharpe -0.9');
  });

  it('plots the history as dots with a best-so-far line, and the holdout against buy-and-hold', () => {
    const history = between(html, 'data-chart="history" data-study="alpha"', '</figure>');
    expect(history.match(/<circle /g)).toHaveLength(8);
    expect(history).toMatch(/<g class="series" data-name="best so far">\s*<path d="M/);
    expect(history).toContain('8 complete trials; best 1.563 at trial #3 (higher is better).');
    const holdout = between(html, 'data-chart="holdout" data-study="alpha"', '</figure>');
    expect(holdout).toContain('data-name="best trial #3"');
    expect(holdout).toContain('data-name="buy-and-hold"');
    expect(holdout).toContain(
      'Sharpe 1.234 against 0.4 for buy-and-hold; return +12.5% against -3.1%',
    );
    // The verdict follows: the comparison, then each warning with what to try.
    expect(holdout).toContain(
      'Ahead of buy-and-hold. Warning: The book was traded 812× a year. Try: trade less.',
    );
  });

  it('escapes every text it is given', () => {
    expect(html).toContain('<title>Campaign spring &lt;test&gt;</title>');
    expect(html).not.toContain('<test>');
    expect(html).not.toContain('<fine-tune>');
  });

  it('renders the same page for the same report', () => {
    expect(renderCampaignHtml(report())).toBe(html);
  });

  it('draws no chart for a campaign with nothing run yet', () => {
    const full = report();
    const empty = renderCampaignHtml({
      ...full,
      studies: full.studies.slice(1),
      phases: { rollout: 0, update: 0, other: 0, trials: 0 },
    });
    expect(figures(empty)).toEqual([]);
    expect(notes(empty).map((n) => n.chart)).toEqual([
      'throughput',
      'phases',
      'history',
      'states',
      'importance',
      'splits',
      'holdout',
    ]);
  });
});

describe("the report's diagnosis", () => {
  /** A one-study report of one trial of 1,000 s whose rollout and update took these seconds. */
  const oneTrial = (rolloutSeconds: number, updateSeconds: number): CampaignReport =>
    buildCampaignReport({
      storage: 'sqlite:/tmp/t.db',
      plan: {
        version: 1,
        name: 'phases',
        file: '/tmp/phases.yaml',
        data: 'SYN0:1h',
        workers: 1,
        studies: [
          {
            key: 'alpha',
            study: 'phases.alpha',
            preset: 'ensemble_balanced',
            trials: 1,
            weight: 1,
            from: null,
            after: 0,
          },
        ],
      },
      now: T0 + HOUR,
      studies: [
        {
          record: study(1, 'phases.alpha'),
          trials: [
            trialRecord({
              number: 0,
              studyId: 1,
              state: 'complete',
              value: 0.5,
              createdAt: T0,
              startedAt: T0,
              finishedAt: T0 + 1_000_000,
              userAttrs: { rolloutSeconds, updateSeconds },
            }),
          ],
        },
      ],
    });

  it('decides on the shares it prints: 29.6% and 30.4% both read "30%", and both get its line', () => {
    for (const rollout of [204, 196]) {
      const { diagnosis } = oneTrial(rollout, 500);
      expect(diagnosis.join('\n'), `rollout ${rollout} s`).toContain(
        '30% of trial time is neither rollout nor update',
      );
    }
    expect(oneTrial(210, 500).diagnosis.join('\n')).not.toContain('neither rollout nor update');
  });
});

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignPlan } from '../src/campaign/campaign-file.js';
import { renderCampaignHtml, throughputSeries } from '../src/campaign/campaign-html.js';
import { buildCampaignReport, type CampaignReport } from '../src/campaign/campaign-report.js';
import { Rng } from '../src/core/index.js';
import { trialRecord, type StudyRecord, type TrialRecord } from '../src/storage/records.js';
import { PRUNED_VALUE_MEANING } from '../src/tune/index.js';
import { launchChromium, skipWithoutChromium } from './support/chromium.js';
import { measureCharts, type PageElement } from './support/page-charts.js';
import { tempDir } from './support/temp-dir.js';

/*
 * The campaign's HTML report opened in a real Chromium: it loads without a console error or a
 * single request beyond the file itself, every chart it has drawn shows data (lines with extent,
 * bars with width, heatmap cells with a fill), and the table has a row per study and a TOTAL. A
 * full-page screenshot goes to test-output/campaign-report.png for a person to look at. The
 * campaign is built in-process from stored-trial records as a run writes them, seeded.
 */

const skip = skipWithoutChromium('campaign-html-browser.test.ts');
const SCREENSHOT = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../test-output/campaign-report.png',
);

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 4, 12, 9);

/** A trading study's stored record with the given cross-validation. */
function studyRecord(id: number, name: string, cv: object): StudyRecord {
  return {
    id,
    name,
    direction: 'maximize',
    userAttrs: {},
    systemAttrs: { drl: { cv } },
    createdAt: T0,
  };
}

/**
 * `count` trials of study `studyId` over `splits` splits, two workers at a time from `start`: the
 * Sharpe ratio of each split rises with the learning rate toward 3e-4 and with netDim, plus noise;
 * a trial whose first splits fall below the running median is pruned; a few fail.
 */
function trials(studyId: number, count: number, splits: number, start: number, seed: number) {
  const rng = new Rng(seed);
  const out: TrialRecord[] = [];
  const firstSplits: number[] = [];
  const workerFree = [start, start];
  for (let number = 0; number < count; number++) {
    const worker = (workerFree[0] ?? 0) <= (workerFree[1] ?? 0) ? 0 : 1;
    const startedAt = workerFree[worker] ?? start;
    const learningRate = 10 ** (-5 + 2.5 * rng.uniform());
    const netDim = [32, 64, 128][Math.floor(rng.uniform() * 3)] ?? 64;
    const gamma = 0.95 + 0.049 * rng.uniform();
    const params = { learningRate, netDim, gamma, activation: 'tanh' };
    const skill = 1.2 - 0.9 * Math.abs(Math.log10(learningRate / 3e-4)) + (netDim - 64) / 256;
    const sharpes: number[] = [];
    let state: 'complete' | 'pruned' | 'fail' = 'complete';
    for (let s = 0; s < splits; s++) {
      sharpes.push(skill + 0.4 * rng.normal());
      if (s === 1 && number >= 4) {
        const sorted = [...firstSplits].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
        const mean = ((sharpes[0] ?? 0) + (sharpes[1] ?? 0)) / 2;
        firstSplits.push(mean);
        if (mean < median) {
          state = 'pruned';
          break;
        }
      } else if (s === 1) firstSplits.push(((sharpes[0] ?? 0) + (sharpes[1] ?? 0)) / 2);
    }
    if (number % 11 === 7) {
      state = 'fail';
      sharpes.length = 0;
    }
    const rolloutSeconds = 60 * sharpes.length * (0.8 + 0.4 * rng.uniform());
    const updateSeconds = 110 * sharpes.length * (0.8 + 0.4 * rng.uniform());
    const seconds = state === 'fail' ? 20 : rolloutSeconds + updateSeconds + 25 * sharpes.length;
    const finishedAt = startedAt + seconds * 1000;
    workerFree[worker] = finishedAt;
    out.push(
      trialRecord({
        number,
        studyId,
        state,
        params,
        value: state === 'fail' ? null : sharpes.reduce((sum, v) => sum + v, 0) / sharpes.length,
        createdAt: startedAt,
        startedAt,
        finishedAt,
        userAttrs: {
          splits: sharpes.map((sharpe, split) => ({ split, sharpe })),
          ...(state === 'pruned' ? { prunedAfterSplit: sharpes.length - 1 } : {}),
          ...(state === 'fail' ? {} : { rolloutSeconds, updateSeconds }),
        },
      }),
    );
  }
  return out;
}

/** An hourly holdout: the best trial's equity and buy-and-hold's, both from 1. */
function holdout(
  trial: number,
  seed: number,
  sharpe: number,
): NonNullable<CampaignReport['studies'][0]['holdout']> {
  const rng = new Rng(seed);
  const times: number[] = [];
  const strategy: number[] = [1];
  const benchmark: number[] = [1];
  for (let i = 0; i < 720; i++) {
    times.push(T0 + 30 * 24 * HOUR + i * HOUR);
    if (i === 0) continue;
    const market = 0.004 * rng.normal();
    benchmark.push((benchmark.at(-1) ?? 1) * (1 + market));
    strategy.push((strategy.at(-1) ?? 1) * (1 + 0.6 * market + 0.0003 + 0.002 * rng.normal()));
  }
  return {
    trial,
    sharpe,
    benchmarkSharpe: 0.52,
    totalReturn: (strategy.at(-1) ?? 1) - 1,
    benchmarkReturn: (benchmark.at(-1) ?? 1) - 1,
    equity: { times, strategy, benchmark },
  };
}

function campaign(): CampaignReport {
  const balanced = trials(1, 36, 6, T0, 11);
  const aggressive = trials(2, 24, 3, T0 + 0.5 * HOUR, 12);
  const ft = trials(3, 4, 3, T0 + 4 * HOUR, 13);
  const best = (list: TrialRecord[]): number =>
    [...list]
      .filter((t) => t.state === 'complete')
      .sort((a, b) => (b.value ?? 0) - (a.value ?? 0))[0]?.number ?? 0;
  const plan: CampaignPlan = {
    version: 1,
    name: 'may',
    file: '/srv/campaigns/may.yaml',
    data: 'BTC,ETH:1h',
    workers: 'auto',
    studies: [
      {
        key: 'balanced',
        study: 'may.balanced',
        preset: 'ensemble_balanced',
        trials: 40,
        weight: 2,
        from: null,
        after: 0,
      },
      {
        key: 'aggressive',
        study: 'may.aggressive',
        preset: 'ensemble_aggressive',
        trials: 30,
        weight: 1,
        from: null,
        after: 0,
      },
      {
        key: 'ft',
        study: 'may.ft',
        preset: 'ft_small',
        trials: 10,
        weight: 1,
        from: 'balanced',
        after: 20,
      },
      {
        key: 'ft_late',
        study: 'may.ft_late',
        preset: 'ft_small',
        trials: 10,
        weight: 1,
        from: 'aggressive',
        after: 30,
      },
    ],
    run: {
      workers: 2,
      why: 'memory fits 3, 2 cores',
      limitedBy: 'cores',
      cores: 2,
      profile: 'cpu',
    },
  };
  return buildCampaignReport({
    storage: 'sqlite:/srv/campaigns/may.db',
    plan,
    now: T0 + 8 * HOUR,
    studies: [
      {
        record: studyRecord(1, 'may.balanced', { method: 'cpcv', groups: 4, testGroups: 2 }),
        trials: balanced,
        holdout: holdout(best(balanced), 21, 1.41),
      },
      {
        record: studyRecord(2, 'may.aggressive', { method: 'walk-forward', folds: 3 }),
        trials: aggressive,
        holdout: holdout(best(aggressive), 22, 0.87),
      },
      { record: studyRecord(3, 'may.ft', { method: 'walk-forward', folds: 3 }), trials: ft },
      { record: undefined, trials: [] },
    ],
  });
}

/** Runs in the page: the campaign table's rows, as the text of their cells. */
function tableRows(): string[][] {
  const doc = (globalThis as unknown as { document: PageElement }).document;
  return Array.from(doc.querySelectorAll('table[data-table="campaign"] tbody tr'), (row) =>
    Array.from(row.querySelectorAll('th, td'), (cell) => (cell.textContent ?? '').trim()),
  );
}

/** Runs in the page: the charts written as sentences, as `chart/study`. */
function noChartNotes(): string[] {
  const doc = (globalThis as unknown as { document: PageElement }).document;
  return Array.from(
    doc.querySelectorAll('p.no-chart'),
    (p) => `${p.getAttribute('data-chart') ?? ''}/${p.getAttribute('data-study') ?? ''}`,
  );
}

describe.skipIf(skip)('the campaign HTML report in Chromium', () => {
  const dir = tempDir('tradelab-campaign-html-');
  const report = campaign();
  const file = join(dir, 'may.html');
  let browser: Browser | undefined;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    writeFileSync(file, renderCampaignHtml(report));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads with no console error and no request but the file itself', () => {
    expect(problems).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
  });

  it('has a table row per study and a TOTAL', async () => {
    const rows = await page.evaluate(tableRows);
    expect(rows.map((r) => r[0])).toEqual([...report.studies.map((s) => s.key), 'TOTAL']);
    expect(rows.every((r) => r.length === 9)).toBe(true);
    expect(rows.at(-1)?.[1]).toBe(`${report.total.counts.done}/${report.total.target}`);
  });

  it('draws data in every chart, and a sentence where there is none', async () => {
    const charts = await page.evaluate(measureCharts);
    const kinds = (study: string | null): string[] =>
      charts.filter((c) => c.study === study).map((c) => c.chart);
    expect(kinds(null)).toEqual(['throughput', 'phases']);
    for (const study of ['balanced', 'aggressive'])
      expect(kinds(study)).toEqual(['history', 'states', 'importance', 'splits', 'holdout']);
    // ft has four trials: too few for importance, and no holdout in this report.
    expect(kinds('ft')).toEqual(['history', 'states', 'splits']);
    expect(kinds('ft_late')).toEqual([]);

    for (const chart of charts) {
      const what = `${chart.chart} of ${chart.study ?? 'the campaign'}`;
      expect(chart.height, what).toBeGreaterThan(80);
      switch (chart.chart) {
        case 'history':
          expect(chart.dots, what).toBeGreaterThan(0);
          expect(chart.lines, what).toBe(1); // the best so far
          break;
        case 'throughput':
          // One line per study that has ended a trial (ft_late has not), stacked: the top one
          // is all of them.
          expect(chart.lines, what).toBe(3);
          break;
        case 'holdout':
          expect(chart.lines, what).toBe(2);
          break;
        case 'states':
        case 'importance':
        case 'phases':
          expect(chart.bars, what).toBeGreaterThan(0);
          break;
        case 'splits':
          expect(chart.filledCells, what).toBeGreaterThan(0);
          break;
        default:
          throw new Error(`unexpected chart kind ${what}`);
      }
    }
    // The pruned trials' splits they never ran are there, empty.
    const balancedSplits = charts.find((c) => c.chart === 'splits' && c.study === 'balanced');
    expect(balancedSplits?.emptyCells).toBeGreaterThan(0);

    expect(await page.evaluate(noChartNotes)).toEqual([
      'importance/ft',
      'holdout/ft',
      'history/ft_late',
      'states/ft_late',
      'importance/ft_late',
      'splits/ft_late',
      'holdout/ft_late',
    ]);
  });

  it('saves a full-page screenshot', async () => {
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    const png = await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // A PNG's signature, and an image much taller than the window: the whole page.
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(20)).toBeGreaterThan(3000);
  });
});

/**
 * The quickstart's kind of campaign: the five presets' long names, a few seconds of tiny trials on
 * two workers, the fine-tuning studies done with the enqueued trials they did not need left
 * waiting, holdout Sharpe ratios with four digits before the point.
 */
function shortCampaign(): CampaignReport {
  const keys = [
    'ensemble_balanced',
    'ensemble_aggressive',
    'ensemble_conservative',
    'ft_small',
    'ft_large',
  ];
  const rng = new Rng(5);
  const workerFree = [T0, T0];
  const stored = keys.map((key, i) => {
    const list: TrialRecord[] = [];
    for (let number = 0; number < (i < 3 ? 6 : 3); number++) {
      const worker = (workerFree[0] ?? 0) <= (workerFree[1] ?? 0) ? 0 : 1;
      const startedAt = workerFree[worker] ?? T0;
      const finishedAt = startedAt + 600 + 900 * rng.uniform();
      workerFree[worker] = finishedAt;
      const value = -2 + 3 * rng.uniform();
      list.push(
        trialRecord({
          number,
          studyId: i + 1,
          state: number === 2 ? 'pruned' : 'complete',
          params: { netDim: [32, 64][number % 2] ?? 32, learningRate: 10 ** (-4 - rng.uniform()) },
          value,
          createdAt: startedAt,
          startedAt,
          finishedAt,
          userAttrs: { splits: [{ split: 0, sharpe: value }], rolloutSeconds: 0.1 },
        }),
      );
    }
    if (i >= 3)
      for (const number of [3, 4])
        list.push(trialRecord({ number, studyId: i + 1, state: 'waiting', createdAt: T0 }));
    return list;
  });
  const plan: CampaignPlan = {
    version: 1,
    name: 'quickstart',
    file: '/home/someone/lab/.tradelab/quickstart/campaign.yaml',
    data: 'QS0,QS1,QS2,QS3:1h',
    workers: 'auto',
    studies: keys.map((key, i) => ({
      key,
      study: `quickstart.${key}`,
      preset: key,
      trials: i < 3 ? 6 : 3,
      weight: 1,
      from: i === 3 ? 'ensemble_balanced' : i === 4 ? 'ensemble_aggressive' : null,
      after: i < 3 ? 0 : 6,
    })),
  };
  return buildCampaignReport({
    storage: 'sqlite:/home/someone/lab/.tradelab/quickstart/quickstart.db',
    plan,
    now: T0 + HOUR,
    studies: keys.map((key, i) => ({
      record: studyRecord(i + 1, `quickstart.${key}`, { method: 'cpcv', groups: 4, testGroups: 2 }),
      trials: stored[i] ?? [],
      holdout: { ...holdout(0, 30 + i, 12.9544 - 3.3 * i), benchmarkSharpe: 9.22809 },
    })),
  });
}

/** Runs in the page: the campaign table's box and its wrapper's, and each header cell's. */
function tableBoxes() {
  const doc = (globalThis as unknown as { document: BoxedElement }).document;
  const table = doc.querySelectorAll('table[data-table="campaign"]')[0];
  const wrap = table?.parentElement;
  const box = (e: BoxedElement | null | undefined) => {
    const r = e?.getBoundingClientRect();
    return { left: r?.left ?? NaN, right: r?.right ?? NaN };
  };
  return {
    wrap: {
      ...box(wrap),
      scrollWidth: wrap?.scrollWidth ?? NaN,
      clientWidth: wrap?.clientWidth ?? NaN,
    },
    table: box(table),
    headers: Array.from(table?.querySelectorAll('thead th') ?? [], (th) => ({
      text: (th.textContent ?? '').trim(),
      ...box(th),
    })),
  };
}

/** The little of an element the layout check reads. */
interface BoxedElement {
  querySelectorAll(selector: string): ArrayLike<BoxedElement>;
  getBoundingClientRect(): { left: number; right: number };
  getAttribute(name: string): string | null;
  parentElement: BoxedElement | null;
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
}

/** Runs in the page: the throughput chart's line paths, its caption, and the states bars. */
function throughputAndStates() {
  const doc = (globalThis as unknown as { document: BoxedElement }).document;
  const figure = doc.querySelectorAll('figure[data-chart="throughput"]')[0];
  return {
    paths: Array.from(figure?.querySelectorAll('g.series path') ?? [], (p) => p.getAttribute('d')),
    caption: (figure?.querySelectorAll('figcaption')[0]?.textContent ?? '').trim(),
    waiting: Array.from(
      doc.querySelectorAll('figure[data-chart="states"] rect.bar[data-label="waiting"]'),
      (bar) => Number(bar.getAttribute('data-value')),
    ),
    facts: Array.from(doc.querySelectorAll('dl.facts dt'), (dt) => (dt.textContent ?? '').trim()),
    values: Array.from(doc.querySelectorAll('dl.facts dd'), (dd) => (dd.textContent ?? '').trim()),
  };
}

describe.skipIf(skip)("a short campaign's HTML report in Chromium", () => {
  const dir = tempDir('tradelab-campaign-html-');
  const report = shortCampaign();
  const file = join(dir, 'quickstart.html');
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    writeFileSync(file, renderCampaignHtml(report));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fits the studies table in its column: buy & hold is not clipped', async () => {
    const { wrap, table, headers } = await page.evaluate(tableBoxes);
    expect(wrap.scrollWidth).toBeLessThanOrEqual(wrap.clientWidth);
    expect(table.right).toBeLessThanOrEqual(wrap.right + 0.5);
    const buyAndHold = headers.at(-1);
    expect(buyAndHold?.text).toBe('buy & hold');
    expect(buyAndHold?.right).toBeLessThanOrEqual(wrap.right + 0.5);
  });

  it("draws the trials per hour stacked, one visible line per study, at the table's rate", async () => {
    const { paths, caption } = await page.evaluate(throughputAndStates);
    expect(paths).toHaveLength(5);
    expect(new Set(paths).size).toBe(5); // no study's line lies on another's
    const rate = report.total.counts.perHour ?? Number.NaN;
    expect(caption).toContain(`Over the whole campaign: ${rate.toFixed(1)} trials/hour`);
    const series = throughputSeries(report);
    const top = series?.lines.at(-1)?.perHour ?? [];
    const edges = series?.edges ?? [];
    const trials = top.reduce(
      (sum, perHour, b) => sum + (perHour * ((edges[b + 1] ?? 0) - (edges[b] ?? 0))) / HOUR,
      0,
    );
    const hours = ((edges.at(-1) ?? 0) - (edges[0] ?? 0)) / HOUR;
    expect(trials / hours).toBeCloseTo(rate, 6);
  });

  it("says why the history leaves pruned trials out, in the CLI's words", async () => {
    const caption = await page.textContent(
      'figure[data-chart="history"][data-study="ensemble_balanced"] figcaption',
    );
    expect(caption).toContain(`The pruned trial is not drawn: ${PRUNED_VALUE_MEANING}.`);
  });

  it('puts whole-number ticks on whole-number axes: trial counts and trial numbers', async () => {
    const ticks = await page.evaluate(`Array.from(document.querySelectorAll(
      'figure[data-chart="states"] g[fill-opacity="0.75"] text, figure[data-chart="history"] g[fill-opacity="0.75"]:not([text-anchor]) text'),
      (t) => t.textContent)`);
    expect((ticks as string[]).length).toBeGreaterThan(10);
    expect((ticks as string[]).filter((t) => !/^\d+$/.test(t))).toEqual([]);
  });

  it('counts no waiting trial in a fine-tuning study that is done', async () => {
    const { waiting, facts, values } = await page.evaluate(throughputAndStates);
    expect(waiting).toEqual([0, 0, 0, 0, 0]);
    expect(values[facts.indexOf('running, waiting')]).toBe('0, 0');
  });
});

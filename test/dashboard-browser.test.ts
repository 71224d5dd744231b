import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/server/index.js';
import { PRUNED_VALUE_MEANING } from '../src/tune/index.js';
import { launchChromium, skipWithoutChromium } from './support/chromium.js';
import { runCli } from './support/run-cli.js';
import {
  post,
  SERVICE_ENV,
  serviceProject,
  startTestService,
  waitForJob,
} from './support/service-project.js';

/*
 * The dashboard in a real Chromium, served by a real service whose jobs are real tradelab
 * processes: a campaign submitted from the Jobs page and followed live (the campaign page's
 * figures change without a reload), a study's trials sorted and filtered, its charts drawn with
 * data, a trial's equity against buy-and-hold with the verdict on it, a job cancelled from its
 * page, and the datasets, profile and benchmark pages. No console error, and no request leaves the
 * service. Screenshots go to test-output/dashboard-*.png for a person to look at.
 */

const skip = skipWithoutChromium('dashboard-browser.test.ts');
const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../test-output');

let service: RunningService;
let projectDir: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  if (skip) return;
  mkdirSync(OUT, { recursive: true });
  projectDir = await serviceProject([10, 6]);
  service = await startTestService(projectDir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const origin = new URL(service.url).origin;
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) problems.push(`request outside the service: ${r.url()}`);
  });
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await browser.close();
  await service.close();
});

/** Opens `hash` of the dashboard and waits until its view has drawn. */
async function open(hash: string): Promise<void> {
  // main.ts counts the views it has drawn in body[data-ready]: wait for the next one. The same
  // hash again fires no hashchange, so that page is loaded anew (and counts from 1 again).
  const ready = "(document.body.dataset.ready ?? '')";
  if ((await hashNow()) === hash) {
    await page.reload();
    await until(`${ready} !== ''`);
    return;
  }
  const before = String(await page.evaluate(ready));
  await page.goto(`${service.url}/${hash}`);
  await until(`${ready} !== '' && ${ready} !== ${JSON.stringify(before)}`);
}

/** Points a chart says it drew, once it says it drew at least one. */
async function drawnPoints(chart: string): Promise<number> {
  const points = `Number(document.querySelector('[data-chart=${chart}]')?.getAttribute('data-points') ?? 0)`;
  await until(`${points} > 0`, 30_000);
  return Number(await page.evaluate(points));
}

/** Pixels of a chart's canvas (uPlot) or SVG marks that are not background: something was drawn. */
async function inkOf(chart: string): Promise<number> {
  return Number(
    await page.evaluate(`(() => {
      const root = document.querySelector('[data-chart=${chart}]');
      const canvas = root?.querySelector('canvas');
      if (!canvas) return root?.querySelectorAll('polyline, rect').length ?? 0;
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let ink = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ink++;
      return ink;
    })()`),
  );
}

/** Waits until the text of `selector` matches `pattern` (the page updates itself). */
async function textComes(selector: string, pattern: RegExp, timeout = 60_000): Promise<void> {
  await until(
    `${pattern.toString()}.test(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '')`,
    timeout,
  );
}

/**
 * Waits until expression `expr` is true in the page. A polling loop of evaluate calls, because
 * page.waitForFunction evaluates strings with eval, which the dashboard's CSP rightly forbids.
 */
async function until(expr: string, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The page's hash. */
const hashNow = async (): Promise<string> => String(await page.evaluate('location.hash'));

describe.skipIf(skip)('the dashboard in Chromium', () => {
  it('submits a campaign from the Jobs page and follows it live to its end', async () => {
    await open('#/jobs');
    await page.selectOption('[data-testid=job-command]', 'campaign run');
    await page.fill('input[data-positional=FILE]', 'tiny.yaml');
    await page.fill('input[data-option=workers]', '2');
    await page.click('[data-testid=job-submit]');
    await until('/^#\\/jobs\\/\\d+$/.test(location.hash)');
    const id = Number((await hashNow()).split('/').pop());
    await page.waitForSelector('[data-testid=job-state] .state-running', { timeout: 60_000 });

    // The campaign page while it runs: its totals change with no reload.
    await until("fetch('/api/campaigns').then((r) => r.json()).then((c) => c.length > 0)", 60_000);
    await open('#/campaigns/tiny');
    const first = await page.textContent('[data-testid=campaign-totals]');
    const navigations = "performance.getEntriesByType('navigation').length";
    const loads = Number(await page.evaluate(navigations));
    await until(
      `document.querySelector('[data-testid=campaign-totals]')?.textContent !== ${JSON.stringify(first)}`,
      60_000,
    );
    expect(Number(await page.evaluate(navigations))).toBe(loads);
    await page.screenshot({ path: `${OUT}/dashboard-campaign-live.png`, fullPage: true });
    expect(await page.locator('[data-testid=campaign-studies] tbody tr').count()).toBe(2);

    // The job's page turns to succeeded by itself, with its result rows and log.
    await open(`#/jobs/${id}`);
    await page.waitForSelector('[data-testid=job-state] .state-succeeded', { timeout: 120_000 });
    expect(await page.locator('[data-testid=result-rows] tbody tr').count()).toBeGreaterThan(10);
    // Its log reads as lines, not JSON: the records the command printed as their type and fields.
    const log = (await page.textContent('[data-testid=job-log]')) ?? '';
    expect(log).toMatch(/^trial: study=\S+ number=\d+ state=(complete|pruned|fail) /m);
    expect(log).not.toMatch(/^\{/m);
    // Its progress ends at 100%, whatever the last progress line said.
    expect(await page.textContent('[data-testid=job-progress]')).toContain('100%');
    expect(
      await page.evaluate(
        "document.querySelector('[data-testid=job-progress] .bar > div')?.style.width",
      ),
    ).toBe('100%');
    await page.screenshot({ path: `${OUT}/dashboard-job.png`, fullPage: true });
    await open('#/campaigns/tiny');
    await textComes('[data-testid=campaign-totals]', /16 \/ 16/);
    await page.screenshot({ path: `${OUT}/dashboard-campaign.png`, fullPage: true });
  }, 240_000);

  it("opens a study: sorts and filters its trials, draws its charts, opens a trial's equity", async () => {
    await open('#/campaigns/tiny');
    await page.click('[data-testid=campaign-studies] tr[data-key="tiny.ensemble_balanced"]');
    await page.waitForSelector('[data-testid=trials] tbody tr[data-key]');
    expect(await drawnPoints('history')).toBeGreaterThan(5);
    expect(await drawnPoints('intermediate')).toBeGreaterThan(5);
    expect(await drawnPoints('parallel')).toBeGreaterThan(3);
    expect(await drawnPoints('importance')).toBeGreaterThan(0);
    for (const chart of ['history', 'intermediate', 'parallel', 'importance'])
      expect(await inkOf(chart), chart).toBeGreaterThan(0);

    const column = (n: number): Promise<string[]> =>
      page.locator(`[data-testid=trials] tbody tr[data-key] td:nth-child(${n})`).allTextContents();
    await page.click('[data-testid=trials] th[data-key=value]');
    await page.click('[data-testid=trials] th[data-key=value]');
    expect(await page.getAttribute('[data-testid=trials] th[data-key=value]', 'aria-sort')).toBe(
      'descending',
    );
    // Complete trials by value, then the pruned ones, whose values are intermediate (and say so).
    const cells = await column(3);
    const complete = cells.filter((t) => !t.includes('intermediate'));
    const sorted = complete.map((t) => (t === '–' ? -Infinity : Number(t.replace(/,/g, ''))));
    expect(cells.length).toBe(10);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));
    expect(cells.slice(complete.length).every((t) => / \(intermediate, split \d\)$/.test(t))).toBe(
      true,
    );
    await page.selectOption('[data-testid=state-filter]', 'complete');
    const states = await column(2);
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => s === 'complete')).toBe(true);
    await page.fill('[data-testid=param-filter]', 'netDim=16');
    const netDims = await column(1);
    expect(netDims.length).toBeLessThan(states.length + 1);
    await page.fill('[data-testid=param-filter]', '');
    await page.selectOption('[data-testid=state-filter]', 'all');
    await page.screenshot({ path: `${OUT}/dashboard-study.png`, fullPage: true });

    // The best trial: its out-of-sample equity against buy-and-hold.
    await page.click('[data-testid=trials] tbody tr[data-key]:first-child');
    await until('/#\\/studies\\/.+\\/trials\\/\\d+$/.test(location.hash)');
    expect(await drawnPoints('equity')).toBeGreaterThan(100);
    expect(await inkOf('equity')).toBeGreaterThan(500);
    expect(await page.textContent('[data-chart=equity]')).toContain('buy and hold');
    // Its verdict below the chart, as the API gives it: the comparison with buy-and-hold first,
    // warnings marked, advice shown.
    await page.waitForSelector('[data-testid=findings]');
    const equityPath = (await hashNow()).replace(/^#/, '/api') + '/equity';
    const { findings } = (await (await fetch(`${service.url}${equityPath}`)).json()) as {
      findings: { severity: string; advice?: string }[];
    };
    const items = page.locator('[data-testid=findings] li');
    expect(await items.count()).toBe(findings.length);
    expect(await items.first().textContent()).toContain('buy-and-hold');
    expect(await page.locator('[data-testid=findings] li b.warn').allTextContents()).toEqual(
      findings.filter((f) => f.severity === 'warning').map(() => 'Warning: '),
    );
    expect(await page.locator('[data-testid=findings] .advice').count()).toBe(
      findings.filter((f) => f.advice !== undefined).length,
    );
    await page.screenshot({ path: `${OUT}/dashboard-trial.png`, fullPage: true });
  }, 60_000);

  it('shows a study as it is: exact and log axes, labels apart, pruned values for what they are, a filter that says what it ignores', async () => {
    // A study of an objective of our own: netDim in the thousands, a log-scale learning rate, and
    // every fourth trial pruned after a first report higher than any complete trial's value.
    const cwd = projectDir;
    writeFileSync(
      join(cwd, 'wide.mjs'),
      `export async function objective(trial) {
  const netDim = trial.suggestInt('netDim', 1000, 5000);
  const learningRate = trial.suggestFloat('learningRate', 1e-5, 1e-2, { log: true });
  const activation = trial.suggestCategorical('activation', ['tanh', 'relu']);
  const first = netDim / 5000 - Math.abs(Math.log10(learningRate) + 3.5) / 3;
  await trial.report(trial.number % 4 === 3 ? 10 : first, 0);
  if (trial.number % 4 === 3) throw Object.assign(new Error('pruned'), { name: 'TrialPruned' });
  await trial.report(first - 0.1, 1);
  return first - 0.05 + (activation === 'relu' ? 0.01 : 0);
}
`,
    );
    const made = await runCli(
      ['study', 'create', 'wide', '--direction', 'max', '--sampler', 'random', '--seed', '3'],
      { cwd, env: SERVICE_ENV },
    );
    expect(made.code, made.stderr).toBe(0);
    const ran = await runCli(
      ['study', 'run', 'wide', '--objective', 'wide.mjs', '--trials', '12', '--workers', '1'],
      { cwd, env: SERVICE_ENV },
    );
    expect(ran.code, ran.stderr).toBe(0);
    await open('#/studies/wide');
    await page.waitForSelector('[data-testid=trials] tbody tr[data-key]');
    expect(await drawnPoints('parallel')).toBe(9);

    // Parallel coordinates: whole numbers exactly, the learning rate on a log axis, no label on
    // another.
    const trials = (await (await fetch(`${service.url}/api/studies/wide/trials`)).json()) as {
      state: string;
      params: { netDim: number };
    }[];
    const netDims = trials.filter((t) => t.state === 'complete').map((t) => t.params.netDim);
    /** A text of the chart, where it was drawn. */
    interface Label {
      text: string;
      value: string | null;
      left: number;
      right: number;
      top: number;
      bottom: number;
    }
    const labels = await page.evaluate<Label[]>(`Array.from(
      document.querySelectorAll('[data-chart=parallel] svg text'),
      (t) => { const r = t.getBoundingClientRect();
        return { text: t.textContent, value: t.getAttribute('data-value'), left: r.left, right: r.right, top: r.top, bottom: r.bottom }; })`);
    const values = labels.map((l) => l.value);
    expect(values).toContain(String(Math.max(...netDims)));
    expect(values).toContain(String(Math.min(...netDims)));
    expect(labels.map((l) => l.text)).toContain('learningRate (log)');
    for (const [i, a] of labels.entries())
      for (const b of labels.slice(i + 1))
        expect(
          a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top,
          `"${a.text}" overlaps "${b.text}"`,
        ).toBe(true);

    // Pruned trials: their values say they are intermediate, and the history leaves them out,
    // saying why in the words the CLI and the campaign report use.
    expect(await page.textContent('[data-testid=pruned-note]')).toBe(
      `The 3 pruned trials are not drawn: ${PRUNED_VALUE_MEANING}.`,
    );
    const values3 = await page
      .locator('[data-testid=trials] tbody tr[data-key] td:nth-child(3)')
      .allTextContents();
    expect(values3.filter((t) => t === '10 (intermediate, step 0)')).toHaveLength(3);

    // The filter's example is made of this study's names and matches; a name it does not have is
    // said, and left out, rather than hiding every row.
    const placeholder =
      (await page.getAttribute('[data-testid=param-filter]', 'placeholder')) ?? '';
    expect(placeholder).toMatch(/^filter: e\.g\. (activation|learningRate|netDim)[=<]/);
    await page.fill('[data-testid=param-filter]', placeholder.replace('filter: e.g. ', ''));
    expect(await page.textContent('[data-testid=trial-count]')).toMatch(/^[1-9]\d* of 12 trials$/);
    expect(await page.textContent('[data-testid=filter-problem]')).toBe('');
    await page.fill('[data-testid=param-filter]', 'net_dim>0');
    expect(await page.textContent('[data-testid=trial-count]')).toBe('12 of 12 trials');
    expect(await page.textContent('[data-testid=filter-problem]')).toContain(
      'no parameter "net_dim": did you mean netDim?',
    );
    await page.fill('[data-testid=param-filter]', '');
    await page.screenshot({ path: `${OUT}/dashboard-study-wide.png`, fullPage: true });
  }, 120_000);

  it('cancels a running job from its page', async () => {
    const { body } = await post(service.url, '/api/jobs', {
      command: 'train ppo',
      options: {
        data: 'SYN0:1h',
        out: 'runs/cancel-me',
        steps: '100000000',
        envs: '2',
        'net-dim': '16',
        'target-step': '128',
        'batch-size': '64',
      },
    });
    const { id } = body as { id: number };
    await open(`#/jobs/${id}`);
    await page.waitForSelector('[data-testid=job-state] .state-running', { timeout: 60_000 });
    // Its own progress line, not just "starting…".
    await textComes('[data-testid=job-progress]', /\d+% \(/);
    await page.click('button[data-action=cancel]');
    await page.waitForSelector('[data-testid=job-state] .state-cancelled', { timeout: 60_000 });
    expect((await waitForJob(service.url, id, ['cancelled'])).state).toBe('cancelled');
  }, 120_000);

  it('shows datasets with their closes, the profile and worker plan, and benchmark results', async () => {
    await open('#/datasets/SYN0:1h');
    expect(await page.locator('[data-testid=datasets] tbody tr').count()).toBe(2);
    expect(await drawnPoints('closes')).toBeGreaterThan(500);
    expect(await inkOf('closes')).toBeGreaterThan(500);
    await open('#/profiles');
    expect(await page.textContent('[data-testid=plan]')).toMatch(/workers fit/);
    await page.selectOption('[data-testid=workload]', 'tcn');
    await textComes('[data-testid=plan]', /memory/);
    expect(await page.locator('[data-testid=profiles] tbody tr').count()).toBeGreaterThan(10);
    await page.screenshot({ path: `${OUT}/dashboard-profiles.png`, fullPage: true });

    const { body } = await post(service.url, '/api/jobs', {
      command: 'bench env',
      options: { envs: '1,4', steps: '500', repeat: '1' },
    });
    await waitForJob(service.url, (body as { id: number }).id, ['succeeded']);
    await open('#/bench');
    expect(
      await page.locator('[data-testid=bench-result] [data-testid=result-rows] tbody tr').count(),
    ).toBe(2);
    expect(await page.textContent('[data-testid=bench-result]')).toContain('steps/s');
  }, 60_000);

  it('raised no console error and made no request outside the service', () => {
    expect(problems).toEqual([]);
  });
});

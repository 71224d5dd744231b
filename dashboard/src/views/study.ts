import { getJson, seg } from '../api.js';
import { barChart, lineChart, parallelCoordinates } from '../charts.js';
import { badge, duration, h, num } from '../dom.js';
import { onLive, throttle } from '../live.js';
import { dataTable, type Column } from '../table.js';
import type { Study, Trial } from '../types.js';

/** `#/studies`: every study. */
export async function studiesView(root: HTMLElement): Promise<() => void> {
  const table = dataTable<Study>({
    testId: 'studies',
    rowKey: (s) => s.name,
    onClick: (s) => (location.hash = `#/studies/${seg(s.name)}`),
    empty: 'No study yet: `tradelab study create`, a campaign, or a job.',
    columns: [
      { key: 'name', label: 'study', value: (s) => s.name },
      { key: 'campaign', label: 'campaign', value: (s) => s.campaign ?? '' },
      { key: 'direction', label: 'direction', value: (s) => s.direction },
      { key: 'complete', label: 'complete', value: (s) => s.counts.complete, numeric: true },
      { key: 'pruned', label: 'pruned', value: (s) => s.counts.pruned, numeric: true },
      { key: 'failed', label: 'failed', value: (s) => s.counts.failed, numeric: true },
      { key: 'running', label: 'running', value: (s) => s.counts.running, numeric: true },
      {
        key: 'best',
        label: 'best',
        value: (s) => s.best?.value ?? null,
        render: (s) => num(s.best?.value ?? null),
        numeric: true,
      },
    ],
  });
  root.replaceChildren(h('h1', {}, 'Studies'), table.element);
  const load = async (): Promise<void> => {
    table.update(await getJson<Study[]>('/api/studies'));
  };
  await load();
  const reload = throttle(() => void load(), 1000);
  return onLive((m) => {
    if (m.event === 'trial' || m.event === 'study') reload();
  });
}

/** Whether a trial's parameters match a filter like `net_dim=512 lr<0.001 tcn` (every term). */
function matches(trial: Trial, filter: string): boolean {
  for (const term of filter
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')) {
    const m = /^([\w.-]+)\s*(<=|>=|=|<|>)\s*(.+)$/.exec(term);
    if (m === null) {
      if (!JSON.stringify(trial.params).toLowerCase().includes(term.toLowerCase())) return false;
      continue;
    }
    const [, key = '', op, raw = ''] = m;
    const value = key === 'value' ? trial.value : trial.params[key];
    if (value === undefined || value === null) return false;
    const n = Number(raw);
    if (typeof value === 'number' && Number.isFinite(n)) {
      const ok =
        op === '='
          ? value === n
          : op === '<'
            ? value < n
            : op === '>'
              ? value > n
              : op === '<='
                ? value <= n
                : value >= n;
      if (!ok) return false;
    } else if (op !== '=' || String(value) !== raw) return false;
  }
  return true;
}

/** `#/studies/NAME`: history, intermediate values, importance, parallel coordinates, trials. */
export async function studyView(root: HTMLElement, [name = '']: string[]): Promise<() => void> {
  const head = h('div');
  const charts = {
    history: h('div', { class: 'chart', 'data-chart': 'history' }),
    intermediate: h('div', { class: 'chart', 'data-chart': 'intermediate' }),
    importance: h('div', { class: 'chart', 'data-chart': 'importance' }),
    parallel: h('div', { class: 'chart', 'data-chart': 'parallel' }),
  };
  const stateFilter = h(
    'select',
    { 'data-testid': 'state-filter' },
    ['all', 'complete', 'pruned', 'fail', 'running', 'waiting'].map((s) =>
      h('option', { value: s }, s),
    ),
  );
  const textFilter = h('input', {
    type: 'text',
    placeholder: 'filter: net_dim=512 lr<0.001 value>0',
    size: 36,
    'data-testid': 'param-filter',
  });
  const tableSlot = h('div');
  root.replaceChildren(
    head,
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'card' }, h('h2', {}, 'Optimization history'), charts.history),
      h(
        'div',
        { class: 'card' },
        h('h2', {}, 'Intermediate values per split'),
        charts.intermediate,
      ),
      h('div', { class: 'card' }, h('h2', {}, 'Parameter importance'), charts.importance),
      h('div', { class: 'card' }, h('h2', {}, 'Parallel coordinates'), charts.parallel),
    ),
    h('h2', {}, 'Trials'),
    h(
      'div',
      { class: 'filters' },
      h('label', {}, 'state ', stateFilter),
      textFilter,
      h('span', { class: 'muted', 'data-testid': 'trial-count' }),
    ),
    tableSlot,
  );
  let trials: Trial[] = [];
  let table: ReturnType<typeof dataTable<Trial>> | undefined;
  let paramNames: string[] = [];
  const refilter = (): void => {
    const state = stateFilter.value;
    const shown = trials.filter(
      (t) => (state === 'all' || t.state === state) && matches(t, textFilter.value),
    );
    table?.update(shown);
    const count = root.querySelector('[data-testid=trial-count]');
    if (count) count.textContent = `${shown.length} of ${trials.length} trials`;
  };
  stateFilter.addEventListener('change', refilter);
  textFilter.addEventListener('input', refilter);

  const load = async (): Promise<void> => {
    const [study, rows] = await Promise.all([
      getJson<Study>(`/api/studies/${seg(name)}`),
      getJson<Trial[]>(`/api/studies/${seg(name)}/trials`),
    ]);
    trials = rows;
    const c = study.counts;
    head.replaceChildren(
      h(
        'p',
        {},
        h(
          'a',
          { href: study.campaign === null ? '#/studies' : `#/campaigns/${seg(study.campaign)}` },
          study.campaign === null ? '← studies' : `← campaign ${study.campaign}`,
        ),
      ),
      h('h1', {}, `Study ${study.name}`),
      h(
        'div',
        { class: 'stats' },
        h('div', { class: 'stat' }, h('b', {}, String(c.complete)), h('span', {}, 'complete')),
        h('div', { class: 'stat' }, h('b', {}, String(c.pruned)), h('span', {}, 'pruned')),
        h('div', { class: 'stat' }, h('b', {}, String(c.failed)), h('span', {}, 'failed')),
        h('div', { class: 'stat' }, h('b', {}, String(c.running)), h('span', {}, 'running')),
        h(
          'div',
          { class: 'stat' },
          h(
            'b',
            {},
            study.best === null ? '–' : `${num(study.best.value)} (#${study.best.number})`,
          ),
          h('span', {}, `best (${study.direction})`),
        ),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, num(study.perHour, 3)),
          h('span', {}, 'trials / hour'),
        ),
      ),
    );
    const names = [...new Set(rows.flatMap((t) => Object.keys(t.params)))].sort();
    if (table === undefined || names.join() !== paramNames.join()) {
      paramNames = names;
      const columns: Column<Trial>[] = [
        { key: 'number', label: '#', value: (t) => t.number, numeric: true },
        { key: 'state', label: 'state', value: (t) => t.state, render: (t) => badge(t.state) },
        {
          key: 'value',
          label: 'value',
          value: (t) => t.value,
          render: (t) => num(t.value),
          numeric: true,
        },
        {
          key: 'duration',
          label: 'duration',
          value: (t) => t.durationMs,
          render: (t) => duration(t.durationMs),
          numeric: true,
        },
        ...names.map((p): Column<Trial> => ({
          key: `param:${p}`,
          label: p,
          value: (t) => {
            const v = t.params[p];
            return v === undefined || v === null ? null : typeof v === 'number' ? v : String(v);
          },
          render: (t) => {
            const v = t.params[p];
            return typeof v === 'number' ? num(v) : String(v ?? '–');
          },
          numeric: true,
        })),
      ];
      table = dataTable<Trial>({
        testId: 'trials',
        rowKey: (t) => String(t.number),
        onClick: (t) => (location.hash = `#/studies/${seg(name)}/trials/${t.number}`),
        columns,
      });
      tableSlot.replaceChildren(table.element);
    }
    refilter();
    drawCharts(study, rows, charts);
    const importance = await getJson<{
      params: { param: string; share: number }[];
      reason?: string;
    }>(`/api/studies/${seg(name)}/importance`);
    barChart(
      charts.importance,
      importance.params.map((p) => ({
        label: p.param,
        value: p.share,
        note: `${(100 * p.share).toFixed(1)}%`,
      })),
    );
    if (importance.reason !== undefined && importance.params.length === 0) {
      charts.importance.append(h('div', { class: 'muted' }, importance.reason));
    }
  };
  await load();
  const reload = throttle(() => void load(), 1500);
  return onLive((m) => {
    if (m.event === 'trial' && (m.data as { study?: string }).study === name) reload();
  });
}

function drawCharts(
  study: Study,
  trials: Trial[],
  charts: Record<'history' | 'intermediate' | 'parallel', HTMLElement>,
): void {
  const ended = trials.filter(
    (t) => t.value !== null && (t.state === 'complete' || t.state === 'pruned'),
  );
  const better = study.direction === 'maximize' ? Math.max : Math.min;
  let best: number | null = null;
  const x = trials.map((t) => t.number);
  const complete = trials.map((t) => (t.state === 'complete' ? t.value : null));
  const pruned = trials.map((t) => (t.state === 'pruned' ? t.value : null));
  const bestSoFar = trials.map((t) => {
    if (t.state === 'complete' && t.value !== null)
      best = best === null ? t.value : better(best, t.value);
    return best;
  });
  lineChart(charts.history, {
    x,
    xLabel: 'trial',
    integerX: true,
    yLabel: 'value',
    series: [
      { label: 'complete', values: complete, points: true, lineless: true },
      { label: 'pruned', values: pruned, points: true, lineless: true, color: '#f79009' },
      { label: 'best so far', values: bestSoFar, color: '#12805c' },
    ],
  });
  // Intermediate values: the last 20 trials that reported any, one line each, by step.
  const reporting = trials.filter((t) => Object.keys(t.intermediate).length > 0).slice(-20);
  const steps = [
    ...new Set(reporting.flatMap((t) => Object.keys(t.intermediate).map(Number))),
  ].sort((a, b) => a - b);
  lineChart(charts.intermediate, {
    x: steps,
    xLabel: 'split',
    integerX: true,
    yLabel: 'reported value',
    series: reporting.map((t) => ({
      label: `#${t.number}${t.state === 'pruned' ? ' (pruned)' : ''}`,
      values: steps.map((s) => t.intermediate[String(s)] ?? null),
      points: true,
      ...(t.state === 'pruned' ? { dash: [4, 4] } : {}),
    })),
  });
  const names = [...new Set(ended.flatMap((t) => Object.keys(t.params)))].sort();
  parallelCoordinates(
    charts.parallel,
    [
      ...names.map((n) => ({ name: n, values: ended.map((t) => t.params[n] ?? null) })),
      { name: 'value', values: ended.map((t) => t.value) },
    ],
    ended.map((t) => t.value),
  );
}

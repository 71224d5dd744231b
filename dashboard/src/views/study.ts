import { getJson, seg } from '../api.js';
import { axisLabel, barChart, lineChart, parallelCoordinates } from '../charts.js';
import { badge, duration, h, num } from '../dom.js';
import { onLive, throttle } from '../live.js';
import { PRUNED_VALUE_MEANING, prunedValueText } from '../pruned-value.js';
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

/** A filter's terms, and the parameter names in it that no trial has. */
interface Filter {
  terms: string[];
  unknown: string[];
}

/**
 * The terms of a filter like `netDim=512 learningRate<0.001 tanh`: a name that no trial has is
 * set apart (said beside the filter, and left out of it), not a silent filter that hides every row.
 */
function parseFilter(filter: string, names: readonly string[]): Filter {
  const terms: string[] = [];
  const unknown: string[] = [];
  for (const term of filter
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')) {
    const key = /^([\w.-]+)\s*(<=|>=|=|<|>)/.exec(term)?.[1];
    if (key === undefined || key === 'value' || names.includes(key)) terms.push(term);
    else unknown.push(key);
  }
  return { terms, unknown };
}

/** `net_dim` → `netDim`: the parameter a mistyped name most likely meant, if any. */
function closestName(name: string, names: readonly string[]): string | undefined {
  const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  return (
    names.find((n) => squash(n) === squash(name)) ??
    names.find((n) => squash(n).startsWith(squash(name)) || squash(name).startsWith(squash(n)))
  );
}

/**
 * Whether a trial matches every term. `value` compares complete trials' values only: a pruned
 * trial's is an intermediate one (see PRUNED_VALUE_MEANING).
 */
function matches(trial: Trial, terms: readonly string[]): boolean {
  for (const term of terms) {
    const m = /^([\w.-]+)\s*(<=|>=|=|<|>)\s*(.+)$/.exec(term);
    if (m === null) {
      if (!JSON.stringify(trial.params).toLowerCase().includes(term.toLowerCase())) return false;
      continue;
    }
    const [, key = '', op, raw = ''] = m;
    const value =
      key === 'value' ? (trial.state === 'pruned' ? null : trial.value) : trial.params[key];
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

/** `x` to 3 significant digits, rounded up (`down`: down), so a bound made of it holds for x. */
function rounded(x: number, down = false): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(x))) - 2);
  return Number(((down ? Math.floor(x / unit) : Math.ceil(x / unit)) * unit).toPrecision(3));
}

/**
 * An example filter made of the study's own parameter names and a complete trial's values, which
 * that trial matches: `netDim=512 learningRate<=0.000279 value>=1.32`.
 */
function filterExample(trials: readonly Trial[], names: readonly string[]): string {
  const sample = trials.find((t) => t.state === 'complete' && t.value !== null);
  if (sample === undefined) return 'filter: name=value name<value value>0';
  const terms = names.slice(0, 2).map((n) => {
    const v = sample.params[n];
    return typeof v === 'number' && !Number.isInteger(v)
      ? `${n}<=${axisLabel(rounded(v))}`
      : `${n}=${String(v)}`;
  });
  terms.push(`value>=${axisLabel(rounded(sample.value ?? 0, true))}`);
  return `filter: e.g. ${terms.join(' ')}`;
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
    placeholder: 'filter: name=value name<value value>0',
    size: 56,
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
      h('span', { class: 'warn', 'data-testid': 'filter-problem' }),
    ),
    tableSlot,
  );
  let trials: Trial[] = [];
  let table: ReturnType<typeof dataTable<Trial>> | undefined;
  let paramNames: string[] = [];
  const refilter = (): void => {
    const state = stateFilter.value;
    const { terms, unknown } = parseFilter(textFilter.value, paramNames);
    const shown = trials.filter((t) => (state === 'all' || t.state === state) && matches(t, terms));
    table?.update(shown);
    const count = root.querySelector('[data-testid=trial-count]');
    if (count) count.textContent = `${shown.length} of ${trials.length} trials`;
    const problem = root.querySelector('[data-testid=filter-problem]');
    if (problem)
      problem.textContent = unknown
        .map((name) => {
          const guess = closestName(name, paramNames);
          return `no parameter "${name}"${guess === undefined ? '' : `: did you mean ${guess}?`} (left out of the filter; the parameters: ${paramNames.join(', ')})`;
        })
        .join(' ');
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
        ...(c.retried === 0
          ? []
          : [h('div', { class: 'stat' }, h('b', {}, String(c.retried)), h('span', {}, 'retried'))]),
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
          // Pruned trials' values are intermediate: sorted after the complete ones, not among them.
          value: (t) => (t.state === 'pruned' ? null : t.value),
          render: (t) => {
            const pruned = prunedValueText(t, study.kind === 'drl', (v) => num(v));
            return pruned === undefined
              ? num(t.value)
              : h('span', { class: 'intermediate', title: PRUNED_VALUE_MEANING }, pruned);
          },
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
    textFilter.placeholder = filterExample(rows, paramNames);
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
  // Complete trials only: a pruned trial's value is an intermediate one, not comparable.
  const complete = trials.filter((t) => t.value !== null && t.state === 'complete');
  const better = study.direction === 'maximize' ? Math.max : Math.min;
  let best: number | null = null;
  const x = trials.map((t) => t.number);
  const values = trials.map((t) => (t.state === 'complete' ? t.value : null));
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
      { label: 'complete', values, points: true, lineless: true },
      { label: 'best so far', values: bestSoFar, color: '#12805c' },
    ],
  });
  const pruned = trials.filter((t) => t.state === 'pruned').length;
  if (pruned > 0)
    charts.history.append(
      h(
        'p',
        { class: 'muted', 'data-testid': 'pruned-note' },
        `${pruned === 1 ? 'The pruned trial is' : `The ${pruned} pruned trials are`} not drawn: ${PRUNED_VALUE_MEANING}.`,
      ),
    );
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
  const names = [...new Set(complete.flatMap((t) => Object.keys(t.params)))].sort();
  const onLogScale = (n: string): boolean =>
    complete.some((t) => {
      const d = t.distributions[n];
      return d !== undefined && d.type !== 'categorical' && d.log;
    });
  parallelCoordinates(
    charts.parallel,
    [
      ...names.map((n) => ({
        name: n,
        values: complete.map((t) => t.params[n] ?? null),
        log: onLogScale(n),
      })),
      { name: 'value', values: complete.map((t) => t.value) },
    ],
    complete.map((t) => t.value),
  );
}

import { ApiError, getJson, seg } from '../api.js';
import { lineChart } from '../charts.js';
import { badge, duration, errorBox, h, num, time } from '../dom.js';
import { findingsList } from '../findings.js';
import type { Trial, TrialEquity } from '../types.js';

/**
 * `#/studies/NAME/trials/N`: a trial's parameters, splits, and equity against buy-and-hold with
 * the verdict on it.
 */
export async function trialView(
  root: HTMLElement,
  [name = '', number = '']: string[],
): Promise<void> {
  const trial = await getJson<Trial>(`/api/studies/${seg(name)}/trials/${seg(number)}`);
  const equity = h('div', { class: 'chart', 'data-chart': 'equity' });
  const verdict = h('div');
  const splits = h('div', { class: 'chart', 'data-chart': 'splits' });
  const attrs = Object.entries(trial.userAttrs).filter(
    ([, v]) => typeof v !== 'object' || v === null,
  );
  root.replaceChildren(
    h('p', {}, h('a', { href: `#/studies/${seg(name)}` }, `← study ${name}`)),
    h('h1', {}, `Trial ${trial.number} of ${name} `, badge(trial.state)),
    h(
      'div',
      { class: 'stats' },
      h('div', { class: 'stat' }, h('b', {}, num(trial.value)), h('span', {}, 'value')),
      h(
        'div',
        { class: 'stat' },
        h('b', {}, duration(trial.durationMs)),
        h('span', {}, 'duration'),
      ),
      h(
        'div',
        { class: 'stat' },
        h('b', {}, time(trial.startedAt)),
        h('span', {}, 'started (UTC)'),
      ),
    ),
    ...(trial.failReason === null ? [] : [h('div', { class: 'error' }, trial.failReason)]),
    h(
      'div',
      { class: 'card' },
      h('h2', {}, 'Out-of-sample equity against buy-and-hold'),
      equity,
      verdict,
    ),
    h(
      'div',
      { class: 'grid' },
      h(
        'div',
        { class: 'card' },
        h('h2', {}, 'Parameters'),
        h(
          'table',
          { 'data-testid': 'trial-params' },
          Object.entries(trial.params).map(([k, v]) =>
            h(
              'tr',
              {},
              h('th', {}, k),
              h('td', { class: 'num' }, typeof v === 'number' ? num(v, 6) : String(v)),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'card' },
        h('h2', {}, 'Reported per split'),
        splits,
        attrs.length === 0
          ? null
          : h(
              'table',
              {},
              attrs.map(([k, v]) =>
                h(
                  'tr',
                  {},
                  h('th', {}, k),
                  h('td', { class: 'num' }, typeof v === 'number' ? num(v) : String(v)),
                ),
              ),
            ),
      ),
    ),
  );
  const steps = Object.keys(trial.intermediate)
    .map(Number)
    .sort((a, b) => a - b);
  lineChart(splits, {
    x: steps,
    xLabel: 'split',
    integerX: true,
    yLabel: 'value',
    series: [
      {
        label: 'reported',
        values: steps.map((s) => trial.intermediate[String(s)] ?? null),
        points: true,
      },
    ],
  });
  try {
    const curves = await getJson<TrialEquity>(
      `/api/studies/${seg(name)}/trials/${seg(number)}/equity`,
    );
    lineChart(equity, {
      x: curves.times,
      time: true,
      xLabel: 'time (UTC)',
      yLabel: 'equity (start = 1)',
      height: 320,
      series: [
        { label: 'this trial', values: curves.strategy, color: '#2563eb' },
        { label: 'buy and hold', values: curves.benchmark, color: '#667085', dash: [5, 4] },
      ],
    });
    verdict.replaceChildren(findingsList(curves.findings));
  } catch (error) {
    equity.dataset.points = '0';
    equity.replaceChildren(
      error instanceof ApiError && error.code === 'ARTIFACT_NOT_FOUND'
        ? h(
            'div',
            { class: 'empty' },
            'This trial kept no out-of-sample returns (it did not complete, or it is not a trading study).',
          )
        : errorBox(error),
    );
  }
}

import { getJson, seg } from '../api.js';
import { lineChart } from '../charts.js';
import { h, num, time } from '../dom.js';
import { dataTable } from '../table.js';
import type { Dataset } from '../types.js';

/** `#/datasets` and `#/datasets/KEY`: the store, and a dataset's closes. */
export async function datasetsView(root: HTMLElement, [key]: string[]): Promise<void> {
  const chart = h('div', { class: 'chart', 'data-chart': 'closes' });
  const table = dataTable<Dataset>({
    testId: 'datasets',
    rowKey: (d) => d.dataset,
    onClick: (d) => (location.hash = `#/datasets/${seg(d.dataset)}`),
    empty: 'No datasets: submit a `data synth` job, or `tradelab data import FILE`.',
    columns: [
      { key: 'dataset', label: 'dataset', value: (d) => d.dataset },
      {
        key: 'rows',
        label: 'bars',
        value: (d) => d.rows,
        render: (d) => num(d.rows),
        numeric: true,
      },
      {
        key: 'first',
        label: 'first (UTC)',
        value: (d) => d.firstMs,
        render: (d) => time(d.firstMs),
      },
      { key: 'last', label: 'last (UTC)', value: (d) => d.lastMs, render: (d) => time(d.lastMs) },
      { key: 'from', label: 'made from', value: (d) => d.derivedFrom ?? '' },
      { key: 'status', label: 'file', value: (d) => d.status },
    ],
  });
  root.replaceChildren(
    h('h1', {}, 'Datasets'),
    table.element,
    key === undefined
      ? h('p', { class: 'muted' }, 'Click a dataset to see its closes.')
      : h('div', { class: 'card' }, h('h2', {}, `${key}: closes`), chart),
  );
  table.update(await getJson<Dataset[]>('/api/datasets'));
  if (key !== undefined) {
    const series = await getJson<{ times: number[]; close: number[] }>(
      `/api/datasets/${seg(key)}/closes?points=2000`,
    );
    lineChart(chart, {
      x: series.times,
      time: true,
      xLabel: 'time (UTC)',
      yLabel: 'close',
      series: [{ label: 'close', values: series.close }],
    });
  }
}

import { getJson, seg } from '../api.js';
import { badge, h, time } from '../dom.js';
import { dataTable } from '../table.js';

interface Run {
  name: string;
  kind: 'ppo' | 'tcn';
  status: string;
  updatedAt: number;
  data: string | null;
  report: boolean;
}

/** `#/runs`: training and pretraining runs, with their reports. */
export async function runsView(root: HTMLElement): Promise<void> {
  const table = dataTable<Run>({
    testId: 'runs',
    rowKey: (r) => r.name,
    sort: { key: 'updated', order: 'desc' },
    empty: 'No runs yet: submit a `train ppo` or `pretrain tcn` job with --out runs/NAME.',
    columns: [
      { key: 'name', label: 'run', value: (r) => r.name },
      {
        key: 'kind',
        label: 'kind',
        value: (r) => (r.kind === 'ppo' ? 'train ppo' : 'pretrain tcn'),
      },
      { key: 'status', label: 'status', value: (r) => r.status, render: (r) => badge(r.status) },
      { key: 'data', label: 'data', value: (r) => r.data ?? '' },
      {
        key: 'updated',
        label: 'updated (UTC)',
        value: (r) => r.updatedAt,
        render: (r) => time(r.updatedAt),
      },
      {
        key: 'report',
        label: 'report',
        value: (r) => (r.report ? 1 : 0),
        render: (r) =>
          r.report
            ? h(
                'a',
                { href: `/api/runs/${seg(r.name)}/report.html`, target: '_blank', rel: 'noopener' },
                'report.html',
              )
            : h('span', { class: 'muted' }, '–'),
      },
    ],
  });
  root.replaceChildren(
    h('h1', {}, 'Runs'),
    h('p', { class: 'muted' }, 'Runs of `train ppo` and `pretrain tcn` in the runs directory.'),
    table.element,
  );
  table.update(await getJson<Run[]>('/api/runs'));
}

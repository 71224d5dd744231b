import { getJson, seg } from '../api.js';
import { badge, bar, duration, h, num, time } from '../dom.js';
import { onLive, throttle } from '../live.js';
import { dataTable } from '../table.js';
import type { CampaignReport, ReportStudy, Study } from '../types.js';

/** `#/campaigns`: every campaign, with its studies' progress. */
export async function campaignsView(root: HTMLElement): Promise<() => void> {
  const list = h('div');
  root.replaceChildren(
    h('h1', {}, 'Campaigns'),
    h(
      'p',
      { class: 'muted' },
      'Several studies run at once by one pool of workers (`tradelab campaign run FILE`, or a job).',
    ),
    list,
  );
  const table = dataTable<{ name: string; studies: Study[] }>({
    testId: 'campaigns',
    rowKey: (r) => r.name,
    onClick: (r) => (location.hash = `#/campaigns/${seg(r.name)}`),
    empty:
      'No campaign in this storage yet: run one from Jobs (campaign run) or `tradelab quickstart`.',
    columns: [
      { key: 'name', label: 'campaign', value: (r) => r.name },
      { key: 'studies', label: 'studies', value: (r) => r.studies.length, numeric: true },
      {
        key: 'trials',
        label: 'trials done',
        value: (r) => r.studies.reduce((n, s) => n + s.counts.done, 0),
        numeric: true,
      },
      {
        key: 'running',
        label: 'running',
        value: (r) => r.studies.reduce((n, s) => n + s.counts.running, 0),
        numeric: true,
      },
      {
        key: 'best',
        label: 'best value',
        value: (r) => Math.max(...r.studies.map((s) => s.best?.value ?? Number.NEGATIVE_INFINITY)),
        render: (r) =>
          num(Math.max(...r.studies.map((s) => s.best?.value ?? Number.NEGATIVE_INFINITY))),
        numeric: true,
      },
    ],
  });
  list.append(table.element);
  const load = async (): Promise<void> => {
    const studies = await getJson<Study[]>('/api/studies');
    const byCampaign = new Map<string, Study[]>();
    for (const s of studies)
      if (s.campaign !== null)
        byCampaign.set(s.campaign, [...(byCampaign.get(s.campaign) ?? []), s]);
    table.update([...byCampaign].map(([name, members]) => ({ name, studies: members })));
  };
  await load();
  const reload = throttle(() => void load(), 1000);
  return onLive((m) => {
    if (m.event === 'trial' || m.event === 'study') reload();
  });
}

/** `#/campaigns/NAME`: the campaign report, live. */
export async function campaignView(root: HTMLElement, [name = '']: string[]): Promise<() => void> {
  const head = h('div');
  const studies = h('div');
  const notes = h('div');
  root.replaceChildren(
    h('p', {}, h('a', { href: '#/campaigns' }, '← campaigns')),
    head,
    h('h2', {}, 'Studies'),
    studies,
    notes,
  );
  const table = dataTable<ReportStudy>({
    testId: 'campaign-studies',
    rowKey: (s) => s.study,
    onClick: (s) => (location.hash = `#/studies/${seg(s.study)}`),
    sort: { key: 'key', order: 'asc' },
    columns: [
      {
        key: 'key',
        label: 'study',
        value: (s) => s.key,
        render: (s) => h('span', {}, s.key, h('div', { class: 'muted' }, s.study)),
      },
      { key: 'preset', label: 'preset', value: (s) => s.preset },
      { key: 'state', label: 'state', value: (s) => s.state, render: (s) => badge(s.state) },
      {
        key: 'progress',
        label: 'done / target',
        value: (s) => s.counts.done / Math.max(1, s.target),
        render: (s) =>
          h(
            'div',
            {},
            `${s.counts.done} / ${s.target}`,
            bar(s.counts.done / Math.max(1, s.target)),
          ),
      },
      { key: 'complete', label: 'complete', value: (s) => s.counts.complete, numeric: true },
      { key: 'pruned', label: 'pruned', value: (s) => s.counts.pruned, numeric: true },
      { key: 'failed', label: 'failed', value: (s) => s.counts.failed, numeric: true },
      { key: 'running', label: 'running', value: (s) => s.counts.running, numeric: true },
      {
        key: 'best',
        label: 'best',
        value: (s) => s.counts.best?.value ?? null,
        render: (s) => num(s.counts.best?.value ?? null),
        numeric: true,
      },
      {
        key: 'rate',
        label: 'trials/h',
        value: (s) => s.counts.perHour,
        render: (s) => num(s.counts.perHour, 3),
        numeric: true,
      },
    ],
  });
  studies.append(table.element);
  const load = async (): Promise<void> => {
    const report = await getJson<CampaignReport>(`/api/campaigns/${seg(name)}`);
    const t = report.total;
    const phases = report.phases;
    const phaseTotal = phases.rollout + phases.update + phases.other;
    head.replaceChildren(
      h('h1', {}, `Campaign ${report.name}`),
      h(
        'p',
        { class: 'muted' },
        `${report.studies.length} studies in ${report.storage} · report of ${time(report.generatedAt)} UTC · `,
        h(
          'a',
          { href: `/api/campaigns/${seg(name)}/report.html`, target: '_blank', rel: 'noopener' },
          'full report (HTML)',
        ),
      ),
      h(
        'div',
        { class: 'stats', 'data-testid': 'campaign-totals' },
        h(
          'div',
          { class: 'stat' },
          h('b', {}, `${t.counts.done} / ${t.target}`),
          h('span', {}, 'trials done / target'),
        ),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, String(t.counts.running)),
          h('span', {}, 'running now'),
        ),
        h('div', { class: 'stat' }, h('b', {}, String(t.counts.pruned)), h('span', {}, 'pruned')),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, num(t.counts.perHour, 3)),
          h('span', {}, 'trials / hour'),
        ),
        h(
          'div',
          { class: 'stat' },
          h(
            'b',
            {},
            phaseTotal > 0
              ? `${Math.round((100 * phases.rollout) / phaseTotal)}% / ${Math.round((100 * phases.update) / phaseTotal)}%`
              : '–',
          ),
          h('span', {}, 'rollout / update time'),
        ),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, duration((phases.rollout + phases.update + phases.other) * 1000)),
          h('span', {}, 'trial time, summed'),
        ),
      ),
      bar(t.counts.done / Math.max(1, t.target)),
    );
    table.update(report.studies);
    notes.replaceChildren(
      ...(report.diagnosis.length === 0
        ? []
        : [
            h('h2', {}, 'Diagnosis'),
            h(
              'ul',
              { class: 'diagnosis' },
              report.diagnosis.map((d) => h('li', {}, d)),
            ),
          ]),
    );
  };
  await load();
  const reload = throttle(() => void load(), 1000);
  return onLive((m) => {
    if (m.event === 'trial' || m.event === 'study') reload();
  });
}

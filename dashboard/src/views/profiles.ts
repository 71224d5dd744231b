import { getJson } from '../api.js';
import { h, num } from '../dom.js';
import { dataTable } from '../table.js';
import type { Info, Plan, Profile } from '../types.js';

/** Bytes as `1.50 GiB`. */
function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 2)} ${units[u] ?? 'B'}`;
}

/** `#/profiles`: this machine's profile, the worker plan with its arithmetic, every profile. */
export async function profilesView(root: HTMLElement): Promise<void> {
  const [info, profiles] = await Promise.all([
    getJson<Info>('/api/info'),
    getJson<Profile[]>('/api/profiles'),
  ]);
  const planSlot = h('div');
  const workload = h(
    'select',
    { 'data-testid': 'workload' },
    ['drl', 'forecast', 'tcn'].map((w) => h('option', { value: w }, w)),
  );
  const drawPlan = async (): Promise<void> => {
    const plan = await getJson<Plan>(`/api/plan?workload=${workload.value}`);
    planSlot.replaceChildren(
      h(
        'div',
        { class: 'stats', 'data-testid': 'plan' },
        h(
          'div',
          { class: 'stat' },
          h('b', {}, String(plan.workers)),
          h('span', {}, `workers fit (${plan.limitedBy})`),
        ),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, bytes(plan.perWorkerBytes)),
          h('span', {}, 'per worker'),
        ),
        h(
          'div',
          { class: 'stat' },
          h('b', {}, bytes(plan.usable.bytes)),
          h('span', {}, `usable ${plan.memoryKind} memory`),
        ),
        h('div', { class: 'stat' }, h('b', {}, plan.backend), h('span', {}, 'backend')),
        h('div', { class: 'stat' }, h('b', {}, num(plan.batchSize)), h('span', {}, 'batch size')),
      ),
      h('h2', {}, 'Memory per worker'),
      h(
        'table',
        {},
        h(
          'tbody',
          {},
          plan.perWorker.map((t) =>
            h(
              'tr',
              {},
              h('td', {}, t.label),
              h('td', { class: 'num' }, bytes(t.bytes)),
              h('td', { class: 'muted' }, t.formula),
            ),
          ),
          h(
            'tr',
            {},
            h('th', {}, 'usable'),
            h('td', { class: 'num' }, bytes(plan.usable.bytes)),
            h('td', { class: 'muted' }, plan.usable.formula),
          ),
        ),
      ),
      h('h2', {}, 'Limits'),
      h(
        'ul',
        {},
        plan.limits.map((l) => h('li', {}, `${l.by}: ${l.workers} — ${l.detail}`)),
      ),
    );
  };
  workload.addEventListener('change', () => void drawPlan());
  const table = dataTable<Profile>({
    testId: 'profiles',
    rowKey: (p) => p.name,
    columns: [
      {
        key: 'name',
        label: 'profile',
        value: (p) => p.name,
        render: (p) =>
          h('span', {}, p.name, p.name === info.profile.name ? h('b', {}, '  ← in use') : null),
      },
      { key: 'display', label: 'GPU', value: (p) => p.displayName },
      { key: 'vendor', label: 'vendor', value: (p) => p.vendor },
      { key: 'vram', label: 'VRAM (GB)', value: (p) => p.vramGb, numeric: true },
      {
        key: 'usd',
        label: '$/h',
        value: (p) => p.hourlyUsd ?? null,
        render: (p) => num(p.hourlyUsd ?? null, 3),
        numeric: true,
      },
      { key: 'origin', label: 'origin', value: (p) => p.origin },
    ],
  });
  table.update(profiles);
  root.replaceChildren(
    h('h1', {}, `Profile: ${info.profile.displayName}`),
    h(
      'p',
      { class: 'muted' },
      `${info.profile.name}, ${info.profile.vramGb} GB, chosen ${info.profile.source}. Job pool: ${info.pool.slots} worker slots. Project ${info.root}; storage ${info.storage}.`,
    ),
    h(
      'div',
      { class: 'card' },
      h('h2', {}, 'Worker plan'),
      h('div', { class: 'filters' }, h('label', {}, 'workload ', workload)),
      planSlot,
    ),
    h('h2', {}, 'Profiles'),
    table.element,
  );
  await drawPlan();
}

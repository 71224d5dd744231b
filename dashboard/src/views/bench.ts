import { getJson } from '../api.js';
import { h, time } from '../dom.js';
import type { Job } from '../types.js';
import { resultTables } from './jobs.js';

/** `#/bench`: the rows of every benchmark job that succeeded, newest first. */
export async function benchView(root: HTMLElement): Promise<void> {
  const jobs = await getJson<Job[]>('/api/jobs?prefix=bench&state=succeeded&limit=50');
  root.replaceChildren(
    h('h1', {}, 'Benchmarks'),
    h(
      'p',
      { class: 'muted' },
      'Results of `bench` jobs run by this service (submit one under Jobs).',
    ),
    ...(jobs.length === 0
      ? [h('p', { class: 'muted', 'data-testid': 'no-bench' }, 'No benchmark has run here yet.')]
      : jobs.map((j) =>
          h(
            'div',
            { class: 'card', 'data-testid': 'bench-result' },
            h(
              'h2',
              {},
              h('a', { href: `#/jobs/${j.id}` }, j.request.command),
              h('span', { class: 'muted' }, `  job ${j.id}, ${time(j.finishedAt)} UTC`),
            ),
            h('p', {}, h('code', {}, `tradelab ${j.argv.join(' ')}`)),
            ...resultTables(j.result),
          ),
        )),
  );
}

import { getJson, postJson, seg } from '../api.js';
import { badge, bar, duration, errorBox, h, time } from '../dom.js';
import { onLive, throttle } from '../live.js';
import { dataTable } from '../table.js';
import type { Info, Job, JobCommandInfo, LogLine } from '../types.js';

const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);

/** Cancel (running or queued) or retry (ended) buttons for a job. */
function actions(job: Job, onError: (e: unknown) => void): HTMLElement {
  const span = h('span', { class: 'actions' });
  if (!ENDED.has(job.state)) {
    const cancel = h(
      'button',
      { class: 'danger', 'data-action': 'cancel', disabled: job.cancelRequested },
      job.cancelRequested ? 'cancelling…' : 'cancel',
    );
    cancel.addEventListener('click', (e) => {
      e.stopPropagation();
      cancel.disabled = true;
      postJson(`/api/jobs/${job.id}/cancel`).catch(onError);
    });
    span.append(cancel);
  } else {
    const retry = h('button', { 'data-action': 'retry' }, 'retry');
    retry.addEventListener('click', (e) => {
      e.stopPropagation();
      postJson<Job>(`/api/jobs/${job.id}/retry`).then(
        (j) => (location.hash = `#/jobs/${j.id}`),
        onError,
      );
    });
    span.append(retry);
  }
  return span;
}

function progressCell(job: Job): HTMLElement {
  if (job.state === 'succeeded') return h('div', {}, bar(1), h('span', { class: 'muted' }, 'done'));
  if (job.state !== 'running') return h('span', { class: 'muted' }, '');
  const p = job.progress;
  return h(
    'div',
    { title: p?.text ?? '' },
    bar((p?.percent ?? 0) / 100),
    h('span', { class: 'muted' }, p?.text.slice(0, 60) ?? 'starting…'),
  );
}

/** One field of the form: its label, its input and what it does. */
function field(label: string, input: HTMLInputElement, help: string): HTMLElement {
  return h(
    'label',
    { class: 'field' },
    h('span', { class: 'name' }, label),
    input,
    h('span', { class: 'help' }, help),
  );
}

/** The submit form: a command, then its positionals and options. */
function submitForm(commands: JobCommandInfo[], onError: (e: unknown) => void): HTMLElement {
  const select = h(
    'select',
    { name: 'command', 'data-testid': 'job-command' },
    commands.map((c) => h('option', { value: c.command }, c.command)),
  );
  const fields = h('div', { class: 'form-grid' });
  const summary = h('p', { class: 'muted' });
  const draw = (): void => {
    const c = commands.find((x) => x.command === select.value);
    fields.replaceChildren();
    if (c === undefined) return;
    summary.textContent = c.summary;
    for (const p of c.positionals) {
      fields.append(
        field(
          `${p.name}${p.required ? ' *' : ''}`,
          h('input', { type: 'text', 'data-positional': p.name, required: p.required }),
          p.description,
        ),
      );
    }
    for (const o of c.options) {
      const input =
        o.type === 'boolean'
          ? h('input', { type: 'checkbox', 'data-option': o.name })
          : h('input', { type: 'text', 'data-option': o.name, placeholder: o.value ?? '' });
      fields.append(field(`--${o.name}`, input, o.description));
    }
  };
  select.addEventListener('change', draw);
  draw();
  const submit = h(
    'button',
    { class: 'primary', type: 'submit', 'data-testid': 'job-submit' },
    'Queue job',
  );
  const form = h(
    'form',
    { class: 'card', 'data-testid': 'job-form' },
    h('h2', {}, 'Submit a job'),
    h('div', { class: 'filters' }, h('label', {}, 'command ', select)),
    summary,
    fields,
    h('p', {}, submit),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const positionals: string[] = [];
    for (const input of fields.querySelectorAll<HTMLInputElement>('[data-positional]'))
      if (input.value.trim() !== '') positionals.push(input.value.trim());
    const options: Record<string, string | boolean> = {};
    for (const input of fields.querySelectorAll<HTMLInputElement>('[data-option]')) {
      const key = input.dataset.option ?? '';
      if (input.type === 'checkbox') {
        if (input.checked) options[key] = true;
      } else if (input.value.trim() !== '') options[key] = input.value.trim();
    }
    submit.disabled = true;
    postJson<Job>('/api/jobs', { command: select.value, positionals, options })
      .then((job) => (location.hash = `#/jobs/${job.id}`), onError)
      .finally(() => (submit.disabled = false));
  });
  return form;
}

/** `#/jobs`: submit a job; every job, live. */
export async function jobsView(root: HTMLElement): Promise<() => void> {
  const info = await getJson<Info>('/api/info');
  const errors = h('div');
  const onError = (e: unknown): void => {
    errors.replaceChildren(errorBox(e));
  };
  const pool = h('p', { class: 'muted' });
  const jobs = new Map<number, Job>();
  const table = dataTable<Job>({
    testId: 'jobs',
    rowKey: (j) => String(j.id),
    onClick: (j) => (location.hash = `#/jobs/${j.id}`),
    sort: { key: 'id', order: 'desc' },
    empty: 'No jobs yet.',
    columns: [
      { key: 'id', label: 'id', value: (j) => j.id, numeric: true },
      {
        key: 'command',
        label: 'command',
        value: (j) => j.request.command,
        render: (j) =>
          h(
            'span',
            {},
            j.request.command,
            h(
              'div',
              { class: 'muted' },
              j.argv.slice(j.request.command.split(' ').length).join(' ').slice(0, 80),
            ),
          ),
      },
      { key: 'state', label: 'state', value: (j) => j.state, render: (j) => badge(j.state) },
      {
        key: 'progress',
        label: 'progress',
        value: (j) => j.progress?.percent ?? null,
        render: progressCell,
      },
      {
        key: 'created',
        label: 'queued (UTC)',
        value: (j) => j.createdAt,
        render: (j) => time(j.createdAt),
      },
      {
        key: 'took',
        label: 'took',
        value: (j) => (j.startedAt === null ? null : (j.finishedAt ?? Date.now()) - j.startedAt),
        render: (j) =>
          duration(j.startedAt === null ? null : (j.finishedAt ?? Date.now()) - j.startedAt),
        numeric: true,
      },
      { key: 'actions', label: '', value: () => null, render: (j) => actions(j, onError) },
    ],
  });
  const drawPool = (): void => {
    const running = [...jobs.values()]
      .filter((j) => j.state === 'running')
      .reduce((n, j) => n + j.slots, 0);
    pool.textContent = `Pool: ${running} of ${info.pool.slots} worker slots busy (the planner's ${info.pool.workload} workers for ${info.profile.displayName}, limited by ${info.pool.limitedBy}).`;
  };
  root.replaceChildren(
    h('h1', {}, 'Jobs'),
    pool,
    errors,
    table.element,
    submitForm(info.commands, onError),
  );
  for (const j of await getJson<Job[]>('/api/jobs?limit=200')) jobs.set(j.id, j);
  table.update([...jobs.values()]);
  drawPool();
  return onLive((m) => {
    if (m.event !== 'job') return;
    const job = m.data as Job;
    jobs.set(job.id, job);
    table.update([...jobs.values()]);
    drawPool();
  });
}

/** `#/jobs/ID`: one job, its progress and log as they come, its result rows. */
export async function jobView(root: HTMLElement, [id = '']: string[]): Promise<() => void> {
  const errors = h('div');
  const onError = (e: unknown): void => {
    errors.replaceChildren(errorBox(e));
  };
  const head = h('div');
  const log = h('pre', { class: 'log', 'data-testid': 'job-log' });
  const result = h('div');
  let lastSeq = 0;
  const appendLines = (lines: { stream: string; text: string }[]): void => {
    const stick = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    for (const l of lines) log.append(logLine(l));
    if (stick) log.scrollTop = log.scrollHeight;
  };
  const draw = (job: Job): void => {
    head.replaceChildren(
      h(
        'div',
        {},
        h(
          'h1',
          { 'data-testid': 'job-title' },
          `Job ${job.id}: ${job.request.command} `,
          h('span', { 'data-testid': 'job-state' }, badge(job.state)),
          ' ',
          actions(job, onError),
        ),
        h('p', {}, h('code', {}, `tradelab ${job.argv.join(' ')}`)),
        h(
          'div',
          { class: 'stats' },
          h(
            'div',
            { class: 'stat' },
            h('b', {}, time(job.createdAt)),
            h('span', {}, 'queued (UTC)'),
          ),
          h(
            'div',
            { class: 'stat' },
            h(
              'b',
              {},
              duration(
                job.startedAt === null ? null : (job.finishedAt ?? Date.now()) - job.startedAt,
              ),
            ),
            h('span', {}, 'running time'),
          ),
          h(
            'div',
            { class: 'stat' },
            h('b', {}, job.exitCode === null ? '–' : String(job.exitCode)),
            h('span', {}, 'exit code'),
          ),
          h('div', { class: 'stat' }, h('b', {}, String(job.slots)), h('span', {}, 'slots')),
        ),
        job.state === 'running'
          ? h(
              'div',
              { 'data-testid': 'job-progress' },
              bar((job.progress?.percent ?? 0) / 100),
              h('span', { class: 'muted' }, job.progress?.text ?? 'starting…'),
            )
          : job.state === 'succeeded'
            ? // The last progress line came before the end: a job that succeeded is all done.
              h(
                'div',
                { 'data-testid': 'job-progress' },
                bar(1),
                h('span', { class: 'muted' }, '100%: done'),
              )
            : null,
        job.error === null ? null : h('div', { class: 'error' }, job.error),
        job.retryOf === null
          ? null
          : h(
              'p',
              { class: 'muted' },
              'retry of ',
              h('a', { href: `#/jobs/${job.retryOf}` }, `job ${job.retryOf}`),
            ),
      ),
    );
    result.replaceChildren(...resultTables(job.result));
  };
  root.replaceChildren(
    h('p', {}, h('a', { href: '#/jobs' }, '← jobs')),
    errors,
    head,
    h('h2', {}, 'Result'),
    result,
    h('h2', {}, 'Log'),
    log,
  );
  draw(await getJson<Job>(`/api/jobs/${seg(id)}`));
  const lines = await getJson<LogLine[]>(`/api/jobs/${seg(id)}/log?limit=5000`);
  appendLines(lines);
  lastSeq = lines.at(-1)?.seq ?? 0;
  // New lines are fetched after the last one shown, so none is lost or shown twice.
  const follow = throttle(() => {
    void getJson<LogLine[]>(`/api/jobs/${seg(id)}/log?after=${lastSeq}&limit=5000`).then((more) => {
      appendLines(more.filter((l) => l.seq > lastSeq));
      lastSeq = Math.max(lastSeq, more.at(-1)?.seq ?? 0);
    });
  }, 300);
  return onLive((m) => {
    if (m.event === 'job' && (m.data as Job).id === Number(id)) {
      draw(m.data as Job);
      follow();
    }
    if (m.event === 'log' && (m.data as { id: number }).id === Number(id)) follow();
  });
}

/** A number as the result tables show it: whole ones grouped, others to 4 significant digits. */
function scalar(v: unknown): string {
  return typeof v === 'number'
    ? Number.isInteger(v)
      ? v.toLocaleString('en-US')
      : Number(v.toPrecision(4)).toString()
    : String(v);
}

/** A flat object (a trial's parameters) as `key=value …`; anything deeper as short JSON. */
function cell(v: unknown): string {
  if (typeof v !== 'object' || v === null) return scalar(v);
  const entries = Object.entries(v);
  if (Array.isArray(v) || entries.some(([, x]) => typeof x === 'object' && x !== null)) {
    return JSON.stringify(v).slice(0, 80);
  }
  return entries.map(([k, x]) => `${k}=${scalar(x)}`).join(' ');
}

/**
 * One line of a job's log as people read it: a JSON record the command printed (`--json`) as its
 * type and its fields, `trial: number=3 state=complete value=1.33 params: netDim=32 …` (the raw
 * line in its tooltip); progress lines and messages as they are.
 */
export function logLine(line: { stream: string; text: string }): HTMLElement {
  let record: unknown;
  try {
    record = line.text.startsWith('{') ? JSON.parse(line.text) : undefined;
  } catch {
    record = undefined; // not JSON after all: shown as it came
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return h('span', { class: line.stream }, `${line.text}\n`);
  const { type, ...fields } = record as Record<string, unknown>;
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? `${k}: ${cell(v)}`
        : `${k}=${cell(v)}`,
    );
  return h(
    'span',
    { class: `${line.stream} record`, title: line.text },
    `${typeof type === 'string' ? type : 'record'}: ${parts.join(' ')}\n`,
  );
}

/** The JSON rows a command printed, as tables grouped by their keys. */
export function resultTables(rows: unknown[]): HTMLElement[] {
  const objects = rows.filter(
    (r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r),
  );
  if (objects.length === 0) return [h('p', { class: 'muted' }, 'No result rows (yet).')];
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const o of objects) {
    const keys = Object.keys(o).join(',');
    groups.set(keys, [...(groups.get(keys) ?? []), o]);
  }
  return [...groups.values()].map((group) => {
    const keys = Object.keys(group[0] ?? {});
    return h(
      'div',
      { class: 'table-wrap', style: 'margin:8px 0' },
      h(
        'table',
        { 'data-testid': 'result-rows' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            keys.map((k) => h('th', {}, k)),
          ),
        ),
        h(
          'tbody',
          {},
          group.map((r) =>
            h(
              'tr',
              {},
              keys.map((k) => h('td', {}, cell(r[k]))),
            ),
          ),
        ),
      ),
    );
  });
}

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradelabVersion } from '../src/app/index.js';
import type { RunningService } from '../src/server/index.js';
import { runCliInProcess, tempDir } from './support/run-cli.js';
import { responseSchema, schemaProblems, type OpenApiDocument } from './support/openapi-check.js';
import {
  call,
  post,
  SERVICE_ENV,
  serviceProject,
  startTestService,
  tinyCampaign,
  waitForJob,
} from './support/service-project.js';

/*
 * The service's HTTP API on a real port, over a project whose campaign ran with the real CLI:
 * every response checked against the OpenAPI document the service serves, jobs run as real
 * processes (a data job to its end, a training job cancelled), live events read off the stream,
 * and the doors: bad bodies, paths out of the project, foreign Hosts and Origins.
 */

let dir: string;
let service: RunningService;
let base: string;
let doc: OpenApiDocument;

beforeAll(async () => {
  dir = await serviceProject();
  const ran = await runCliInProcess(['campaign', 'run', 'tiny.yaml'], {
    cwd: dir,
    env: SERVICE_ENV,
  });
  expect(ran.code, ran.stderr).toBe(0);
  service = await startTestService(dir);
  base = service.url;
  doc = (await call(base, '/openapi.json')).body as OpenApiDocument;
}, 120_000);

afterAll(async () => {
  await service.close();
});

/**
 * POSTs the first KiB of `body` with its whole Content-Length over node:http and returns the
 * answer: the service answers a body too large from the header, before reading it.
 */
function rawPost(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write(body.slice(0, 1024));
  });
}

/** GETs `path`, expects `status`, and checks the body against the document's schema of `route`. */
async function getChecked(path: string, route: string, status = 200): Promise<unknown> {
  const { status: got, body } = await call(base, path);
  expect(got, JSON.stringify(body)).toBe(status);
  expect(schemaProblems(doc, responseSchema(doc, 'get', route, status), body)).toEqual([]);
  return body;
}

describe('tradelab service: the API', () => {
  it('serves an OpenAPI 3.1 document of every route, and answers each as it says', () => {
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/campaigns',
      '/api/campaigns/{name}',
      '/api/campaigns/{name}/report.html',
      '/api/datasets',
      '/api/datasets/{dataset}/closes',
      '/api/events',
      '/api/health',
      '/api/info',
      '/api/jobs',
      '/api/jobs/{id}',
      '/api/jobs/{id}/cancel',
      '/api/jobs/{id}/log',
      '/api/jobs/{id}/retry',
      '/api/plan',
      '/api/profiles',
      '/api/runs',
      '/api/runs/{name}',
      '/api/runs/{name}/report.html',
      '/api/studies',
      '/api/studies/{name}',
      '/api/studies/{name}/importance',
      '/api/studies/{name}/trials',
      '/api/studies/{name}/trials/{number}',
      '/api/studies/{name}/trials/{number}/equity',
    ]);
    // The job request schema offers every allowed command with its own options, no setting flags
    // and no code to load.
    const schemas = doc.components?.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(['Job_campaign_run', 'Job_train_ppo', 'Job_bench_tcn', 'JobRequest']),
    );
    const optionsOf = (name: string): string[] =>
      Object.keys(
        (schemas[name]?.properties as Record<string, { properties?: object } | undefined>).options
          ?.properties ?? {},
      );
    expect(optionsOf('Job_study_run')).not.toContain('objective');
    expect(optionsOf('Job_train_ppo')).toContain('steps');
    expect(optionsOf('Job_train_ppo')).not.toContain('storage');
    const checked = doc as unknown as { paths: Record<string, Record<string, unknown>> };
    const committed = JSON.parse(
      readFileSync(join(__dirname, '..', 'docs', 'openapi.json'), 'utf8'),
    ) as object;
    // docs/openapi.json is the document as published: regenerate it with `node scripts/write-openapi.mjs`.
    expect({ ...(doc as object), info: undefined }).toEqual({ ...committed, info: undefined });
    expect(Object.keys(checked.paths['/api/jobs'] ?? {}).sort()).toEqual(['get', 'post']);
  });

  it('says what it is: version, profile, the pool the planner sized, the job commands', async () => {
    const health = await getChecked('/api/health', '/api/health');
    expect(health).toEqual({ ok: true, version: tradelabVersion() });
    const info = (await getChecked('/api/info', '/api/info')) as {
      profile: { name: string };
      pool: { slots: number };
      commands: { command: string }[];
    };
    expect(info.profile.name).toBe('cpu');
    expect(info.pool.slots).toBe(service.slots);
    expect(info.pool.slots).toBe(service.plan.plan.workers);
    expect(info.commands.map((c) => c.command)).toContain('campaign run');
    const plan = (await getChecked('/api/plan?workload=tcn', '/api/plan')) as Record<
      string,
      unknown
    >;
    expect(plan.workload).toBe('tcn');
    const profiles = (await getChecked('/api/profiles', '/api/profiles')) as { name: string }[];
    expect(profiles.map((p) => p.name)).toContain('rtx_4090');
  });

  it('reads datasets, studies, trials, importance, a campaign report and a trial equity curve', async () => {
    const datasets = (await getChecked('/api/datasets', '/api/datasets')) as { dataset: string }[];
    expect(datasets.map((d) => d.dataset)).toEqual(['SYN0:1h', 'SYN1:1h']);
    const closes = (await getChecked(
      '/api/datasets/SYN0:1h/closes?points=100',
      '/api/datasets/{dataset}/closes',
    )) as { close: number[] };
    expect(closes.close.length).toBeGreaterThan(90);
    expect(closes.close.length).toBeLessThanOrEqual(101);

    const studies = (await getChecked('/api/studies', '/api/studies')) as {
      name: string;
      campaign: string;
    }[];
    expect(studies.map((s) => s.name).sort()).toEqual([
      'tiny.ensemble_aggressive',
      'tiny.ensemble_balanced',
    ]);
    expect(studies.every((s) => s.campaign === 'tiny')).toBe(true);
    const name = 'tiny.ensemble_balanced';
    await getChecked(`/api/studies/${name}`, '/api/studies/{name}');
    const byValue = (await getChecked(
      `/api/studies/${name}/trials?sort=value&order=desc`,
      '/api/studies/{name}/trials',
    )) as { number: number; value: number | null; state: string }[];
    expect(byValue).toHaveLength(6);
    const values = byValue.map((t) => t.value ?? -Infinity);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const complete = (await getChecked(
      `/api/studies/${name}/trials?state=complete`,
      '/api/studies/{name}/trials',
    )) as { state: string }[];
    expect(complete.every((t) => t.state === 'complete')).toBe(true);
    const bad = await call(base, `/api/studies/${name}/trials?state=finished`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('state: unknown finished');

    const best = complete.length > 0 ? byValue.find((t) => t.state === 'complete') : undefined;
    expect(best).toBeDefined();
    const trial = (await getChecked(
      `/api/studies/${name}/trials/${best?.number ?? 0}`,
      '/api/studies/{name}/trials/{number}',
    )) as { intermediate: Record<string, number> };
    expect(Object.keys(trial.intermediate).length).toBeGreaterThan(0);
    const equity = (await getChecked(
      `/api/studies/${name}/trials/${best?.number ?? 0}/equity`,
      '/api/studies/{name}/trials/{number}/equity',
    )) as { times: number[]; strategy: number[]; benchmark: number[] };
    expect(equity.times.length).toBeGreaterThan(100);
    expect(equity.strategy).toHaveLength(equity.times.length);
    expect(equity.benchmark).toHaveLength(equity.times.length);
    expect(equity.times).toEqual([...equity.times].sort((a, b) => a - b));
    // Both curves start within one bar's move of 1.
    expect(Math.abs((equity.strategy[0] ?? 0) - 1)).toBeLessThan(0.2);
    expect(Math.abs((equity.benchmark[0] ?? 0) - 1)).toBeLessThan(0.2);
    await getChecked(`/api/studies/${name}/importance`, '/api/studies/{name}/importance');

    const missing = await call(base, `/api/studies/${name}/trials/999`);
    expect(missing.status).toBe(404);
    expect((missing.body as { error: { code: string } }).error.code).toBe('TRIAL_NOT_FOUND');
    const noStudy = await call(base, '/api/studies/nope');
    expect(noStudy.status).toBe(404);
    expect((noStudy.body as { error: { code: string } }).error.code).toBe('STUDY_NOT_FOUND');

    const campaigns = (await getChecked('/api/campaigns', '/api/campaigns')) as { name: string }[];
    expect(campaigns.map((c) => c.name)).toEqual(['tiny']);
    const report = (await getChecked('/api/campaigns/tiny', '/api/campaigns/{name}')) as {
      studies: { target: number }[];
    };
    expect(report.studies.map((s) => s.target)).toEqual([6, 4]);
    const html = await call(base, '/api/campaigns/tiny/report.html');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(String(html.body)).toContain('<svg');
  });

  it('runs a job to its end: queued, running, succeeded, with its log and JSON rows', async () => {
    const submitted = await post(base, '/api/jobs', {
      command: 'data synth',
      // Numbers are taken as they would be written on the command line.
      options: { symbols: 'JOB', bars: 500, timeframe: '1h', seed: '3' },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    expect(
      schemaProblems(doc, responseSchema(doc, 'post', '/api/jobs', 201), submitted.body),
    ).toEqual([]);
    const { id, argv } = submitted.body as { id: number; argv: string[] };
    expect(argv).toEqual([
      'data',
      'synth',
      '--symbols',
      'JOB',
      '--bars',
      '500',
      '--timeframe',
      '1h',
      '--seed',
      '3',
      '--json',
      '--progress-records',
    ]);
    const job = await waitForJob(base, id, ['succeeded', 'failed']);
    expect(job.state, JSON.stringify(job)).toBe('succeeded');
    expect(job.result).toEqual([expect.objectContaining({ type: 'synth', datasets: ['JOB:1h'] })]);
    const log = (await getChecked(`/api/jobs/${id}/log`, '/api/jobs/{id}/log')) as {
      text: string;
    }[];
    expect(log.some((l) => l.text.includes('"type":"synth"'))).toBe(true);
    const list = (await getChecked(
      '/api/jobs?state=succeeded&command=data%20synth',
      '/api/jobs',
    )) as { id: number }[];
    expect(list.map((j) => j.id)).toContain(id);
    const datasets = (await call(base, '/api/datasets')).body as { dataset: string }[];
    expect(datasets.map((d) => d.dataset)).toContain('JOB:1h');
  });

  it("gives a campaign's holdout report as the CLI does: the same use case, the same figures", async () => {
    const cli = await runCliInProcess(
      ['campaign', 'report', 'tiny', '--format', 'json', '--json'],
      {
        cwd: dir,
        env: SERVICE_ENV,
      },
    );
    expect(cli.code, cli.stderr).toBe(0);
    type Holdout = { trial: number; sharpe: number; totalReturn: number; benchmarkSharpe: number };
    type Report = { studies: { study: string; holdout?: Holdout }[] };
    const fromCli = JSON.parse(cli.stdout.trim()) as Report;
    const fromApi = (await getChecked(
      '/api/campaigns/tiny?holdout=true',
      '/api/campaigns/{name}',
    )) as Report;
    const holdouts = (r: Report): [string, Holdout | undefined][] =>
      r.studies.map((s) => [
        s.study,
        s.holdout && {
          trial: s.holdout.trial,
          sharpe: s.holdout.sharpe,
          totalReturn: s.holdout.totalReturn,
          benchmarkSharpe: s.holdout.benchmarkSharpe,
        },
      ]);
    expect(holdouts(fromApi)).toEqual(holdouts(fromCli));
    expect(holdouts(fromApi).some(([, h]) => h !== undefined)).toBe(true);
    // Without the query, no model is evaluated.
    const plain = (await call(base, '/api/campaigns/tiny')).body as Report;
    expect(plain.studies.every((s) => s.holdout === undefined)).toBe(true);
  }, 60_000);

  it('holds a pool slot per worker process a study or campaign job starts, as the command sizes itself', async () => {
    type Submitted = { id: number; slots: number; argv: string[] };
    const logText = async (id: number): Promise<string> =>
      ((await call(base, `/api/jobs/${id}/log`)).body as { text: string }[])
        .map((l) => l.text)
        .join('\n');
    // tiny's studies are at their targets: auto means one worker (at most the trials left).
    const done = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['tiny.yaml'],
    });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    const finished = done.body as Submitted;
    expect(finished.slots).toBe(1);
    expect(finished.argv).not.toContain('--workers');
    expect((await waitForJob(base, finished.id, ['succeeded', 'failed'])).state).toBe('succeeded');
    expect(await logText(finished.id)).toMatch(/"type":"start".*"workers":1,.*"why":"auto: /);

    // A campaign with trials to go: the job holds what its own first line says it starts.
    writeFileSync(join(dir, 'wide.yaml'), tinyCampaign('wide', [4, 4]));
    const wide = (
      await post(base, '/api/jobs', { command: 'campaign run', positionals: ['wide.yaml'] })
    ).body as Submitted;
    const deadline = Date.now() + 60_000;
    let first: RegExpExecArray | null = null;
    while (first === null && Date.now() < deadline) {
      first = /"type":"start".*"workers":(\d+),.*"why":"auto: /.exec(await logText(wide.id));
      if (first === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(first, await logText(wide.id)).not.toBeNull();
    expect(Number(first?.[1])).toBe(wide.slots);
    expect(wide.slots).toBeLessThanOrEqual(service.slots);
    await post(base, `/api/jobs/${wide.id}/cancel`);
    await waitForJob(base, wide.id, ['succeeded', 'failed', 'cancelled']);

    // A forecasting set of one model holds one slot: auto means the models that fit, at most the set.
    const one = (
      await post(base, '/api/jobs', {
        command: 'train forecast',
        options: { data: 'SYN0:1h', models: '1', epochs: '1', 'steps-per-epoch': '1' },
      })
    ).body as Submitted;
    expect(one.slots).toBe(1);
    await post(base, `/api/jobs/${one.id}/cancel`);
    await waitForJob(base, one.id, ['succeeded', 'failed', 'cancelled']);

    // A count past the pool is told the pool; a count that is no count is refused where it is.
    const many = (
      await post(base, '/api/jobs', {
        command: 'campaign run',
        positionals: ['tiny.yaml'],
        options: { workers: '64' },
      })
    ).body as Submitted;
    expect(many.slots).toBe(service.slots);
    expect(many.argv.join(' ')).toContain(`--workers ${service.slots}`);
    await waitForJob(base, many.id, ['succeeded', 'failed', 'cancelled']);
    const bad = await post(base, '/api/jobs', {
      command: 'study run',
      positionals: ['tiny-ensemble_balanced'],
      options: { workers: 'lots' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('options.workers: \\"lots\\" is not allowed');
  });

  it('cancels a running job (SIGTERM to its process) and retries it as a new job', async () => {
    const { body } = await post(base, '/api/jobs', {
      command: 'train ppo',
      options: {
        data: 'SYN0:1h',
        out: 'runs/long',
        steps: '100000000',
        envs: '2',
        'net-dim': '16',
        'target-step': '128',
        'batch-size': '64',
      },
    });
    const { id } = body as { id: number };
    const running = await waitForJob(base, id, ['running', 'failed']);
    expect(running.state, JSON.stringify(running)).toBe('running');
    // Its progress comes from the command's own progress lines.
    const deadline = Date.now() + 60_000;
    let job = running;
    while (job.progress === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await call(base, `/api/jobs/${id}`)).body as Record<string, unknown>;
    }
    expect((job.progress as { text?: string } | null)?.text).toMatch(/steps|updates/);
    const cancel = await post(base, `/api/jobs/${id}/cancel`);
    expect(cancel.status).toBe(200);
    expect((cancel.body as { cancelRequested: boolean }).cancelRequested).toBe(true);
    const cancelled = await waitForJob(base, id, ['cancelled', 'failed', 'succeeded'], 60_000);
    expect(cancelled.state).toBe('cancelled');
    const again = await post(base, `/api/jobs/${id}/cancel`);
    expect(again.status).toBe(409);
    expect((again.body as { error: { code: string } }).error.code).toBe('JOB_ENDED');
    const retry = await post(base, `/api/jobs/${id}/retry`);
    expect(retry.status).toBe(200);
    const retried = retry.body as { id: number; retryOf: number };
    expect(retried.retryOf).toBe(id);
    await post(base, `/api/jobs/${retried.id}/cancel`);
    await waitForJob(base, retried.id, ['cancelled', 'failed', 'succeeded'], 60_000);
    // The cancelled run is a run of the runs directory, stopped where it can resume.
    const runs = (await getChecked('/api/runs', '/api/runs')) as {
      name: string;
      kind: string;
      status: string;
    }[];
    expect(runs.find((r) => r.name === 'long')).toEqual(
      expect.objectContaining({ kind: 'ppo', status: 'interrupted' }),
    );
    const manifest = (await call(base, '/api/runs/long')).body as { agent: string };
    expect(manifest.agent).toBe('ppo');
    expect((await call(base, '/api/runs/..%2F..%2Fetc')).status).toBe(404);
    expect((await call(base, '/api/runs/long/report.html')).status).toBe(404);
  }, 120_000);

  it('streams live events: the job, its log, and the trials of a campaign job as they end', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/api/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const { body } = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['more.yaml'],
    });
    expect(JSON.stringify(body)).toContain('FILE_NOT_FOUND');
    writeFileSync(join(dir, 'more.yaml'), tinyCampaign('more', [3, 2]));
    const started = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['more.yaml'],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const { id } = started.body as { id: number };
    const deadline = Date.now() + 90_000;
    while (
      !/event: trial\ndata: \{"study":"more\./.test(text) ||
      !text.includes(`"id":${id},"request"`) ||
      !/"state":"succeeded"/.test(text)
    ) {
      if (Date.now() > deadline) throw new Error(`events so far:\n${text.slice(0, 3000)}`);
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
    expect(text).toMatch(/^event: hello$/m);
    expect(text).toMatch(/^event: job$/m);
    expect(text).toMatch(/^event: log$/m);
    const ended = await waitForJob(base, id, ['succeeded']);
    // The job's progress is the command's last progress record: 5 of 5 trials, not scraped text.
    const progress = ended.progress as { percent: number; text: string };
    expect(progress.percent).toBe(100);
    expect(progress.text).toMatch(/^100% \(5\/5 trials\)/);
    expect(ended.result).not.toContainEqual(expect.objectContaining({ type: 'progress' }));
  }, 120_000);
});

describe('tradelab service: bad requests get a 4xx and a message, never a crash', () => {
  it('refuses bad JSON, wrong types, unknown options and commands, and oversized bodies', async () => {
    const raw = (
      body: string,
      type = 'application/json',
    ): Promise<{ status: number; body: unknown }> =>
      call(base, '/api/jobs', { method: 'POST', headers: { 'content-type': type }, body });
    const broken = await raw('{"command": "train ppo",');
    expect(broken.status).toBe(400);
    expect(JSON.stringify(broken.body)).toMatch(/JSON/i);
    const wrongType = await post(base, '/api/jobs', {
      command: 'train ppo',
      options: { steps: true, 'no-test': 'yes' },
    });
    expect(wrongType.status).toBe(400);
    const wrong = (wrongType.body as { error: { code: string; message: string } }).error;
    expect(wrong.code).toBe('INVALID_REQUEST');
    // Each bad field at its own path.
    expect(wrong.message).toMatch(/json\.options\.steps: /);
    expect(wrong.message).toMatch(/json\.options\.no-test: .*boolean/);
    const notAnObject = await post(base, '/api/jobs', ['train ppo']);
    expect((notAnObject.body as { error: { message: string } }).error.message).toMatch(
      /^json: expected a JSON object/,
    );
    const noSuchCommand = await post(base, '/api/jobs', { command: 'study rm' });
    expect((noSuchCommand.body as { error: { message: string } }).error.message).toMatch(
      /^json\.command: not a command jobs may run; one of: train ppo, .*campaign run/,
    );
    const unknownOption = await post(base, '/api/jobs', {
      command: 'train ppo',
      options: { storage: 'sqlite:/tmp/x.db' },
    });
    expect(unknownOption.status).toBe(400);
    const code = await post(base, '/api/jobs', {
      command: 'study run',
      positionals: ['s'],
      options: { objective: 'evil.mjs' },
    });
    expect(code.status).toBe(400);
    const unknownCommand = await post(base, '/api/jobs', {
      command: 'study rm',
      positionals: ['tiny.ensemble_balanced'],
    });
    expect(unknownCommand.status).toBe(400);
    const dashes = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['--storage=x'],
    });
    expect(dashes.status).toBe(400);
    const text = await raw('{}', 'text/plain');
    expect(text.status).toBeGreaterThanOrEqual(400);
    expect(text.status).toBeLessThan(500);
    // The service answers 413 from Content-Length, before reading the body (fetch would report
    // the socket closed under a body still being sent): raw HTTP reads the answer.
    const huge = await rawPost(
      '/api/jobs',
      JSON.stringify({ command: 'data synth', options: { symbols: 'x'.repeat(2 * 1024 * 1024) } }),
    );
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('BODY_TOO_LARGE');
    const badId = await call(base, '/api/jobs/abc');
    expect(badId.status).toBe(400);
    const noRoute = await call(base, '/api/nothing');
    expect(noRoute.status).toBe(404);
    // Still alive.
    expect((await call(base, '/api/health')).status).toBe(200);
  });

  it('never reads or writes outside the project: .., absolute paths, symlinks, encoded forms', async () => {
    const outside = tempDir('tradelab-outside-');
    mkdirSync(join(dir, 'links'), { recursive: true });
    symlinkSync(outside, join(dir, 'links', 'out'));
    const refused = async (body: unknown): Promise<void> => {
      const answer = await post(base, '/api/jobs', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect((answer.body as { error: { code: string } }).error.code).toBe('PATH_OUTSIDE_PROJECT');
    };
    const train = (out: string): unknown => ({
      command: 'train ppo',
      options: { data: 'SYN0:1h', out },
    });
    await refused(train('../escape'));
    await refused(train('runs/../../escape'));
    await refused(train('/tmp/escape'));
    await refused(train('links/out/run'));
    await refused(train('links/out'));
    await refused({ command: 'campaign run', positionals: ['../../etc/passwd'] });
    await refused({
      command: 'train ppo',
      options: { data: 'SYN0:1h', out: 'runs/x', policy: 'tcn:../elsewhere' },
    });
    // Inside is fine (the job may then fail for its own reasons).
    const inside = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['./links/../tiny.yaml'],
      options: { workers: '1' },
    });
    expect(inside.status).toBe(201);
    await post(base, `/api/jobs/${(inside.body as { id: number }).id}/cancel`);

    // Path parameters, encoded: they name records, never files.
    for (const path of [
      '/api/datasets/..%2F..%2Fetc%2Fpasswd/closes',
      '/api/datasets/%2Fetc%2Fpasswd/closes',
      '/api/studies/..%2F..%2Fetc/trials',
      '/assets/..%2F..%2Fpackage.json',
      '/assets/%2e%2e/%2e%2e/package.json',
    ]) {
      const answer = await call(base, path);
      expect([400, 404], `${path}: ${answer.status}`).toContain(answer.status);
      expect(JSON.stringify(answer.body)).not.toContain('"name": "tradelab"');
    }
    // Unnormalized paths, sent as they are (fetch would resolve the dots first).
    for (const path of [
      '/assets/../../package.json',
      '/assets/../src/server/service.ts',
      '/../package.json',
    ]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${base}${path}`, { method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.path = path;
        req.on('error', reject);
        req.end();
      });
      expect([400, 404], `${path}: ${status}`).toContain(status);
    }
  });

  it('refuses foreign Host headers (DNS rebinding) and cross-origin writes; CORS stays closed', async () => {
    const rebinding = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${base}/api/info`,
        { headers: { host: 'evil.example:8321' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(rebinding).toBe(403);
    const crossSite = await call(base, '/api/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ command: 'data synth', options: {} }),
    });
    expect(crossSite.status).toBe(403);
    expect((crossSite.body as { error: { code: string } }).error.code).toBe('FORBIDDEN_ORIGIN');
    const preflight = await call(base, '/api/jobs', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const read = await call(base, '/api/info', { headers: { origin: 'http://evil.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(read.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

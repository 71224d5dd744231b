import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/server/index.js';
import { tempDir } from './support/run-cli.js';
import { call, post, startTestService, waitForJob } from './support/service-project.js';

/*
 * The service's doors as an outside probe tried them: Host names a DNS-rebinding page would send,
 * foreign Origins, a job pointed at a file of secrets or at a campaign file whose keys lead out of
 * the project, run files symlinked out of the project or cut short, and the token's scheme in
 * another case. A real service on a real port, real job processes, headers sent as given.
 */

let dir: string;
let outside: string;
let service: RunningService;
let base: string;

beforeAll(async () => {
  dir = tempDir('tradelab-service-doors-');
  outside = tempDir('tradelab-outside-');
  service = await startTestService(dir);
  base = service.url;
}, 60_000);

afterAll(async () => {
  await service.close();
});

/** A request with exactly these headers (Host included), over node:http: status and body. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: service.port, method, path, headers, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = {};
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON (Node's own 400 for a request it cannot parse): no body to look at.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as { error?: never } });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('tradelab service: Host and Origin on a loopback bind', () => {
  it('answers only literal loopback names in Host: no prefix, suffix or other spelling passes', async () => {
    const port = String(service.port);
    const refused = [
      '127.evil.com',
      `127.evil.com:${port}`,
      '127.0.0.1.evil.com',
      `127.0.0.1.evil.com:${port}`,
      `localhost.evil.com:${port}`,
      `localhost.:${port}`,
      `127.0.0.1.:${port}`,
      `evil.com:${port}`,
      `[::1].evil.com:${port}`,
      `localhost:${port}@evil.com`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `0x7f.0.0.1:${port}`,
      `127.0.0.256:${port}`,
      `[::2]:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
      `0.0.0.0:${port}`,
      '',
    ];
    for (const host of refused) {
      const answer = await raw('GET', '/api/info', { host });
      // A Host that is not a URL's host as written ([::1].evil.com, 127.1) is refused by the
      // server library before the doors: 400.
      expect([400, 403], `Host "${host}": ${answer.status}`).toContain(answer.status);
      if (answer.status === 403) expect(answer.body.error?.code).toBe('FORBIDDEN_HOST');
    }
    const accepted = [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      `LocalHost:${port}`,
      `127.3.2.1:${port}`,
      `[::1]:${port}`,
      // ::ffff:127.0.0.1 as a browser writes it; the server library refuses other spellings (400).
      `[::ffff:7f00:1]:${port}`,
    ];
    for (const host of accepted) {
      expect((await raw('GET', '/api/info', { host })).status, `Host "${host}"`).toBe(200);
    }
    // No Host at all: Node answers 400 before the service sees it.
    expect((await raw('GET', '/api/info', {})).status).toBe(400);
  });

  it('lets no page on a rebinding name or another origin submit a job; its own origin passes', async () => {
    const port = String(service.port);
    const job = JSON.stringify({ command: 'data synth', options: { symbols: 'EVIL', bars: 100 } });
    const json = { 'content-type': 'application/json' };
    // The probe's page: served from 127.0.0.1.evil.com, which resolves to 127.0.0.1.
    for (const name of ['127.0.0.1.evil.com', '127.evil.com']) {
      const answer = await raw(
        'POST',
        '/api/jobs',
        { ...json, host: `${name}:${port}`, origin: `http://${name}:${port}` },
        job,
      );
      expect(answer.status, name).toBe(403);
    }
    // A loopback Host with another site's Origin, or an opaque one.
    for (const origin of [
      `http://127.0.0.1.evil.com:${port}`,
      `http://localhost.evil.com:${port}`,
      `https://localhost:${port}`,
      `http://localhost:${Number(port) + 1}`,
      'null',
    ]) {
      const answer = await raw(
        'POST',
        '/api/jobs',
        { ...json, host: `localhost:${port}`, origin },
        job,
      );
      expect(answer.status, origin).toBe(403);
      expect(answer.body.error?.code, origin).toBe('FORBIDDEN_ORIGIN');
    }
    const jobs = (await call(base, '/api/jobs')).body as unknown[];
    expect(jobs).toEqual([]);
    // The dashboard's own origin passes the doors (and this request is then refused as a request).
    const own = await raw(
      'POST',
      '/api/jobs',
      { ...json, host: `localhost:${port}`, origin: `http://localhost:${port}` },
      JSON.stringify({ command: 'nothing' }),
    );
    expect(own.status).toBe(400);
    expect(own.body.error?.code).toBe('INVALID_REQUEST');
  });
});

describe('tradelab service: what a job may read', () => {
  it('runs a campaign job on a campaign file only, and quotes nothing of a file that is not one', async () => {
    const secrets = 'TRADELAB_STORAGE=postgres://trader:pa55word@db/studies\nAPI_KEY=abcdef\n';
    writeFileSync(join(dir, '.env'), secrets);
    for (const file of ['.env', 'secrets.txt', 'campaigns/c.yaml.bak']) {
      const answer = await post(base, '/api/jobs', {
        command: 'campaign run',
        positionals: [file],
      });
      expect(answer.status, file).toBe(400);
      expect((answer.body as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `positional FILE: "${file}" is not a .yaml, .yml, .json file`,
      });
    }
    // The same text under a campaign file's name: the job fails, saying what is wrong, not what
    // the file holds.
    writeFileSync(join(dir, 'secrets.yaml'), secrets);
    const submitted = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['secrets.yaml'],
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const { id } = submitted.body as { id: number };
    const job = await waitForJob(base, id, ['failed', 'succeeded']);
    expect(job.state).toBe('failed');
    expect(String(job.error)).toContain(
      'secrets.yaml:1:1: (top level): expected a mapping, found a string',
    );
    const log = JSON.stringify((await call(base, `/api/jobs/${id}/log`)).body);
    expect(`${String(job.error)}${log}`).not.toMatch(/pa55word|abcdef|TRADELAB_STORAGE/);
  }, 60_000);

  it("keeps a campaign job's storage and policy inside the project, checked when the job reads the file", async () => {
    const evil = join(outside, 'evil.db');
    writeFileSync(
      join(dir, 'escape.yaml'),
      `name: escape\ndata: SYN0:1h\nstorage: sqlite:${evil}\npolicy: tcn:../../..\nstudies:\n  - preset: ensemble_balanced\n    trials: 1\n`,
    );
    const submitted = await post(base, '/api/jobs', {
      command: 'campaign run',
      positionals: ['escape.yaml'],
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const { id, argv } = submitted.body as { id: number; argv: string[] };
    expect(argv).toContain('--inside-project');
    const job = await waitForJob(base, id, ['failed', 'succeeded']);
    expect(job.state).toBe('failed');
    expect(String(job.error)).toMatch(
      /^error \[PATH_OUTSIDE_PROJECT\]: .*escape\.yaml:3:10: storage: .*evil\.db leaves the project$/,
    );
    const log = JSON.stringify((await call(base, `/api/jobs/${id}/log`)).body);
    expect(log).toMatch(/escape\.yaml:4:9: policy: \/ leaves the project/);
    expect(existsSync(evil)).toBe(false);
  }, 60_000);
});

describe('tradelab service: run files', () => {
  it('serves no run file or report that a symlink leads out of the runs, and a cut-short one as an error', async () => {
    writeFileSync(join(outside, 'manifest.json'), '{"status": "finished", "secret": "pa55word"}');
    writeFileSync(join(outside, 'report.html'), '<p>pa55word</p>');
    for (const name of ['linked', 'real', 'cut'])
      mkdirSync(join(dir, 'runs', name), { recursive: true });
    symlinkSync(join(outside, 'manifest.json'), join(dir, 'runs', 'linked', 'manifest.json'));
    writeFileSync(join(dir, 'runs', 'real', 'manifest.json'), '{"status": "finished"}');
    symlinkSync(join(outside, 'report.html'), join(dir, 'runs', 'real', 'report.html'));
    writeFileSync(join(dir, 'runs', 'cut', 'manifest.json'), '{"status": "runn');

    const runs = (await call(base, '/api/runs')).body as { name: string; report: boolean }[];
    expect(runs.map((r) => r.name).sort()).toEqual(['cut', 'real']);
    expect(runs.find((r) => r.name === 'real')?.report).toBe(false);
    const linked = await call(base, '/api/runs/linked');
    expect(linked.status).toBe(404);
    const report = await call(base, '/api/runs/real/report.html');
    expect(report.status).toBe(404);
    expect(`${JSON.stringify(linked.body)}${String(report.body)}`).not.toContain('pa55word');
    expect((await call(base, '/api/runs/real')).body).toEqual({ status: 'finished' });

    const cut = await call(base, '/api/runs/cut');
    expect(cut.body).toMatchObject({
      error: {
        code: 'MODEL_INVALID',
        message: `${join(dir, 'runs', 'cut', 'manifest.json')} is not complete JSON`,
      },
    });
  });
});

describe('tradelab service: the token off localhost', () => {
  it('takes the Bearer scheme in any case (RFC 7235)', async () => {
    const project = tempDir('tradelab-service-token-');
    const open = await startTestService(project, { host: '0.0.0.0' });
    try {
      const token = open.newToken ?? '';
      expect(token).not.toBe('');
      const url = `http://127.0.0.1:${open.port}`;
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const answer = await call(url, '/api/info', {
          headers: { authorization: `${scheme} ${token}` },
        });
        expect(answer.status, scheme).toBe(200);
      }
      const wrong = await call(url, '/api/info', { headers: { authorization: 'bearer nope' } });
      expect(wrong.status).toBe(401);
      expect((wrong.body as { error: { message: string } }).error.message).toBe('wrong token');
    } finally {
      await open.close();
    }
  });
});

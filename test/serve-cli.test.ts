import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/run-cli.js';
import { call, post, serviceProject, waitForJob } from './support/service-project.js';

/*
 * `tradelab serve` as a real process: the banner it logs as seed 004's backend did, the token
 * flow of a non-localhost bind, and a service killed with SIGKILL while jobs run and wait: its
 * jobs' processes stop (they watch the service), and the next start marks them interrupted and
 * starts the queued ones, losing nothing.
 */

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `tradelab serve ARGS --port 0 --json` in `dir` and waits for the URL it prints. */
function serve(dir: string, ...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--json', ...args], {
    cwd: dir,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: dir, TRADELAB_DETECT: 'false' },
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) {
        const { url } = JSON.parse(line) as { url: string };
        // A bind to every address is reached here on loopback.
        resolve({ child, url: url.replace('0.0.0.0', '127.0.0.1'), stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
}

/** Whether process `pid` is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('tradelab serve', () => {
  it('logs the profile banner and the pool size on start, and stops cleanly on SIGTERM', async () => {
    const dir = await serviceProject();
    const served = await serve(dir);
    expect(served.stderr()).toMatch(
      /^GPU: using profile 'CPU only' \(no GPU; .* RAM\) by default .*; workers: \d+$/m,
    );
    expect(served.stderr()).toMatch(
      /^API: job pool of \d+ worker slots? \(the planner's drl workers, limited by \w+\); jobs and studies in sqlite:.*tradelab\.db$/m,
    );
    expect(served.stderr()).toMatch(/^serving http:\/\/127\.0\.0\.1:\d+ /m);
    expect(served.stderr()).not.toMatch(/token/);
    expect((await call(served.url, '/api/info')).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('requires a token off localhost: printed once, stored hashed, sent as Bearer or cookie', async () => {
    const dir = await serviceProject();
    // A start that fails (its port taken) keeps no token that nobody was shown.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    const taken = String((blocker.address() as AddressInfo).port);
    const failed = await runCli(['serve', '--host', '0.0.0.0', '--port', taken], {
      cwd: dir,
      env: { TRADELAB_DETECT: 'false' },
    });
    blocker.close();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/cannot serve on 0\.0\.0\.0:\d+: port \d+ is taken/);
    expect(existsSync(join(dir, '.tradelab', 'server-token.json'))).toBe(false);

    const first = await serve(dir, '--host', '0.0.0.0');
    const token = /^token: (\S+)$/m.exec(first.stderr())?.[1] ?? '';
    expect(token).toMatch(/^[\w-]{43}$/);
    const stored = readFileSync(join(dir, '.tradelab', 'server-token.json'), 'utf8');
    expect(stored).not.toContain(token);
    const record = JSON.parse(stored) as { sha256: string; createdAt: string };
    expect(Object.keys(record).sort()).toEqual(['createdAt', 'sha256']);
    expect(record.sha256).toMatch(/^[0-9a-f]{64}$/);

    const bearer = { headers: { authorization: `Bearer ${token}` } };
    const none = await call(first.url, '/api/info');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((none.body as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect(
      (await call(first.url, '/api/info', { headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    expect((await call(first.url, '/api/info', bearer)).status).toBe(200);
    expect((await call(first.url, '/api/events', { method: 'HEAD' })).status).toBe(401);
    expect((await call(first.url, '/api/health')).status).toBe(200);
    const page = await call(first.url, '/');
    expect(page.status).toBe(401);
    expect(String(page.body)).toContain('<form');
    // The dashboard's way in: /?token=… once, then a cookie the page's requests carry.
    const login = await fetch(`${first.url}/?token=${token}`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^tradelab_token=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const withCookie = { headers: { cookie: cookie.split(';')[0] ?? '' } };
    expect((await call(first.url, '/api/info', withCookie)).status).toBe(200);
    expect((await call(first.url, '/', withCookie)).status).toBe(200);
    expect((await fetch(`${first.url}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
    first.child.kill('SIGTERM');
    await first.exited;

    // The next start shows no token, and the stored one still opens it.
    const second = await serve(dir, '--host', '0.0.0.0');
    expect(second.stderr()).not.toMatch(/^token: /m);
    expect(second.stderr()).toMatch(/a token is required .*--new-token/);
    expect((await call(second.url, '/api/info', bearer)).status).toBe(200);
    second.child.kill('SIGTERM');
    await second.exited;

    // --new-token replaces it: the old one no longer opens the service.
    const third = await serve(dir, '--host', '0.0.0.0', '--new-token');
    const replaced = /^token: (\S+)$/m.exec(third.stderr())?.[1] ?? '';
    expect(replaced).not.toBe(token);
    expect((await call(third.url, '/api/info', bearer)).status).toBe(401);
    expect(
      (await call(third.url, '/api/info', { headers: { authorization: `Bearer ${replaced}` } }))
        .status,
    ).toBe(200);
    third.child.kill('SIGTERM');
    await third.exited;
  });

  it('loses nothing when killed: its jobs stop, the next start marks them interrupted and runs the queued', async () => {
    const dir = await serviceProject();
    const first = await serve(dir, '--workers', '1');
    const long = (out: string): unknown => ({
      command: 'train ppo',
      options: {
        data: 'SYN0:1h',
        out,
        steps: '100000000',
        envs: '2',
        'net-dim': '16',
        'target-step': '128',
        'batch-size': '64',
      },
    });
    const a = (await post(first.url, '/api/jobs', long('runs/a'))).body as { id: number };
    const b = (await post(first.url, '/api/jobs', long('runs/b'))).body as { id: number };
    const running = await waitForJob(first.url, a.id, ['running']);
    const deadline = Date.now() + 30_000;
    let pid = running.pid as number | null;
    while (pid === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      pid = ((await call(first.url, `/api/jobs/${a.id}`)).body as { pid: number | null }).pid;
    }
    expect(pid).not.toBeNull();
    expect((await call(first.url, `/api/jobs/${b.id}`)).body).toEqual(
      expect.objectContaining({ state: 'queued' }),
    );
    first.child.kill('SIGKILL');
    await first.exited;
    // The job's process notices that its service is gone and stops.
    const gone = Date.now() + 60_000;
    while (alive(pid as number) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid as number)).toBe(false);

    const second = await serve(dir, '--workers', '1');
    expect(second.stderr()).toMatch(
      new RegExp(`jobs ${a.id} were running when the service stopped: marked interrupted`),
    );
    const interrupted = (await call(second.url, `/api/jobs/${a.id}`)).body as {
      state: string;
      error: string;
    };
    expect(interrupted.state).toBe('interrupted');
    expect(interrupted.error).toMatch(/interrupted: the service running it .* stopped/);
    // The queued job was kept, and starts now.
    await waitForJob(second.url, b.id, ['running']);
    const retry = (await post(second.url, `/api/jobs/${a.id}/retry`)).body as {
      id: number;
      state: string;
    };
    expect(retry.state).toBe('queued');
    await post(second.url, `/api/jobs/${b.id}/cancel`);
    await waitForJob(second.url, b.id, ['cancelled']);
    await waitForJob(second.url, retry.id, ['running']);
    // A clean stop ends its running job as interrupted too (not failed): it can be retried.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const third = await serve(dir, '--workers', '1');
    expect((await call(third.url, `/api/jobs/${retry.id}`)).body).toEqual(
      expect.objectContaining({ state: 'interrupted' }),
    );
    third.child.kill('SIGTERM');
    await third.exited;
  }, 180_000);
});

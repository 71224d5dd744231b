import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatasetStore } from '../data/index.js';
import { writeSyntheticMarket } from './synthetic-store.js';

/*
 * The service under load as a user's dashboard puts it there, and worse: `clients` concurrent
 * readers (each a loop of the requests a dashboard makes) for `seconds`, while a campaign job
 * writes trials into the same SQLite file. The service is a real `tradelab serve` process and the
 * campaign real worker processes; the clients run here. What matters: no request fails, none
 * meets "database is locked", and the latency percentiles readers see while trials are written.
 */

/** Options of {@link benchServe}. */
export interface ServeBenchOptions {
  /** How tradelab starts: node and its bin (the CLI passes its own). */
  command: readonly string[];
  /** Concurrent clients. Default 50. */
  clients?: number;
  /** Seconds of load. Default 20. */
  seconds?: number;
  /** Called every second of the load with the requests so far. */
  onProgress?: (elapsedS: number, requests: number) => void;
}

/** Latencies of one endpoint (or all of them: `endpoint` is `all`). */
export interface ServeBenchRow {
  bench: 'serve';
  endpoint: string;
  requests: number;
  /** Failed requests: an error status, a refused connection, or a "database is locked". */
  errors: number;
  /** Of the errors, those that said the database was locked (SQLITE_BUSY). */
  locked: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests per second over the load. */
  perSecond: number;
}

/** What {@link benchServe} measured. */
export interface ServeBenchResult {
  rows: ServeBenchRow[];
  total: ServeBenchRow;
  clients: number;
  seconds: number;
  /** Trials the campaign ended while the clients read: the writes the reads met. */
  trialsWritten: number;
  /** The first few errors, as said. */
  errorSamples: string[];
  machine: { cpus: number; node: string; loadAverage: number };
}

const STUDY = 'load.ensemble_balanced';

/** The requests a dashboard makes, in the order each client cycles through them. */
const ENDPOINTS = [
  '/api/studies',
  `/api/studies/${STUDY}/trials`,
  '/api/campaigns/load',
  '/api/jobs?limit=50',
  `/api/studies/${STUDY}`,
  '/api/info',
  `/api/studies/${STUDY}/trials/0/equity`,
  '/api/datasets',
];

const CAMPAIGN = `name: load
data: SYN0,SYN1:1h
cv: walk-forward:3
sampler: { type: random, seed: 1 }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: 2000
    params: &tiny
      netDim: [16, 32]
      nEnvs: 4
      targetStep: 256
      batchSize: 128
      breakStep: 2048
      repeatTimes: 1
      episodeLength: 64
  - preset: ensemble_aggressive
    trials: 2000
    params: *tiny
`;

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

function rowOf(
  endpoint: string,
  latencies: number[],
  errors: number,
  locked: number,
  seconds: number,
): ServeBenchRow {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    bench: 'serve',
    endpoint,
    requests: latencies.length,
    errors,
    locked,
    p50Ms: quantile(sorted, 0.5),
    p90Ms: quantile(sorted, 0.9),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? Number.NaN,
    perSecond: latencies.length / seconds,
  };
}

/** Starts `tradelab serve` in `dir` and resolves with its URL. */
function startServe(
  command: readonly string[],
  dir: string,
): Promise<{ child: ChildProcess; url: string }> {
  const [program, ...args] = command;
  const child = spawn(program ?? process.execPath, [...args, 'serve', '--port', '0', '--json'], {
    cwd: dir,
    env: { ...process.env, TRADELAB_DETECT: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.on('exit', (code) => {
      reject(new Error(`tradelab serve exited ${code ?? '?'}: ${stderr}`));
    });
  });
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Trials ended in the campaign's studies so far. */
async function trialsEnded(url: string): Promise<number> {
  const studies = await json<{ counts: { complete: number; pruned: number; failed: number } }[]>(
    `${url}/api/studies`,
  );
  return studies.reduce((n, s) => n + s.counts.complete + s.counts.pruned + s.counts.failed, 0);
}

/** Runs the load test; see the file comment. */
export async function benchServe(options: ServeBenchOptions): Promise<ServeBenchResult> {
  const clients = options.clients ?? 50;
  const seconds = options.seconds ?? 20;
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-bench-serve-'));
  let served: { child: ChildProcess; url: string } | undefined;
  try {
    await writeSyntheticMarket(openDatasetStore(join(dir, '.tradelab', 'data')), {
      symbols: ['SYN0', 'SYN1'],
      bars: 1500,
      timeframe: '1h',
      seed: 1,
      derivedFrom: 'bench serve',
    });
    writeFileSync(join(dir, 'load.yaml'), CAMPAIGN);
    served = await startServe(options.command, dir);
    const { url } = served;
    const job = await json<{ id: number }>(`${url}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'campaign run', positionals: ['load.yaml'] }),
    });
    // Load starts once the campaign writes: both studies there, trial 0 ended.
    const ready = Date.now() + 120_000;
    for (;;) {
      const trials = await fetch(`${url}/api/studies/${STUDY}/trials?state=complete,pruned,fail`);
      if (trials.ok && ((await trials.json()) as unknown[]).length > 0) break;
      if (Date.now() > ready) throw new Error('the campaign wrote no trial in 2 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
    const endedBefore = await trialsEnded(url);
    const latencies = ENDPOINTS.map((): number[] => []);
    const errors = ENDPOINTS.map(() => 0);
    const locked = ENDPOINTS.map(() => 0);
    const errorSamples: string[] = [];
    let requests = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const progress = setInterval(
      () => options.onProgress?.((performance.now() - started) / 1000, requests),
      1000,
    );
    const client = async (index: number): Promise<void> => {
      for (let k = index; performance.now() < deadline; k++) {
        const e = k % ENDPOINTS.length;
        const t0 = performance.now();
        let failure: string | undefined;
        try {
          const response = await fetch(`${url}${ENDPOINTS[e] ?? ''}`);
          const text = await response.text();
          if (/database is locked|SQLITE_BUSY/i.test(text)) {
            locked[e] = (locked[e] ?? 0) + 1;
            failure = `${ENDPOINTS[e] ?? ''}: ${text.slice(0, 200)}`;
          } else if (!response.ok)
            failure = `${ENDPOINTS[e] ?? ''}: ${response.status} ${text.slice(0, 200)}`;
        } catch (error) {
          failure = `${ENDPOINTS[e] ?? ''}: ${(error as Error).message}`;
        }
        latencies[e]?.push(performance.now() - t0);
        requests++;
        if (failure !== undefined) {
          errors[e] = (errors[e] ?? 0) + 1;
          if (errorSamples.length < 5) errorSamples.push(failure);
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
    clearInterval(progress);
    const elapsed = (performance.now() - started) / 1000;
    const trialsWritten = (await trialsEnded(url)) - endedBefore;
    await fetch(`${url}/api/jobs/${job.id}/cancel`, { method: 'POST' });
    const rows = ENDPOINTS.map((endpoint, e) =>
      rowOf(endpoint, latencies[e] ?? [], errors[e] ?? 0, locked[e] ?? 0, elapsed),
    );
    const total = rowOf(
      'all',
      latencies.flat(),
      errors.reduce((a, b) => a + b, 0),
      locked.reduce((a, b) => a + b, 0),
      elapsed,
    );
    return {
      rows,
      total,
      clients,
      seconds: elapsed,
      trialsWritten,
      errorSamples,
      machine: { cpus: cpus().length, node: process.version, loadAverage: loadavg()[0] ?? 0 },
    };
  } finally {
    if (served !== undefined) {
      const { child } = served;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

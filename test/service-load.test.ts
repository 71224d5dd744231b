import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/run-cli.js';

/*
 * The load test: `tradelab bench serve` puts 50 concurrent readers on a real service for 20 s
 * while a campaign job's workers write trials into the same SQLite file. No request may fail and
 * none may meet "database is locked". Latencies are printed and kept in test-output/ (a test
 * never asserts a timing).
 */

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../test-output');

describe('the service under load', () => {
  it('answers 50 clients for 20 s while a campaign writes the same SQLite file: no error, no lock', async () => {
    const ran = await runCli(['bench', 'serve', '--clients', '50', '--seconds', '20', '--json'], {
      env: { TRADELAB_DETECT: 'false' },
    });
    expect(ran.code, ran.stderr).toBe(0);
    const rows = jsonLines(ran.stdout) as unknown as {
      endpoint: string;
      requests: number;
      errors: number;
      locked: number;
      p50Ms: number;
      p99Ms: number;
      perSecond: number;
      trialsWritten: number;
    }[];
    const total = rows.find((r) => r.endpoint === 'all');
    expect(total).toBeDefined();
    if (total === undefined) return;
    expect(total.errors, ran.stderr).toBe(0);
    expect(total.locked).toBe(0);
    expect(ran.stderr).not.toMatch(/database is locked|SQLITE_BUSY/i);
    // Reads met writes: the campaign ended trials while the clients read, and every endpoint
    // was asked many times.
    expect(total.trialsWritten).toBeGreaterThan(0);
    for (const row of rows) expect(row.requests, row.endpoint).toBeGreaterThan(20);
    mkdirSync(OUT, { recursive: true });
    writeFileSync(resolve(OUT, 'load-test.json'), `${JSON.stringify(rows, null, 2)}\n`);
    console.log(
      `load test: ${total.requests} requests by 50 clients, ${total.perSecond.toFixed(0)}/s, p50 ${total.p50Ms.toFixed(1)} ms, p99 ${total.p99Ms.toFixed(1)} ms, 0 errors, while ${total.trialsWritten} trials were written`,
    );
  }, 180_000);
});

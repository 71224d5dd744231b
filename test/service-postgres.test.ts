import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/server/index.js';
import { freshPostgresDatabase, TEST_POSTGRES_URL } from './support/postgres-database.js';
import {
  call,
  post,
  serviceProject,
  startTestService,
  waitForJob,
} from './support/service-project.js';

/*
 * The service on PostgreSQL, as compose.yaml runs it: studies and jobs in one database, and two
 * services (two machines, in effect) sharing its queue: a campaign submitted to one may run on
 * either, each job exactly once, and both see every job and every trial.
 */

describe.skipIf(TEST_POSTGRES_URL === '')('the service on PostgreSQL', () => {
  let drop: () => Promise<void> = () => Promise.resolve();
  const services: RunningService[] = [];

  beforeAll(async () => {
    const database = await freshPostgresDatabase('tradelab_service');
    drop = database.drop;
    const dir = await serviceProject([4, 3]);
    for (let i = 0; i < 2; i++) {
      services.push(await startTestService(dir, { slots: 1 }, { TRADELAB_STORAGE: database.url }));
    }
  }, 60_000);

  afterAll(async () => {
    for (const service of services) await service.close();
    await drop();
  });

  it('runs jobs from one shared queue: each once, on whichever service has a free slot', async () => {
    const [a, b] = services.map((s) => s.url);
    if (a === undefined || b === undefined) throw new Error('two services');
    const campaign = await post(a, '/api/jobs', {
      command: 'campaign run',
      positionals: ['tiny.yaml'],
      options: { workers: '1' },
    });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    const synth = await post(b, '/api/jobs', {
      command: 'data synth',
      options: { symbols: 'PG', bars: '300' },
    });
    const ids = [(campaign.body as { id: number }).id, (synth.body as { id: number }).id];
    const done = await Promise.all(
      ids.map((id) => waitForJob(a, id, ['succeeded', 'failed'], 180_000)),
    );
    expect(
      done.map((j) => j.state),
      JSON.stringify(done),
    ).toEqual(['succeeded', 'succeeded']);
    // Both services see both jobs, each run by one runner.
    for (const url of [a, b]) {
      const jobs = (await call(url, '/api/jobs')).body as { id: number; runner: string }[];
      expect(jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    }
    const report = (await call(b, '/api/campaigns/tiny')).body as {
      total: { counts: { done: number } };
    };
    expect(report.total.counts.done).toBe(7);
    const storage = ((await call(a, '/api/info')).body as { storage: string }).storage;
    expect(storage).toMatch(/^postgres(ql)?:\/\/.*\*\*\*|^postgres(ql)?:\/\/[^:]*@/);
  }, 240_000);
});

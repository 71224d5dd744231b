import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../src/server/index.js';
import { Study } from '../src/tune/index.js';
import { jsonLines } from './support/run-cli.js';
import { call, startTestService } from './support/service-project.js';
import { cliInProcess, project, storageOf } from './support/study-project.js';

/*
 * One study, read four ways: `study show --json`, `study list --json`, GET /api/studies and
 * GET /api/studies/{name}. Its trials hold every case the counts must agree on: complete, pruned,
 * failed, a failure lost with its worker and retried (the retry now running), and an enqueued one.
 */

/** A study as one of the four readers prints it. */
type Row = Record<string, unknown> & { counts: unknown; best: unknown };

let dir: string;
let service: RunningService;

beforeAll(async () => {
  dir = project();
  const storage = await storageOf(dir);
  try {
    const study = await Study.create(storage, {
      name: 'agree',
      direction: 'maximize',
      sampler: { type: 'random', seed: 3 },
    });
    const ask = async (): Promise<Awaited<ReturnType<Study['ask']>>> => {
      const trial = await study.ask();
      trial.suggestFloat('x', 0, 1);
      return trial;
    };
    await study.tell(await ask(), 1.5);
    await study.tell(await ask(), 2.5);
    const pruned = await ask();
    await pruned.report(0.25, 0);
    await study.tell(pruned, 'pruned');
    await study.tell(await ask(), 'fail', 'the objective threw');
    // A trial whose worker is gone: failed as stale and enqueued again, then the retry runs.
    await ask();
    const stale = await storage.failStale(study.id, -1, { maxRetries: 1, reason: 'worker lost' });
    expect(stale.retries).toHaveLength(1);
    await study.ask();
    await study.enqueueTrial({ x: 0.5 });
  } finally {
    await storage.close();
  }
  service = await startTestService(dir);
}, 60_000);

afterAll(async () => {
  await service.close();
});

describe('a study reads the same in the CLI and the API', () => {
  it('has the same counts, rate and best in study show, study list and both API routes', async () => {
    const shown = await cliInProcess(dir, 'study', 'show', 'agree', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const show = jsonLines(shown.stdout)[0] as Record<string, unknown>;
    const listed = await cliInProcess(dir, 'study', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const list = jsonLines(listed.stdout).find((r) => r.name === 'agree') as Row;
    const apiList = (await call(service.url, '/api/studies')).body as Row[];
    const apiRow = apiList.find((r) => r.name === 'agree') as Row;
    const api = (await call(service.url, '/api/studies/agree')).body as Row;

    const expected = {
      total: 7,
      done: 4,
      complete: 2,
      pruned: 1,
      failed: 1,
      retried: 1,
      running: 1,
      waiting: 1,
    };
    expect(show.counts).toEqual(expected);
    expect(list.counts).toEqual(expected);
    expect(api.counts).toEqual(expected);
    expect(apiRow.counts).toEqual(expected);

    for (const figure of ['perHour', 'meanDurationMs', 'completionRate', 'pruneRate']) {
      expect(list[figure], figure).toBe(show[figure]);
      expect(api[figure], figure).toBe(show[figure]);
      expect(apiRow[figure], figure).toBe(show[figure]);
    }
    expect(show.completionRate).toBe(2 / 4);
    const best = show.best as { number: number; value: number };
    expect(best).toMatchObject({ number: 1, value: 2.5 });
    expect(api.best).toEqual({ number: 1, value: 2.5 });
    expect(list.best).toEqual({ number: 1, value: 2.5 });
  });

  it('names the retried failure apart in study show', async () => {
    const shown = await cliInProcess(dir, 'study', 'show', 'agree', '--no-holdout');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /trials\s+7 \(1 waiting, 1 running, 2 complete, 1 pruned, 1 fail, 1 failed and retried\)/,
    );
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TradelabError } from '../core/index.js';
import type { Distribution } from './records.js';
import type { StudyStorage } from './study-storage.js';

/*
 * The storage contract (study-storage.ts) as tests, run against every implementation: memory,
 * SQLite and PostgreSQL each call describeStorageConformance with a factory for a fresh storage.
 * Test-only: the build leaves this file out.
 */

const FLOAT: Distribution = { type: 'float', low: 0, high: 1, log: false, step: null };
const INT: Distribution = { type: 'int', low: 0, high: 10, log: false, step: 1 };
const CAT: Distribution = { type: 'categorical', choices: ['a', 1, true, null] };

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<TradelabError> {
  try {
    await promise;
  } catch (error) {
    return error as TradelabError;
  }
  throw new Error('expected a rejection');
}

export function describeStorageConformance(label: string, open: () => Promise<StudyStorage>): void {
  describe(`${label}: storage contract`, () => {
    let storage: StudyStorage;
    beforeEach(async () => {
      storage = await open();
    });
    afterEach(async () => {
      await storage.close();
    });

    it('creates, lists, reads and removes studies', async () => {
      const b = await storage.createStudy({
        name: 'b',
        direction: 'maximize',
        userAttrs: { owner: 'me' },
        systemAttrs: { sampler: { type: 'tpe' } },
      });
      await storage.createStudy({ name: 'a', direction: 'minimize' });
      expect(b).toMatchObject({ name: 'b', direction: 'maximize', userAttrs: { owner: 'me' } });
      expect(await storage.getStudy('b')).toEqual(b);
      expect((await storage.listStudies()).map((s) => s.name)).toEqual(['a', 'b']);
      expect(
        (await rejection(storage.createStudy({ name: 'b', direction: 'minimize' }))).code,
      ).toBe('STUDY_EXISTS');
      const missing = await rejection(storage.getStudy('bb'));
      expect(missing.code).toBe('STUDY_NOT_FOUND');
      expect(missing.hint).toContain('"b"');
      await storage.setStudyUserAttrs(b.id, { tag: 1 });
      expect((await storage.getStudy('b')).userAttrs).toEqual({ owner: 'me', tag: 1 });
      const trial = await storage.claimTrial(b.id, 'w');
      await storage.deleteStudy('b');
      expect((await rejection(storage.getStudy('b'))).code).toBe('STUDY_NOT_FOUND');
      expect((await rejection(storage.getTrial(trial.id))).code).toBe('TRIAL_NOT_FOUND');
      expect((await storage.listStudies()).map((s) => s.name)).toEqual(['a']);
    });

    it('numbers trials densely and claims waiting trials first, oldest first', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const t0 = await storage.claimTrial(study.id, 'w1');
      const q1 = await storage.enqueueTrial(study.id, { params: { x: 0.5 } });
      const q2 = await storage.enqueueTrial(study.id, {
        params: { x: 0.7 },
        userAttrs: { why: 'seed' },
      });
      expect([t0.number, q1.number, q2.number]).toEqual([0, 1, 2]);
      expect(t0).toMatchObject({ state: 'running', workerId: 'w1', params: {}, retryOf: null });
      expect(t0.heartbeatAt).not.toBeNull();
      expect(q1).toMatchObject({ state: 'waiting', workerId: null, startedAt: null });
      const c1 = await storage.claimTrial(study.id, 'w2');
      const c2 = await storage.claimTrial(study.id, 'w3');
      const c3 = await storage.claimTrial(study.id, 'w4');
      expect([c1.number, c2.number, c3.number]).toEqual([1, 2, 3]);
      expect(c1).toMatchObject({ state: 'running', params: { x: 0.5 }, workerId: 'w2' });
      expect(c2.userAttrs).toEqual({ why: 'seed' });
      expect((await storage.getTrials(study.id)).map((t) => t.number)).toEqual([0, 1, 2, 3]);
      expect((await storage.getTrials(study.id, ['waiting'])).length).toBe(0);
      // Numbers are per study.
      const other = await storage.createStudy({ name: 'o', direction: 'minimize' });
      expect((await storage.claimTrial(other.id, 'w')).number).toBe(0);
    });

    it('gives each of many concurrent claims its own number', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      for (let i = 0; i < 10; i++) await storage.enqueueTrial(study.id, { params: { i } });
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) => storage.claimTrial(study.id, `w${i}`)),
      );
      const numbers = claims.map((t) => t.number).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(claims.filter((t) => 'i' in t.params).length).toBe(10);
    });

    it('claims against a target never pass it, however many claim at once; a retry takes the place of the trial it retries', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const other = await storage.createStudy({ name: 'o', direction: 'minimize' });
      await storage.claimTrial(other.id, 'w'); // another study's trials count for that one only
      await storage.enqueueTrial(study.id, { params: { x: 1 } });
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          storage.claimTrial(study.id, `w${i}`, { maxTrials: 5 }),
        ),
      );
      const claimed = claims.filter((t) => t !== undefined);
      expect(claimed.map((t) => t.number).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
      // The waiting trial went first and counted once claimed.
      expect(claimed.filter((t) => 'x' in t.params)).toHaveLength(1);
      expect(await storage.claimTrial(study.id, 'late', { maxTrials: 5 })).toBeUndefined();
      expect((await storage.getTrials(study.id)).length).toBe(5);
      // Ended trials still count; a failed one retried does not, its retry does once claimed.
      const [a, b, c] = claimed;
      if (a === undefined || b === undefined || c === undefined) throw new Error('no claims');
      await storage.finishTrial(a.id, { state: 'complete', value: 1 });
      await storage.finishTrial(b.id, { state: 'fail', value: null, failReason: 'objective' });
      expect(await storage.claimTrial(study.id, 'late', { maxTrials: 5 })).toBeUndefined();
      const stale = await storage.failStale(study.id, -1000, {
        maxRetries: 1,
        workerId: c.workerId ?? '',
      });
      expect(stale.retries).toHaveLength(1);
      const retry = await storage.claimTrial(study.id, 'late', { maxTrials: 5 });
      expect(retry).toMatchObject({ retryOf: c.number, state: 'running' });
      expect(await storage.claimTrial(study.id, 'later', { maxTrials: 5 })).toBeUndefined();
      // Without a target, a claim is as before.
      expect((await storage.claimTrial(study.id, 'free')).number).toBe(6);
    });

    it('keeps parameters exactly and refuses to change one', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      const values = { a: 0.1 + 0.2, b: 1e-300, c: 123456789.12345679, d: 2 ** 53 - 1 };
      for (const [name, value] of Object.entries(values))
        await storage.setTrialParam(trial.id, name, FLOAT, value);
      await storage.setTrialParam(trial.id, 'n', INT, 7);
      await storage.setTrialParam(trial.id, 's', CAT, 'a');
      await storage.setTrialParam(trial.id, 'z', CAT, null);
      await storage.setTrialParam(trial.id, 't', CAT, true);
      await storage.setTrialParam(trial.id, 'n', INT, 7); // the same again: no-op
      const stored = await storage.getTrial(trial.id);
      expect(stored.params).toEqual({ ...values, n: 7, s: 'a', z: null, t: true });
      for (const [name, value] of Object.entries(values))
        expect(Object.is(stored.params[name], value)).toBe(true);
      expect(stored.distributions).toEqual({
        a: FLOAT,
        b: FLOAT,
        c: FLOAT,
        d: FLOAT,
        n: INT,
        s: CAT,
        z: CAT,
        t: CAT,
      });
      const conflict = await rejection(storage.setTrialParam(trial.id, 'n', INT, 8));
      expect(conflict.code).toBe('STORAGE_CONFLICT');
      expect(conflict.message).toContain('"n"');
    });

    it('records intermediate values, non-finite ones included, a step reported again replaced', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      await storage.reportIntermediate(trial.id, 0, 0.5);
      await storage.reportIntermediate(trial.id, 1, Number.NaN);
      await storage.reportIntermediate(trial.id, 2, Number.POSITIVE_INFINITY);
      await storage.reportIntermediate(trial.id, 0, 0.25);
      await storage.reportIntermediate(trial.id, 10, 0.1 + 0.2);
      const { intermediate } = await storage.getTrial(trial.id);
      expect(intermediate).toEqual({
        0: 0.25,
        1: Number.NaN,
        2: Number.POSITIVE_INFINITY,
        10: 0.1 + 0.2,
      });
      expect((await rejection(storage.reportIntermediate(trial.id, -1, 0))).code).toBe(
        'INVALID_ARGUMENT',
      );
      expect((await rejection(storage.reportIntermediate(trial.id, 1.5, 0))).code).toBe(
        'INVALID_ARGUMENT',
      );
    });

    it('ends trials once, with a valid outcome, and never changes them again', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const a = await storage.claimTrial(study.id, 'w');
      const b = await storage.claimTrial(study.id, 'w');
      const c = await storage.claimTrial(study.id, 'w');
      expect(
        (await rejection(storage.finishTrial(a.id, { state: 'complete', value: Number.NaN }))).code,
      ).toBe('INVALID_ARGUMENT');
      expect(
        (await rejection(storage.finishTrial(c.id, { state: 'fail', value: null }))).code,
      ).toBe('INVALID_ARGUMENT');
      expect(
        (await rejection(storage.finishTrial(c.id, { state: 'fail', value: 1, failReason: 'x' })))
          .code,
      ).toBe('INVALID_ARGUMENT');
      await storage.setTrialParam(a.id, 'x', FLOAT, 0.5);
      const done = await storage.finishTrial(a.id, { state: 'complete', value: 1.5 });
      expect(done).toMatchObject({
        state: 'complete',
        value: 1.5,
        heartbeatAt: null,
        failReason: null,
      });
      expect(done.finishedAt).toBeGreaterThanOrEqual(done.startedAt ?? Infinity);
      await storage.reportIntermediate(b.id, 3, 0.7);
      expect(await storage.finishTrial(b.id, { state: 'pruned', value: 0.7 })).toMatchObject({
        state: 'pruned',
        value: 0.7,
      });
      expect(
        await storage.finishTrial(c.id, { state: 'fail', value: null, failReason: 'boom' }),
      ).toMatchObject({ state: 'fail', value: null, failReason: 'boom' });
      const before = await storage.getTrial(a.id);
      const attempts = [
        () => storage.finishTrial(a.id, { state: 'complete', value: 2 }),
        () => storage.setTrialParam(a.id, 'y', FLOAT, 0.1),
        () => storage.reportIntermediate(a.id, 0, 1),
        () => storage.setTrialUserAttrs(a.id, { late: true }),
        () => storage.heartbeat(a.id),
        () => storage.finishTrial(c.id, { state: 'complete', value: 1 }),
      ];
      for (const attempt of attempts)
        expect((await rejection(attempt())).code).toBe('STORAGE_CONFLICT');
      const failedAgain = await rejection(storage.heartbeat(c.id));
      expect(failedAgain.message).toContain('boom');
      expect(await storage.getTrial(a.id)).toEqual(before);
      expect(
        (await storage.getTrials(study.id, ['complete', 'pruned'])).map((t) => t.number),
      ).toEqual([0, 1]);
    });

    it('merges trial attributes and refreshes heartbeats', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      await storage.setTrialUserAttrs(trial.id, { a: 1, nested: { b: [1, 2] } });
      await storage.setTrialUserAttrs(trial.id, { c: 'x' });
      expect((await storage.getTrial(trial.id)).userAttrs).toEqual({
        a: 1,
        nested: { b: [1, 2] },
        c: 'x',
      });
      const first = (await storage.getTrial(trial.id)).heartbeatAt ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await storage.heartbeat(trial.id);
      expect((await storage.getTrial(trial.id)).heartbeatAt).toBeGreaterThan(first);
      expect((await rejection(storage.heartbeat(999_999))).code).toBe('TRIAL_NOT_FOUND');
    });

    it('fails stale trials and retries them with their params, up to the retry limit', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const other = await storage.createStudy({ name: 'o', direction: 'minimize' });
      const stale = await storage.claimTrial(study.id, 'w1');
      await storage.setTrialParam(stale.id, 'x', FLOAT, 0.25);
      const fresh = await storage.claimTrial(other.id, 'w2');
      // A long grace period: nothing is stale yet.
      expect((await storage.failStale(null, 60_000, { maxRetries: 2 })).failed).toEqual([]);
      // A negative grace period makes every running heartbeat "old": no sleeping in tests.
      const first = await storage.failStale(study.id, -1000, { maxRetries: 2 });
      expect(first.failed.map((t) => [t.number, t.state, t.failReason])).toEqual([
        [0, 'fail', 'stale heartbeat'],
      ]);
      expect(first.retries).toHaveLength(1);
      expect(first.retries[0]).toMatchObject({
        number: 1,
        state: 'waiting',
        params: { x: 0.25 },
        distributions: { x: FLOAT },
        retryOf: 0,
      });
      expect((await storage.getTrial(fresh.id)).state).toBe('running');
      // The retry is claimed first; when it goes stale too it is retried once more, then no more.
      const retry = await storage.claimTrial(study.id, 'w3');
      expect(retry).toMatchObject({ number: 1, params: { x: 0.25 } });
      await storage.setTrialParam(retry.id, 'x', FLOAT, 0.25);
      const second = await storage.failStale(study.id, -1000, { maxRetries: 2, reason: 'lost' });
      expect(second.failed[0]?.failReason).toBe('lost');
      expect(second.retries.map((t) => t.retryOf)).toEqual([1]);
      await storage.claimTrial(study.id, 'w4');
      const third = await storage.failStale(study.id, -1000, { maxRetries: 2 });
      expect(third.failed).toHaveLength(1);
      expect(third.retries).toEqual([]);
    });

    it('fails only the given worker’s trials when asked', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      await storage.claimTrial(study.id, 'dead');
      const alive = await storage.claimTrial(study.id, 'alive');
      const result = await storage.failStale(study.id, -1000, {
        maxRetries: 0,
        workerId: 'dead',
        reason: 'worker exited',
      });
      expect(result.failed.map((t) => t.workerId)).toEqual(['dead']);
      expect(result.retries).toEqual([]);
      expect((await storage.getTrial(alive.id)).state).toBe('running');
    });

    it('says which study or trial is missing, the same way everywhere', async () => {
      expect((await rejection(storage.getTrials(424242))).code).toBe('STUDY_NOT_FOUND');
      expect((await rejection(storage.refreshTrials(424242, 0, []))).code).toBe('STUDY_NOT_FOUND');
      expect((await rejection(storage.getArtifact(424242, 'x'))).code).toBe('TRIAL_NOT_FOUND');
      expect((await rejection(storage.listArtifacts(424242))).code).toBe('TRIAL_NOT_FOUND');
    });

    it('stores artifacts byte for byte', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const trial = await storage.claimTrial(study.id, 'w');
      const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37) % 256);
      await storage.putArtifact(trial.id, 'model.bin', bytes);
      await storage.putArtifact(trial.id, 'returns.f64', new Uint8Array(0));
      expect(await storage.getArtifact(trial.id, 'model.bin')).toEqual(bytes);
      await storage.putArtifact(trial.id, 'model.bin', bytes.subarray(10, 20));
      expect(await storage.getArtifact(trial.id, 'model.bin')).toEqual(bytes.subarray(10, 20));
      expect(await storage.getArtifact(trial.id, 'returns.f64')).toEqual(new Uint8Array(0));
      expect(await storage.listArtifacts(trial.id)).toEqual(['model.bin', 'returns.f64']);
      expect((await rejection(storage.getArtifact(trial.id, 'nope'))).code).toBe(
        'ARTIFACT_NOT_FOUND',
      );
      expect((await rejection(storage.putArtifact(trial.id, '../x', bytes))).code).toBe(
        'INVALID_ARGUMENT',
      );
    });

    it('refreshes a cache: new trials, unfinished ones and the numbers asked for', async () => {
      const study = await storage.createStudy({ name: 's', direction: 'minimize' });
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await storage.claimTrial(study.id, 'w')).id);
      await storage.finishTrial(ids[0] ?? 0, { state: 'complete', value: 1 });
      await storage.finishTrial(ids[3] ?? 0, { state: 'complete', value: 1 });
      await storage.finishTrial(ids[4] ?? 0, { state: 'fail', value: null, failReason: 'x' });
      await storage.enqueueTrial(study.id, { params: {} });
      const numbers = async (from: number, also: number[]): Promise<number[]> =>
        (await storage.refreshTrials(study.id, from, also)).map((t) => t.number);
      expect(await numbers(4, [0])).toEqual([0, 1, 2, 4, 5]);
      expect(await numbers(6, [])).toEqual([1, 2, 5]);
      expect(await numbers(0, [])).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it('imports a study with its trials as they were', async () => {
      const source = await storage.createStudy({
        name: 'src',
        direction: 'maximize',
        userAttrs: { u: 1 },
      });
      const a = await storage.claimTrial(source.id, 'w');
      await storage.setTrialParam(a.id, 'x', FLOAT, 0.1 + 0.2);
      await storage.reportIntermediate(a.id, 0, Number.NaN);
      await storage.finishTrial(a.id, { state: 'complete', value: 3 });
      await storage.claimTrial(source.id, 'w');
      await storage.enqueueTrial(source.id, { params: { x: 0.5 } });
      await storage.failStale(source.id, -1000, { maxRetries: 1 });
      const trials = await storage.getTrials(source.id);
      const copy = await storage.importStudy({ ...source, name: 'copy' }, trials);
      expect(copy).toMatchObject({ name: 'copy', direction: 'maximize', userAttrs: { u: 1 } });
      const copied = await storage.getTrials(copy.id);
      const strip = ({ id: _id, studyId: _studyId, ...rest }: (typeof trials)[number]): object =>
        rest;
      expect(copied.map(strip)).toEqual(trials.map(strip));
      // Waiting trials stay waiting (the enqueued one, then the retry); numbering goes on after.
      expect((await storage.claimTrial(copy.id, 'w')).number).toBe(2);
      expect((await storage.claimTrial(copy.id, 'w')).retryOf).toBe(1);
      expect((await storage.claimTrial(copy.id, 'w')).number).toBe(trials.length);
      expect((await rejection(storage.importStudy(source, trials))).code).toBe('STUDY_EXISTS');
    });

    it('returns copies: changing a returned record changes nothing stored', async () => {
      const study = await storage.createStudy({
        name: 's',
        direction: 'minimize',
        userAttrs: { a: 1 },
      });
      study.userAttrs.a = 2;
      const trial = await storage.claimTrial(study.id, 'w');
      await storage.setTrialParam(trial.id, 'x', FLOAT, 0.5);
      const read = await storage.getTrial(trial.id);
      read.params.x = 0.9;
      expect((await storage.getStudy('s')).userAttrs).toEqual({ a: 1 });
      expect((await storage.getTrial(trial.id)).params).toEqual({ x: 0.5 });
    });
  });
}

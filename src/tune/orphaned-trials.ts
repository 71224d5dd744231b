import { hostname } from 'node:os';
import { processAlive } from '../core/process-alive.js';
import type { StudyStorage } from '../storage/study-storage.js';

/*
 * Trials left running by a run on this machine whose process is gone: a run killed with SIGKILL
 * (or the OOM killer) together with its workers leaves them running, and the heartbeat grace
 * period (a minute) would keep them so. A worker's id starts with its run's host and pid
 * (worker-id.ts), so a run can tell at once that such a trial has nobody left to finish it.
 */

/**
 * Fails (and, within `maxRetries`, re-enqueues) the running trials of `studyId` whose run was a
 * process of this machine that no longer exists. Returns how many it failed.
 */
export async function failOrphanedTrials(
  storage: StudyStorage,
  studyId: number,
  maxRetries: number,
): Promise<number> {
  const host = hostname();
  let failed = 0;
  for (const trial of await storage.getTrials(studyId, ['running'])) {
    const [trialHost, pid] = (trial.workerId ?? '').split(':');
    if (trialHost !== host || pid === undefined || !/^\d+$/.test(pid)) continue;
    if (Number(pid) === process.pid || processAlive(Number(pid))) continue;
    const result = await storage.failStale(studyId, -Number.MAX_SAFE_INTEGER, {
      maxRetries,
      workerId: trial.workerId ?? '',
      reason: `interrupted: the run that started its worker (pid ${pid}) is gone`,
    });
    failed += result.failed.length;
  }
  return failed;
}

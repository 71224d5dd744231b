import { errorText } from '../core/error-text.js';
import { isTradelabError } from '../core/index.js';
import { openStorage } from '../storage/open-storage.js';
import { Heartbeater } from './heartbeat.js';
import { loadObjective } from './objective-module.js';
import { runTrial } from './optimize.js';
import { Study } from './study.js';
import type { TrialProgressListener } from './trial-progress.js';
import type { ParentMessage, WorkerConfig, WorkerMessage } from './worker-protocol.js';

/*
 * A trial worker process (started by worker-pool.ts, configured by its first message): it opens
 * the storage, loads the objective module, and runs one trial per ticket from the parent, of the
 * study the ticket names (loaded once per worker), heartbeating from a thread while the objective
 * computes. With several slots it runs that many trials at once, one chain of tickets per slot
 * (trials resident on one GPU share its device here).
 */

/** The least time between two progress messages of a trial. */
const PROGRESS_EVERY_MS = 100;

/**
 * Sends to the parent while it is there (a send after it left would throw
 * ERR_IPC_CHANNEL_CLOSED). A parent killed a moment ago still reads as connected: the write then
 * fails with EPIPE, told to the callback instead of crashing this worker before the disconnect
 * handler fails its trials.
 */
const send = (message: WorkerMessage): void => {
  if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
};

/** The start message, the first the parent sends. */
function startConfig(): Promise<WorkerConfig> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ParentMessage): void => {
      process.off('disconnect', onGone);
      if (message.type === 'start') resolve(message.config);
      else reject(new Error(`worker protocol: expected a start message, got "${message.type}"`));
    };
    const onGone = (): void => {
      process.off('message', onMessage);
      reject(new Error('worker protocol: the parent left before the start message'));
    };
    process.once('message', onMessage);
    process.once('disconnect', onGone);
  });
}

async function main(): Promise<void> {
  const config = await startConfig();
  const storage = await openStorage(config.url, config.storageOptions);
  // The studies this worker has run trials of (a campaign's pool hands out several), loaded once.
  const studies = new Map<string, Study>();
  const studyNamed = async (name: string): Promise<Study> => {
    let study = studies.get(name);
    if (study === undefined) {
      study = await Study.load(storage, name);
      studies.set(name, study);
    }
    return study;
  };
  const slots = Math.max(1, config.slots);
  const objective = await loadObjective(config.objective, {
    workers: config.workers,
    slots,
    options: config.objectiveOptions,
  });
  const heartbeater = await Heartbeater.start(
    { url: config.url, options: config.storageOptions },
    config.heartbeatIntervalMs,
  );
  const state: { stopping: boolean } = { stopping: false };
  const stopping = (): boolean => state.stopping;
  const lastSweep = new Map<string, number>();
  /** The claims of trials being asked for, while under way. */
  const claiming = new Set<Promise<unknown>>();
  /** Each slot's chain of tickets. */
  const running = Array.from({ length: slots }, () => Promise.resolve());
  const finish = async (): Promise<void> => {
    await Promise.all(running);
    await heartbeater.close();
    await storage.close();
    if (process.connected) process.disconnect();
  };
  // Ctrl-C in a terminal reaches the whole process group: the parent decides (first press: let
  // running trials finish; second: SIGTERM), so a worker ignores SIGINT.
  process.on('SIGINT', () => undefined);
  // The parent is gone (killed): nobody will use this worker's results, so it fails its running
  // trial as the parent would have (retried by the next run) and exits now rather than training
  // on as an orphan.
  process.on('disconnect', () => {
    if (stopping()) return;
    state.stopping = true;
    // A trial being claimed right now is failed too: the claims settle first.
    void Promise.allSettled([...claiming])
      .then(() =>
        Promise.all(
          [...studies.values()].map((study) =>
            storage.failStale(study.id, -Number.MAX_SAFE_INTEGER, {
              maxRetries: config.maxRetries,
              workerId: config.workerId,
              reason: 'interrupted: the study run that started this worker ended',
            }),
          ),
        ),
      )
      .finally(() => process.exit(0));
  });
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'stop') {
      state.stopping = true;
      void finish();
      return;
    }
    if (message.type !== 'go') return;
    const { slot } = message;
    running[slot] = (running[slot] ?? Promise.resolve()).then(async () => {
      if (stopping()) return;
      const study = await studyNamed(message.study);
      // Any worker fails the trials of workers that stopped heartbeating (a dead machine).
      if (
        performance.now() - (lastSweep.get(study.name) ?? -Infinity) >=
        config.heartbeatIntervalMs
      ) {
        await storage.failStale(study.id, config.heartbeatGraceMs, {
          maxRetries: config.maxRetries,
        });
        lastSweep.set(study.name, performance.now());
      }
      let trialId = -1;
      let lastProgress = -Infinity;
      // The parent may have gone during the awaits above; checked and claimed in one synchronous
      // step, so the disconnect handler either sees no claim or waits for this one.
      if (stopping()) return;
      // At most PROGRESS_EVERY_MS apart (an objective may report in a tight loop); one that came
      // too soon is held and sent when its turn comes or the trial ends, so the last word of a
      // quick phase is never lost.
      let held: Parameters<TrialProgressListener>[0] | undefined;
      let timer: NodeJS.Timeout | undefined;
      const flush = (): void => {
        clearTimeout(timer);
        timer = undefined;
        if (held === undefined) return;
        lastProgress = performance.now();
        send({ type: 'progress', trialId, ...held });
        held = undefined;
      };
      const onProgress: TrialProgressListener = (progress) => {
        held = progress;
        const wait = PROGRESS_EVERY_MS - (performance.now() - lastProgress);
        if (wait <= 0) flush();
        else timer ??= setTimeout(flush, wait);
      };
      const asked =
        message.maxTrials === undefined
          ? study.ask(config.workerId, onProgress)
          : study.askWithin(message.maxTrials, config.workerId, onProgress);
      claiming.add(asked);
      const trial = await asked.finally(() => claiming.delete(asked));
      if (stopping()) return; // orphaned while claiming: the disconnect handler fails it
      if (trial === undefined) {
        // Other runs took the study to its target meanwhile: another ticket, maybe of another study.
        send({ type: 'reached', slot });
        send({ type: 'want', slot });
        return;
      }
      trialId = trial.id;
      heartbeater.beat(trial.id);
      send({ type: 'started', slot, trialId: trial.id, number: trial.number });
      const ended = await runTrial(study, trial, objective);
      flush();
      heartbeater.stop(trial.id);
      send(
        ended === undefined
          ? { type: 'lost', slot, trialId: trial.id }
          : { type: 'ended', slot, trial: ended },
      );
      if (!stopping()) send({ type: 'want', slot });
    });
    running[slot] = running[slot].catch(fail);
  });
  for (let slot = 0; slot < slots; slot++) send({ type: 'want', slot });
}

function fail(error: unknown): void {
  const message: WorkerMessage = {
    type: 'error',
    message: errorText(error),
    ...(isTradelabError(error) ? { code: error.code } : {}),
    ...(isTradelabError(error) && error.hint !== undefined ? { hint: error.hint } : {}),
  };
  if (process.send === undefined || !process.connected) process.exit(1);
  process.send(message, () => process.exit(1));
}

main().catch(fail);

import { parentPort, workerData } from 'node:worker_threads';
import { isTradelabError, TradelabError } from '../core/index.js';
import { openStorage, type OpenStorageOptions } from '../storage/open-storage.js';

/*
 * The heartbeat thread: it has its own storage connection and its own event loop, so running
 * trials keep heartbeating while the objective blocks the main thread (a tfjs-wasm update can
 * hold it for seconds). The trial ids to beat are in shared memory (see heartbeat.ts); the only
 * message is {close: true}.
 */

interface HeartbeatData {
  url: string;
  options: OpenStorageOptions;
  intervalMs: number;
  slots: Int32Array;
}

const data = workerData as HeartbeatData;
const port = parentPort;
if (port === null)
  throw new TradelabError('INTERNAL', 'heartbeat-thread.js runs as a worker thread', {
    hint: 'start it through Heartbeater.start',
  });
const storage = await openStorage(data.url, data.options);
/** Trials found ended elsewhere: not beaten again (the main thread frees their slot later). */
const lost = new Set<number>();

const beat = async (): Promise<void> => {
  for (let slot = 0; slot < data.slots.length; slot++) {
    const id = Atomics.load(data.slots, slot);
    if (id === 0 || lost.has(id)) continue;
    try {
      await storage.heartbeat(id);
    } catch (error) {
      // A database hiccup: try again next beat. Only a trial ended elsewhere (failed as stale, or
      // its study removed) is given up.
      if (!isTradelabError(error, 'STORAGE_CONFLICT') && !isTradelabError(error, 'TRIAL_NOT_FOUND'))
        continue;
      lost.add(id);
      port.postMessage({
        lost: id,
        message: isTradelabError(error) ? error.message : String(error),
      });
    }
  }
};
const timer = setInterval(() => void beat(), data.intervalMs);

port.on('message', () => {
  clearInterval(timer);
  void storage.close().then(() => {
    port.close();
  });
});
port.postMessage({ ready: true });

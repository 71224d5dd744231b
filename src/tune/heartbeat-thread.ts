import { parentPort, workerData } from 'node:worker_threads';
import { isTradelabError } from '../errors/index.js';
import { openStorage, type OpenStorageOptions } from '../storage/open-storage.js';

/*
 * The heartbeat thread: it has its own storage connection and its own event loop, so running
 * trials keep heartbeating while the objective blocks the main thread (a tfjs-wasm update can
 * hold it for seconds). Messages: {start: id}, {stop: id}, {close: true}.
 */

interface HeartbeatData {
  url: string;
  options: OpenStorageOptions;
  intervalMs: number;
}

type Message = { start: number } | { stop: number } | { close: true };

const data = workerData as HeartbeatData;
const port = parentPort;
if (port === null) throw new Error('heartbeat-thread runs as a worker thread');
const storage = await openStorage(data.url, data.options);
const running = new Set<number>();

const beat = async (): Promise<void> => {
  for (const id of running) {
    try {
      await storage.heartbeat(id);
    } catch (error) {
      // The trial was ended elsewhere (failed as stale, or the study removed): stop beating it.
      running.delete(id);
      port.postMessage({
        lost: id,
        message: isTradelabError(error) ? error.message : String(error),
      });
    }
  }
};
const timer = setInterval(() => void beat(), data.intervalMs);

port.on('message', (message: Message) => {
  if ('start' in message) running.add(message.start);
  else if ('stop' in message) running.delete(message.stop);
  else {
    clearInterval(timer);
    void storage.close().then(() => {
      port.close();
    });
  }
});
port.postMessage({ ready: true });

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { OpenStorageOptions } from '../storage/open-storage.js';
import { compiledPath } from './compiled-path.js';

/**
 * Heartbeats for the trials this process runs, sent from a worker thread with its own storage
 * connection (see heartbeat-thread.ts). `onLost` hears of a trial that could not be heartbeated
 * because it was ended elsewhere.
 */
export class Heartbeater {
  private constructor(private readonly worker: Worker) {}

  /** Starts the thread and waits until its storage is open. */
  static async start(
    url: string,
    options: OpenStorageOptions,
    intervalMs: number,
    onLost: (trialId: number, message: string) => void = () => undefined,
  ): Promise<Heartbeater> {
    const worker = new Worker(compiledPath('tune/heartbeat-thread.js'), {
      workerData: { url, options, intervalMs },
    });
    worker.unref();
    const ready = once(worker, 'message');
    worker.on('message', (message: { lost?: number; message?: string }) => {
      if (message.lost !== undefined) onLost(message.lost, message.message ?? '');
    });
    await Promise.race([
      ready,
      once(worker, 'error').then(([error]) => {
        throw error;
      }),
    ]);
    return new Heartbeater(worker);
  }

  beat(trialId: number): void {
    this.worker.postMessage({ start: trialId });
  }

  stop(trialId: number): void {
    this.worker.postMessage({ stop: trialId });
  }

  /** Stops the thread (after it closes its storage). */
  async close(): Promise<void> {
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ close: true });
    await exited;
  }
}

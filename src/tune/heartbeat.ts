import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { TradelabError } from '../core/index.js';
import type { StorageConnection } from '../storage/study-storage.js';
import { compiledPath } from '../core/compiled-path.js';

/** Trials one process may heartbeat at once. */
export const HEARTBEAT_SLOTS = 64;

/**
 * Heartbeats for the trials this process runs, sent from a worker thread with its own storage
 * connection (see heartbeat-thread.ts). The running trials' ids sit in shared memory the thread
 * reads on each beat, so starting and ending a trial costs no message. `onLost` hears of a trial
 * that could not be heartbeated because it was ended elsewhere.
 */
export class Heartbeater {
  /** Set when the thread has ended (closed, or crashed). */
  private ended = false;

  private constructor(
    private readonly worker: Worker,
    /** Trial ids being heartbeated; 0 marks a free slot. */
    private readonly slots: Int32Array,
  ) {
    worker.on('exit', () => {
      this.ended = true;
    });
  }

  /** Starts the thread and waits until its storage is open. */
  static async start(
    connection: StorageConnection,
    intervalMs: number,
    onLost: (trialId: number, message: string) => void = () => undefined,
  ): Promise<Heartbeater> {
    const slots = new Int32Array(new SharedArrayBuffer(4 * HEARTBEAT_SLOTS));
    const worker = new Worker(compiledPath('tune/heartbeat-thread.js'), {
      workerData: { url: connection.url, options: connection.options, intervalMs, slots },
    });
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
    // Later failures of the thread (its storage failing to close) must not crash the process:
    // heartbeats stop, and the grace period covers the trials.
    worker.on('error', () => undefined);
    return new Heartbeater(worker, slots);
  }

  /** Heartbeats `trialId` from now on. */
  beat(trialId: number): void {
    const free = this.slots.indexOf(0);
    if (free === -1)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `more than ${HEARTBEAT_SLOTS} trials at once in one process`,
        { hint: 'run more worker processes instead of more concurrent trials in one' },
      );
    Atomics.store(this.slots, free, trialId);
  }

  /** Stops heartbeating `trialId`. */
  stop(trialId: number): void {
    const slot = this.slots.indexOf(trialId);
    if (slot !== -1) Atomics.store(this.slots, slot, 0);
  }

  /** Stops the thread (after it closes its storage). */
  async close(): Promise<void> {
    if (this.ended) return;
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ close: true });
    await exited;
  }
}

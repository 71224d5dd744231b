import { useBackend, type BackendName } from '../compute/index.js';
import { errorText } from '../core/error-text.js';
import {
  loadForecastDataset,
  trainForecastModel,
  type ForecastSettings,
} from './forecast-model.js';

/*
 * The process that trains one model of a forecasting set (forecast-set.ts starts it): the job
 * arrives as the first IPC message, progress and the result go back the same way, and the process
 * exits. Errors go back as a message with the text; the parent reports them.
 */

/** The job of one worker. */
export interface ForecastJob {
  type: 'job';
  dataDir: string;
  backend: BackendName;
  settings: ForecastSettings;
  index: number;
  seed: number;
}

/** What a worker sends back. */
export type ForecastWorkerMessage =
  | { type: 'epoch'; index: number; epoch: number; loss: number }
  | { type: 'done'; result: import('./forecast-model.js').ForecastModelResult }
  | { type: 'error'; index: number; message: string; code?: string; hint?: string };

/**
 * Sends `m` and resolves once it has been handed to the channel: a large result (forecasts for
 * every validation row, megabytes of JSON at 15-minute bars) is still being written when send
 * returns, and a disconnect then drops it.
 */
function send(m: ForecastWorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) {
      resolve();
      return;
    }
    // The error is the parent gone: nobody is left to tell, and the exit follows.
    process.send(m, () => {
      resolve();
    });
  });
}

process.once('message', (message: ForecastJob) => {
  void (async () => {
    try {
      const backend = await useBackend(message.backend, { nativeThreads: 1 });
      const dataset = await loadForecastDataset(message.dataDir, message.settings);
      const result = await trainForecastModel(
        dataset,
        message.settings,
        message.index,
        message.seed,
        (epoch, loss) => {
          void send({ type: 'epoch', index: message.index, epoch, loss });
        },
        backend.gpu,
      );
      await send({ type: 'done', result });
    } catch (error) {
      const e = error as Error & { code?: string; hint?: string };
      await send({
        type: 'error',
        index: message.index,
        message: errorText(error),
        ...(e.code === undefined ? {} : { code: e.code }),
        ...(e.hint === undefined ? {} : { hint: e.hint }),
      });
    } finally {
      if (process.connected) process.disconnect();
    }
  })();
});

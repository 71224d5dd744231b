import { useBackend, type BackendName } from '../compute/index.js';
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

process.once('message', (message: ForecastJob) => {
  void (async () => {
    const send = (m: ForecastWorkerMessage): void => {
      process.send?.(m);
    };
    try {
      await useBackend(message.backend, { nativeThreads: 1 });
      const dataset = await loadForecastDataset(message.dataDir, message.settings);
      const result = await trainForecastModel(
        dataset,
        message.settings,
        message.index,
        message.seed,
        (epoch, loss) => {
          send({ type: 'epoch', index: message.index, epoch, loss });
        },
      );
      send({ type: 'done', result });
    } catch (error) {
      const e = error as Error & { code?: string; hint?: string };
      send({
        type: 'error',
        index: message.index,
        message: e.message,
        ...(e.code === undefined ? {} : { code: e.code }),
        ...(e.hint === undefined ? {} : { hint: e.hint }),
      });
    } finally {
      process.disconnect();
    }
  })();
});

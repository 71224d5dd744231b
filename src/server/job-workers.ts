import { resolve } from 'node:path';
import {
  campaignRunWorkers,
  openProjectStorage,
  parseWorkersRequest,
  planForecastSet,
  studyRunWorkers,
  withCampaignProfile,
} from '../app/index.js';
import type { ForecastSetOptions } from '../app/index.js';
import type { JobRequest } from '../jobs/index.js';
import type { ServiceContext } from './service-context.js';

/**
 * The worker processes a `study run` or `campaign run` job's `--workers auto` means: the same
 * use case the command calls when it starts (the planner's fit for the study's largest trial, at
 * most the trials left), so a job holds as many pool slots as the processes it will start.
 * Undefined for a job that asks a count, or a command sized otherwise.
 */
export async function plannedJobWorkers(
  ctx: ServiceContext,
  request: JobRequest,
): Promise<number | undefined> {
  if (parseWorkersRequest(request.options.workers, 'options.workers') !== 'auto') return undefined;
  if (request.command === 'train forecast') {
    const { data } = request.options;
    if (typeof data !== 'string') return undefined;
    return (await planForecastSet(ctx.project, forecastSizing(data, request.options))).workers;
  }
  const [first] = request.positionals;
  if (first === undefined) return undefined;
  if (request.command === 'study run') {
    const trials = request.options.trials;
    const chosen = await studyRunWorkers(
      ctx.project,
      ctx.storage,
      first,
      'auto',
      trials === undefined ? undefined : Number(trials),
    );
    return chosen.workers;
  }
  if (request.command === 'campaign run') {
    // Loaded here: the campaign file's reader brings campaign/ (and TensorFlow.js) along.
    const { readCampaignFile } = await import('../campaign/index.js');
    const { file, content, plan } = readCampaignFile(resolve(ctx.root, first), {
      within: ctx.root,
    });
    // The file's profile, as the run applies it.
    const project = withCampaignProfile(ctx.project, content.profile, () =>
      file.locate(['profile']),
    );
    const storage =
      content.storage === undefined
        ? ctx.storage
        : await openProjectStorage(project, content.storage);
    try {
      const request = parseWorkersRequest(plan.workers, "the campaign file's workers");
      return (
        await campaignRunWorkers(ctx.project, storage, content, plan, request, 'the campaign file')
      ).workers;
    } finally {
      if (storage !== ctx.storage) await storage.close();
    }
  }
  return undefined;
}

/**
 * What a `train forecast` job's workers depend on, from its options as written: the model, the
 * data's timeframe and the sizes the planner counts. A value that is no number is left to the
 * job's own process to refuse (the planner takes the default for it here).
 */
function forecastSizing(data: string, options: JobRequest['options']): ForecastSetOptions {
  const whole = (name: string): number | undefined => {
    const value = Number(options[name]);
    return options[name] === undefined || !Number.isSafeInteger(value) || value < 1
      ? undefined
      : value;
  };
  const model = options.model;
  return {
    data,
    ...(model === 'tcn' || model === 'mlp' ? { model } : {}),
    models: whole('models'),
    chunkLen: whole('chunk-len'),
    batchSize: whole('batch-size'),
    hidden: whole('hidden'),
    layers: whole('layers'),
  };
}

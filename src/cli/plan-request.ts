import { TradelabError } from '../core/index.js';
import { type PlanRequest, DEFAULT_DATASET } from '../app/index.js';
import { FORECAST_TIMEFRAMES } from '../profiles/index.js';
import { choiceOption, intOption } from './option-values.js';

type Options = Readonly<Record<string, string | boolean | undefined>>;

/** Reads `profiles plan`'s options into a plan request, rejecting bad values with the flag's name. */
export function planRequestFromOptions(options: Options): PlanRequest {
  const request: PlanRequest = {};
  const set = <K extends keyof PlanRequest>(key: K, value: PlanRequest[K] | undefined): void => {
    if (value !== undefined) request[key] = value;
  };
  set('workload', choiceOption(options, 'workload', ['drl', 'forecast', 'tcn'] as const));
  set('netDim', intOption(options, 'net-dim'));
  set('layers', intOption(options, 'layers'));
  set('batchSize', intOption(options, 'batch-size'));
  set('nEnvs', intOption(options, 'envs'));
  set('targetStep', intOption(options, 'target-step'));
  set('lookback', intOption(options, 'lookback'));
  set('dtype', choiceOption(options, 'dtype', ['float32', 'float16', 'bfloat16'] as const));
  set('timeframe', choiceOption(options, 'timeframe', FORECAST_TIMEFRAMES));
  if (request.workload === 'tcn') {
    const tcn: NonNullable<PlanRequest['tcn']> = {};
    const hidden = intOption(options, 'hidden', 1);
    const kernel = intOption(options, 'kernel', 1);
    const chunkLen = intOption(options, 'chunk-len', 2);
    if (hidden !== undefined) tcn.hidden = hidden;
    if (request.layers !== undefined) tcn.layers = request.layers;
    if (kernel !== undefined) tcn.kernel = kernel;
    if (chunkLen !== undefined) tcn.chunkLen = chunkLen;
    if (options['no-checkpoint'] === true) tcn.checkpoint = false;
    request.tcn = tcn;
  }
  const workers = options.workers;
  if (workers !== undefined && workers !== 'auto') set('workers', intOption(options, 'workers'));
  const assets = intOption(options, 'assets');
  const features = intOption(options, 'features', 0);
  const bars = intOption(options, 'bars');
  if (assets !== undefined || features !== undefined || bars !== undefined) {
    request.dataset = {
      assets: assets ?? DEFAULT_DATASET.assets,
      features: features ?? DEFAULT_DATASET.features,
      bars: bars ?? DEFAULT_DATASET.bars,
    };
  }
  if (
    request.targetStep !== undefined &&
    request.batchSize !== undefined &&
    request.batchSize > request.targetStep
  ) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--batch-size ${request.batchSize} is larger than --target-step ${request.targetStep}`,
      {
        hint: 'a PPO minibatch is drawn from one rollout: make --target-step at least the batch size',
      },
    );
  }
  return request;
}

import { benchEnv } from '../../bench/env-bench.js';
import { TradelabError } from '../../errors/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench env`: aggregate env steps/s per nEnvs, single thread, random actions. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const assets = intOption(options, 'assets');
  const features = intOption(options, 'features');
  const lookback = intOption(options, 'lookback');
  const steps = intOption(options, 'steps');
  const repeat = intOption(options, 'repeat');
  const envs = envsOption(options.envs);
  const results = await benchEnv({
    ...(assets === undefined ? {} : { assets }),
    ...(features === undefined ? {} : { features }),
    ...(lookback === undefined ? {} : { lookback }),
    ...(steps === undefined ? {} : { steps }),
    ...(repeat === undefined ? {} : { repeat }),
    ...(envs === undefined ? {} : { envs }),
  });
  printBench(out, results);
}

/** `--envs 1,16,256`: positive whole numbers, comma-separated. */
function envsOption(raw: string | boolean | undefined): number[] | undefined {
  if (raw === undefined) return undefined;
  const values = String(raw)
    .split(',')
    .map((part) => Number(part.trim().replace(/_/g, '')));
  if (values.length === 0 || values.some((v) => !Number.isSafeInteger(v) || v < 1)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--envs: ${JSON.stringify(raw)} is not allowed: expected positive whole numbers separated by commas`,
      { hint: 'e.g. --envs 1,16,256,2048' },
    );
  }
  return values;
}

import { benchEnv } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { choiceOption, intListOption, intOption } from '../option-values.js';
import { benchProgress, printBench } from '../print-bench.js';

/** `tradelab bench env`: aggregate env steps/s per nEnvs, single thread, random actions. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const assets = intOption(options, 'assets');
  const features = intOption(options, 'features');
  const lookback = intOption(options, 'lookback');
  const steps = intOption(options, 'steps');
  const repeat = intOption(options, 'repeat');
  const envs = intListOption(options.envs, 'envs', '1,16,256,2048');
  const gpu = choiceOption(options, 'gpu', ['auto', 'always', 'never'] as const);
  const gpuEnvs = intListOption(options['gpu-envs'], 'gpu-envs', '1024,65536,1048576');
  const progress = benchProgress(1, 'figures', out);
  const results = await benchEnv({
    ...(assets === undefined ? {} : { assets }),
    ...(features === undefined ? {} : { features }),
    ...(lookback === undefined ? {} : { lookback }),
    ...(steps === undefined ? {} : { steps }),
    ...(repeat === undefined ? {} : { repeat }),
    ...(envs === undefined ? {} : { envs }),
    ...(gpu === undefined ? {} : { gpu }),
    ...(gpuEnvs === undefined ? {} : { gpuEnvs }),
    onStep: (name, done, total) => {
      progress.update(done, done < total ? `measuring ${name}` : 'done', total);
    },
  });
  progress.done();
  printBench(out, results);
}

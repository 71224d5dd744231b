import { benchPpo } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intListOption, intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';
import { startBackend } from '../../app/index.js';

/** `tradelab bench ppo`: end-to-end PPO training env steps/s with the rollout/update split. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const envs = intListOption(options.envs, 'envs', '1,16,64');
  const netDim = intOption(options, 'net-dim', 1);
  const assets = intOption(options, 'assets', 1);
  const targetStep = intOption(options, 'target-step', 1);
  const batchSize = intOption(options, 'batch-size', 1);
  const repeatTimes = intOption(options, 'repeat-times', 1);
  const updates = intOption(options, 'updates', 1);
  const residentEnvs = intListOption(options['resident-envs'], 'resident-envs', '1024,16384');
  const backend = await startBackend(context.project());
  const results = await benchPpo({
    ...(envs === undefined ? {} : { envs }),
    ...(netDim === undefined ? {} : { netDim }),
    ...(assets === undefined ? {} : { assets }),
    ...(targetStep === undefined ? {} : { targetStep }),
    ...(batchSize === undefined ? {} : { batchSize }),
    ...(repeatTimes === undefined ? {} : { repeatTimes }),
    ...(updates === undefined ? {} : { updates }),
    ...(residentEnvs === undefined ? {} : { residentEnvs }),
    backend,
  });
  printBench(out, results);
}

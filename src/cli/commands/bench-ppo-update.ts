import { POLICY_NETWORKS } from '../../agents/index.js';
import { benchPpoUpdate } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { choiceOption, intOption } from '../option-values.js';
import { benchProgress, printBench } from '../print-bench.js';

/** `tradelab bench ppo-update`: samples/s of one PPO minibatch update per matmul path. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const state = intOption(options, 'state', 1);
  const netDim = intOption(options, 'net-dim', 1);
  const actions = intOption(options, 'actions', 1);
  const batch = intOption(options, 'batch', 1);
  const updates = intOption(options, 'updates', 1);
  const repeat = intOption(options, 'repeat', 1);
  const webgpu = choiceOption(options, 'webgpu', ['auto', 'always', 'never'] as const);
  const preset = choiceOption(options, 'preset', ['finrl'] as const);
  const policy = choiceOption(options, 'policy', POLICY_NETWORKS);
  const reference = choiceOption(options, 'reference', ['auto', 'never'] as const);
  const progress = benchProgress(1, 'paths', out);
  const results = await benchPpoUpdate({
    ...(state === undefined ? {} : { state }),
    ...(netDim === undefined ? {} : { netDim }),
    ...(actions === undefined ? {} : { actions }),
    ...(batch === undefined ? {} : { batch }),
    ...(updates === undefined ? {} : { updates }),
    ...(repeat === undefined ? {} : { repeat }),
    ...(webgpu === undefined ? {} : { webgpu }),
    ...(preset === undefined ? {} : { preset }),
    ...(policy === undefined ? {} : { policy }),
    ...(reference === undefined ? {} : { reference }),
    split: options['no-split'] !== true,
    stock: options['no-stock'] !== true,
    onStep: (name, done, total) => {
      progress.update(done, done < total ? `measuring ${name.replace(/:.*$/, '')}` : 'done', total);
    },
  });
  progress.done();
  printBench(out, results);
}

import { benchEval } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intListOption, intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench eval`: env steps/s of deterministic evaluation per netDim and range count. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const netDims = intListOption(options['net-dims'], 'net-dims', '512,2048');
  const ranges = intListOption(options.ranges, 'ranges', '1,2');
  const bars = intOption(options, 'bars', 1);
  const assets = intOption(options, 'assets', 1);
  const repeat = intOption(options, 'repeat', 1);
  const results = await benchEval({
    ...(netDims === undefined ? {} : { netDims }),
    ...(ranges === undefined ? {} : { ranges }),
    ...(bars === undefined ? {} : { bars }),
    ...(assets === undefined ? {} : { assets }),
    ...(repeat === undefined ? {} : { repeat }),
  });
  printBench(out, results);
}

import { benchData } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench data`: import, resample, features and load throughput. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const rows = intOption(context.options, 'rows', 1000);
  const repeat = intOption(context.options, 'repeat');
  const results = await benchData({
    ...(rows === undefined ? {} : { rows }),
    ...(repeat === undefined ? {} : { repeat }),
    onPhase: (phase) => {
      out.note(`… ${phase}`);
    },
  });
  printBench(out, results);
}

import { benchTune } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intListOption, intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench tune`: the study engine's trials/s and TPE's time per suggestion. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials');
  const repeat = intOption(options, 'repeat');
  const processes = intListOption(options.processes, 'processes', '2,8');
  const history = intListOption(options.history, 'history', '100,1000');
  const results = await benchTune({
    ...(trials === undefined ? {} : { trials }),
    ...(repeat === undefined ? {} : { repeat }),
    ...(processes === undefined ? {} : { processes }),
    ...(history === undefined ? {} : { history }),
    onStep: (name) => {
      if (!out.json) out.note(`measuring ${name} …`);
    },
  });
  printBench(out, results);
}

import { benchTune } from '../../bench/tune-bench.js';
import { TradelabError } from '../../errors/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench tune`: the study engine's trials/s and TPE's time per suggestion. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const trials = intOption(options, 'trials');
  const repeat = intOption(options, 'repeat');
  const processes = listOption(options.processes, 'processes');
  const history = listOption(options.history, 'history');
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

/** `--processes 2,8`: positive whole numbers, comma-separated. */
function listOption(raw: string | boolean | undefined, name: string): number[] | undefined {
  if (raw === undefined) return undefined;
  const values = String(raw)
    .split(',')
    .map((part) => Number(part.trim().replace(/_/g, '')));
  if (values.length === 0 || values.some((v) => !Number.isSafeInteger(v) || v < 1))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not allowed: expected positive whole numbers separated by commas`,
      { hint: name === 'processes' ? 'e.g. --processes 2,8' : 'e.g. --history 100,1000' },
    );
  return values;
}

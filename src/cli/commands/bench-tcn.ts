import { TradelabError } from '../../core/index.js';
import { benchTcn } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { benchProgress, printBench } from '../print-bench.js';

/** `tradelab bench tcn`: TCN training steps in it/s, chunks/s and timesteps/s, memory and split. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const number = (name: string): number | undefined => intOption(options, name, 1);
  let sweep: number[] | undefined;
  if (typeof options.sweep === 'string') {
    const match = /^chunks=(\d+(?:,\d+)*)$/.exec(options.sweep);
    if (match === null)
      throw new TradelabError('INVALID_ARGUMENT', `--sweep ${options.sweep} is not chunks=N,N,…`, {
        hint: 'e.g. --sweep chunks=8,16,32,64',
      });
    sweep = (match[1] ?? '').split(',').map(Number);
  }
  const pick = {
    layers: number('layers'),
    hidden: number('hidden'),
    kernel: number('kernel'),
    seq: number('seq'),
    batch: number('batch'),
    features: number('features'),
    steps: number('steps'),
    repeat: number('repeat'),
    dropout: numberOption(options, 'dropout', 0, 0.99, '0.1'),
    checkpoint: choiceOption(options, 'checkpoint', ['both', 'on', 'off'] as const),
    backend: choiceOption(options, 'backend', ['wasm', 'gpu', 'webgpu'] as const),
    reference: choiceOption(options, 'reference', ['auto', 'never'] as const),
    sweep,
  };
  const progress = benchProgress(1, 'shapes', out);
  const results = await benchTcn({
    ...Object.fromEntries(Object.entries(pick).filter(([, v]) => v !== undefined)),
    onStep: (name, done, total) => {
      progress.update(done, done < total ? `measuring ${name}` : 'done', total);
    },
  });
  progress.done();
  printBench(out, results);
}

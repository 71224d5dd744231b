import { benchGemm } from '../../bench/index.js';
import { describeGemmChoice, readGemmChoice } from '../../compute/index.js';
import type { CommandContext } from '../command-spec.js';
import { choiceOption, intOption } from '../option-values.js';
import { printBench } from '../print-bench.js';

/** `tradelab bench gemm`: GFLOP/s per kernel and PPO shape, beside the FMA peak. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const threads = intOption(options, 'threads', 1);
  const repeat = intOption(options, 'repeat', 1);
  const saveChoice = options['save-choice'] === true;
  const gpu = choiceOption(options, 'gpu', ['auto', 'always', 'never'] as const);
  const results = await benchGemm({
    ...(gpu === undefined ? {} : { gpu }),
    ...(threads === undefined ? {} : { threads }),
    ...(repeat === undefined ? {} : { repeat }),
    xnnpack: options['no-xnnpack'] !== true,
    saveChoice,
  });
  printBench(out, results);
  if (saveChoice && !out.json) {
    const choice = readGemmChoice();
    out.line(
      choice === undefined
        ? 'Nothing recorded (no native GEMM): matmul auto uses XNNPACK.'
        : `Recorded for matmul auto: ${choice.choice === 'blas' ? (choice.blas?.vendor ?? 'the system BLAS') : `tradelab's ${choice.kernel} kernels`}; ${describeGemmChoice(choice)}.`,
    );
  }
}

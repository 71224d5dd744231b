import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { writeFileAtomic, makeDirectory } from '../core/index.js';

/*
 * Whether `auto` runs products on tradelab's own kernels or on the system BLAS is decided by a
 * measurement, not a guess: `tradelab bench gemm --save-choice` (which `npm ci` runs once after
 * the build when a system BLAS is there) times both on PPO's shapes and records the faster here.
 * A process only reads the record, so every run on the machine takes the same path, and results
 * do not change with how busy the machine was when a run started. Without a record, auto takes
 * tradelab's kernels, which need nothing installed.
 */

/** The record `bench gemm --save-choice` writes. */
const gemmChoiceSchema = z.object({
  choice: z.enum(['native', 'blas']),
  /** tradelab's kernel measured, e.g. "avx512". */
  kernel: z.string(),
  /** The BLAS measured: vendor and library file. */
  blas: z.object({ vendor: z.string(), path: z.string() }),
  /** Median GFLOP/s over the shapes, per side. */
  gflops: z.object({ native: z.number(), blas: z.number() }),
  measuredAt: z.string(),
});

/** What was measured, and which side won. */
export type GemmChoice = z.infer<typeof gemmChoiceSchema>;

/** Where the record lives: beside the addon it measured, so a rebuild (which removes it) remeasures. */
export const GEMM_CHOICE_PATH = fileURLToPath(
  new URL('../../native/gemm/build/gemm-choice.json', import.meta.url),
);

/** The recorded choice, or undefined when there is none (or it is unreadable: then measure again). */
export function readGemmChoice(path = GEMM_CHOICE_PATH): GemmChoice | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = gemmChoiceSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Records a choice (atomically: a reader never sees half a file). */
export function writeGemmChoice(choice: GemmChoice, path = GEMM_CHOICE_PATH): void {
  makeDirectory(dirname(path));
  writeFileAtomic(path, `${JSON.stringify(choice, null, 2)}\n`);
}

/** One line on what a recorded choice says, e.g. "OpenBLAS measured 201 GFLOP/s against avx512's 188 on …". */
export function describeGemmChoice(choice: GemmChoice): string {
  const native = `tradelab's ${choice.kernel} kernels ${choice.gflops.native.toFixed(0)} GFLOP/s`;
  const blas = `${choice.blas.vendor} ${choice.gflops.blas.toFixed(0)} GFLOP/s`;
  return `${choice.choice === 'blas' ? `${blas} against ${native}` : `${native} against ${blas}`} (measured ${choice.measuredAt.slice(0, 10)} on PPO's shapes)`;
}

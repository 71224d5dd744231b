import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { writeFileAtomic, makeDirectory } from '../core/index.js';

/*
 * Which of tradelab's kernels runs, and whether `auto` runs products on them or on the system
 * BLAS, is decided by a measurement, not a guess: `tradelab bench gemm --save-choice` (which `npm
 * ci` runs once after the build) times each of the CPU's kernels, and the BLAS when there is one,
 * on PPO's shapes and records the fastest here. The instruction set alone does not say which
 * kernel is faster: a core that executes AVX-512 at half width (Zen 4) runs the avx2 kernel as
 * fast, and blocking tuned on one family is not the best on another. A process only reads the
 * record, so every run on the machine takes the same path, and results do not change with how
 * busy the machine was when a run started. Without a record, the best instruction set's kernel
 * runs, which needs nothing installed.
 */

/** The record `bench gemm --save-choice` writes. */
const gemmChoiceSchema = z.object({
  choice: z.enum(['native', 'blas']),
  /** tradelab's kernel chosen, e.g. "avx512": the fastest measured (see {@link fastestKernel}). */
  kernel: z.string(),
  /** The BLAS measured: vendor and library file; absent when there was none. */
  blas: z.object({ vendor: z.string(), path: z.string() }).optional(),
  /** Median GFLOP/s over the shapes: the chosen kernel, the BLAS, and each kernel measured. */
  gflops: z.object({
    native: z.number(),
    blas: z.number().optional(),
    kernels: z.record(z.string(), z.number()).optional(),
  }),
  measuredAt: z.string(),
});

/** What was measured, and which side won. */
export type GemmChoice = z.infer<typeof gemmChoiceSchema>;

/**
 * Where the record lives: beside the addon it measured, so a rebuild (which removes it)
 * remeasures; TRADELAB_GEMM_CHOICE names another file (the tests' runs of the install script
 * measure into a file of their own, not the one every other process reads).
 */
export function gemmChoicePath(): string {
  const chosen = process.env.TRADELAB_GEMM_CHOICE;
  return chosen !== undefined && chosen !== ''
    ? chosen
    : fileURLToPath(new URL('../../native/gemm/build/gemm-choice.json', import.meta.url));
}

/** The recorded choice, or undefined when there is none (or it is unreadable: then measure again). */
export function readGemmChoice(path = gemmChoicePath()): GemmChoice | undefined {
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
export function writeGemmChoice(choice: GemmChoice, path = gemmChoicePath()): void {
  makeDirectory(dirname(path));
  writeFileAtomic(path, `${JSON.stringify(choice, null, 2)}\n`);
}

/**
 * The kernel to run from each kernel's median GFLOP/s (`kernels` best instruction set first): the
 * first, unless another beat it by more than 5%, since a near tie is noise.
 */
export function fastestKernel(
  rates: ReadonlyMap<string, number>,
  kernels: readonly string[],
): string | undefined {
  const first = kernels[0];
  if (first === undefined) return undefined;
  let best = first;
  for (const kernel of kernels)
    if ((rates.get(kernel) ?? 0) > (rates.get(best) ?? 0) * 1.05) best = kernel;
  return best;
}

/** One line on what a recorded choice says, e.g. "OpenBLAS measured 201 GFLOP/s against avx512's 188 on …". */
export function describeGemmChoice(choice: GemmChoice): string {
  const native = `tradelab's ${choice.kernel} kernels ${choice.gflops.native.toFixed(0)} GFLOP/s`;
  const others = Object.entries(choice.gflops.kernels ?? {})
    .filter(([kernel]) => kernel !== choice.kernel)
    .map(([kernel, rate]) => `${kernel} ${rate.toFixed(0)}`);
  const kernels = others.length === 0 ? '' : ` (${others.join(', ')})`;
  const when = `measured ${choice.measuredAt.slice(0, 10)} on PPO's shapes`;
  if (choice.blas === undefined || choice.gflops.blas === undefined)
    return `${native}${kernels}, no system BLAS (${when})`;
  const blas = `${choice.blas.vendor} ${choice.gflops.blas.toFixed(0)} GFLOP/s`;
  return `${choice.choice === 'blas' ? `${blas} against ${native}${kernels}` : `${native}${kernels} against ${blas}`} (${when})`;
}

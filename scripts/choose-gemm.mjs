#!/usr/bin/env node
// After the build (npm's `prepare`): when a system BLAS is there, time it against tradelab's own
// GEMM kernels on a PPO update's shapes and record the faster for `matmul auto`
// (native/gemm/build/gemm-choice.json; `tradelab bench gemm --save-choice` does the same by hand).
// Without a system BLAS, or without the native addon, there is nothing to choose and it says so.
// Never fails the install: a failed measurement leaves auto on tradelab's kernels.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
if (process.env.TRADELAB_SKIP_NATIVE === '1' || !existsSync(join(dist, 'bench', 'index.js')))
  process.exit(0);
try {
  const compute = await import(pathToFileURL(join(dist, 'compute', 'index.js')).href);
  if (compute.loadNativeGemm() === undefined) process.exit(0);
  const blas = compute.loadSystemBlas();
  if (!blas.available) {
    console.log(
      `tradelab: matmul auto uses tradelab's own GEMM kernels (no system BLAS: ${blas.reason})`,
    );
    process.exit(0);
  }
  const { benchGemm } = await import(pathToFileURL(join(dist, 'bench', 'index.js')).href);
  await benchGemm({
    xnnpack: false,
    onlyBest: true,
    repeat: 3,
    runSeconds: 0.02,
    saveChoice: true,
  });
  const choice = compute.readGemmChoice();
  if (choice !== undefined)
    console.log(
      `tradelab: matmul auto uses ${choice.choice === 'blas' ? choice.blas.vendor : `tradelab's ${choice.kernel} kernels`}: ${compute.describeGemmChoice(choice)}`,
    );
} catch (error) {
  console.log(
    `tradelab: could not compare the GEMM kernels (${error.message}); matmul auto uses tradelab's own`,
  );
}

#!/usr/bin/env node
// After the build (npm's `prepare`): times each of tradelab's GEMM kernels this CPU runs, and a
// system BLAS when there is one, on a PPO update's shapes, and records the fastest for `matmul
// auto` (native/gemm/build/gemm-choice.json; `tradelab bench gemm --save-choice` does the same by
// hand). The instruction set alone does not say which kernel is faster (a core that runs AVX-512
// at half width runs the avx2 kernel as fast). Without the native addon there is nothing to
// choose and it says so. Never fails the install: a failed measurement leaves the best
// instruction set's kernel.
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
  const { benchGemm } = await import(pathToFileURL(join(dist, 'bench', 'index.js')).href);
  await benchGemm({ forChoice: true, repeat: 3, runSeconds: 0.02, saveChoice: true });
  const choice = compute.readGemmChoice();
  if (choice !== undefined)
    console.log(
      `tradelab: matmul auto uses ${choice.choice === 'blas' ? (choice.blas?.vendor ?? 'the system BLAS') : `tradelab's own GEMM kernels (${choice.kernel})`}: ${compute.describeGemmChoice(choice)}${blas.available ? '' : `; no system BLAS (${blas.reason}), none needed`}`,
    );
} catch (error) {
  console.log(
    `tradelab: could not compare the GEMM kernels (${error.message}); matmul auto uses tradelab's own`,
  );
}

import { probeWebGpuAdapter } from '../../src/compute/webgpu-adapter.js';

/*
 * The policy of every test that needs a WebGPU adapter (tradelab's GPU engine, tfjs's webgpu
 * backend): on a machine without one, the test file is skipped with one warning that says why and
 * how to get lavapipe; in CI it fails instead, because CI installs lavapipe (scripts/ensure-lavapipe.sh)
 * and a GPU test that silently stopped running would be a test that cannot fail. The adapter is
 * probed once per process (test files share one, vitest's isolate: false) and each file asks.
 */

let probe: ReturnType<typeof probeWebGpuAdapter> | undefined;

/**
 * Whether a WebGPU adapter is here, for `describe.skipIf(!found)`; `file` names the test file in
 * the warning. Throws in CI (CI=true) when there is none.
 */
export async function gpuTestAdapter(file: string): Promise<boolean> {
  probe ??= probeWebGpuAdapter({ packages: ['webgpu'] });
  const found = await probe;
  if (found.found) return true;
  const why = `${file}: no WebGPU adapter (${found.reason})`;
  if (process.env.CI === 'true')
    throw new Error(
      `${why}; CI must run the GPU tests, not skip them: run scripts/ensure-lavapipe.sh as root before the tests (.ci/run does), which installs Mesa's lavapipe and checks that Dawn finds it`,
    );
  console.warn(`${why}: skipping; run scripts/ensure-lavapipe.sh (as root) to test on lavapipe`);
  return false;
}

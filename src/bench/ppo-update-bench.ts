import { availableParallelism, loadavg } from 'node:os';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  ppoGradientStep,
  ppoOptimizer,
  syntheticMinibatch,
} from '../agents/ppo-update.js';
import { listBackends, useBackend, type BackendName } from '../compute/backends.js';
import { describeWebGpuAdapter } from '../compute/webgpu-adapter.js';
import { describeNativeGemm, nativeGemmStatus } from '../compute/native-gemm.js';
import { setWasmMatMulPath, wasmMatMulPath, type WasmMatMulPath } from '../compute/wasm-matmul.js';
import { median, timeRuns, type BenchResult } from './bench-result.js';

/** Options for {@link benchPpoUpdate}. */
export interface PpoUpdateBenchOptions {
  /** State dimension. Default 64. */
  state?: number;
  /** Hidden units per layer. Default 512. */
  netDim?: number;
  /** Action dimension. Default 4. */
  actions?: number;
  /** Minibatch size. Default 4096. */
  batch?: number;
  /** Updates per run. Default 5. */
  updates?: number;
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /** Also measure the wasm backend's stock matmul kernels (slow: ~50 s at the defaults). Default true. */
  stock?: boolean;
  /**
   * Also measure webgpu: `auto` (default) when Dawn finds a hardware adapter, `always` on any
   * adapter (a software one is ~50× slower than wasm), `never`.
   */
  webgpu?: 'auto' | 'always' | 'never';
}

/**
 * Samples/s of one PPO minibatch update of actor and critic (forward, backward, gradient clip,
 * Adam), one thread, for each matmul path available: the native GEMM when it is built, XNNPACK
 * with explicit transposes, the backend's stock kernels, and webgpu when there is a GPU. The
 * issue's target, on the best row:
 * ≥ 0.5× PyTorch at its best on the development machine (≈ 29,000 samples/s), so ≥ 14,700.
 */
export async function benchPpoUpdate(options: PpoUpdateBenchOptions = {}): Promise<BenchResult[]> {
  const state = options.state ?? 64;
  const netDim = options.netDim ?? 512;
  const actions = options.actions ?? 4;
  const batch = options.batch ?? 4096;
  const updates = options.updates ?? 5;
  const repeat = options.repeat ?? 3;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  await useBackend('wasm');
  const restore = wasmMatMulPath();
  const paths: { backend: BackendName; path?: WasmMatMulPath; name: string }[] = [];
  const native = nativeGemmStatus();
  if (native.available)
    paths.push({
      backend: 'wasm',
      path: 'native',
      name: `wasm, native GEMM: ${describeNativeGemm(native)}`,
    });
  paths.push({ backend: 'wasm', path: 'xnnpack', name: 'wasm, XNNPACK with explicit transposes' });
  if (options.stock !== false)
    paths.push({ backend: 'wasm', path: 'stock', name: 'wasm, stock kernels' });
  const webgpu = options.webgpu ?? 'auto';
  if (webgpu !== 'never') {
    const adapter = (await listBackends()).find((b) => b.name === 'webgpu')?.webgpuAdapter;
    if (adapter !== undefined && (webgpu === 'always' || !adapter.software))
      paths.push({ backend: 'webgpu', name: `webgpu on ${describeWebGpuAdapter(adapter)}` });
  }
  const results: BenchResult[] = [];
  try {
    for (const path of paths) {
      await useBackend(path.backend);
      if (path.path !== undefined) setWasmMatMulPath(path.path);
      const nets = createPpoNetworks({ stateDim: state, actionDim: actions, netDim, seed: 1 });
      const optimizer = ppoOptimizer(3e-4);
      const minibatch = syntheticMinibatch(batch, state, actions);
      // The last step's statistics are read: on a GPU that waits for every queued step.
      const run = async (): Promise<void> => {
        let stats: ReturnType<typeof ppoGradientStep> | undefined;
        for (let u = 0; u < updates; u++) {
          stats?.dispose();
          stats = ppoGradientStep(nets, optimizer, minibatch);
        }
        await stats?.data();
        stats?.dispose();
      };
      await run(); // warm-up: kernels set up, Adam's slots created
      const runs = await timeRuns(repeat, run);
      const seconds = median(runs);
      results.push({
        bench: 'ppo-update',
        name: `PPO update, ${path.name} (state ${state}, netDim ${netDim}, actions ${actions}, batch ${batch})`,
        items: batch * updates,
        seconds,
        runs,
        rate: (batch * updates) / seconds,
        unit: 'samples/s',
        machine,
      });
      disposeMinibatch(minibatch);
      optimizer.dispose();
      disposePpoNetworks(nets);
    }
  } finally {
    await useBackend('wasm');
    setWasmMatMulPath(restore);
  }
  // The target is for the shapes, and for what tradelab can do: its best path.
  const atTarget = state === 64 && netDim === 512 && actions === 4 && batch === 4096;
  const best = results.reduce<BenchResult | undefined>(
    (b, r) => (b === undefined || r.rate > b.rate ? r : b),
    undefined,
  );
  if (atTarget && best !== undefined) best.target = 14_700;
  return results;
}

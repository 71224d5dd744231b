import { availableParallelism, loadavg } from 'node:os';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  ppoOptimizer,
  ppoUpdateStep,
  syntheticMinibatch,
} from '../agents/ppo-update.js';
import { useBackend } from '../compute/backends.js';
import { installWasmMatMul, uninstallWasmMatMul } from '../compute/wasm-matmul.js';
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
  /** Also measure the wasm backend's stock matmul kernels. Default true. */
  stock?: boolean;
}

/**
 * Samples/s of one PPO minibatch update of actor and critic (forward, backward, gradient clip,
 * Adam), one thread, for each matmul path available. The target: ≥ 0.5× PyTorch at its
 * best on the development machine (≈ 29,000 samples/s), so ≥ 14,700.
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
  const paths: { name: string; setup: () => void }[] = [
    { name: 'wasm, XNNPACK with explicit transposes', setup: installWasmMatMul },
  ];
  if (options.stock !== false)
    paths.push({ name: 'wasm, stock kernels', setup: uninstallWasmMatMul });
  const results: BenchResult[] = [];
  for (const path of paths) {
    path.setup();
    const nets = createPpoNetworks({ stateDim: state, actionDim: actions, netDim, seed: 1 });
    const optimizer = ppoOptimizer(3e-4);
    const minibatch = syntheticMinibatch(batch, state, actions);
    const run = (): void => {
      for (let u = 0; u < updates; u++) ppoUpdateStep(nets, optimizer, minibatch);
    };
    run(); // warm-up: kernels set up, Adam's slots created
    const runs = await timeRuns(repeat, run);
    const seconds = median(runs);
    const target = state === 64 && netDim === 512 && actions === 4 && batch === 4096;
    results.push({
      bench: 'ppo-update',
      name: `PPO update, ${path.name} (state ${state}, netDim ${netDim}, actions ${actions}, batch ${batch})`,
      items: batch * updates,
      seconds,
      runs,
      rate: (batch * updates) / seconds,
      unit: 'samples/s',
      machine,
      ...(target && path.name.includes('explicit') ? { target: 14_700 } : {}),
    });
    disposeMinibatch(minibatch);
    optimizer.dispose();
    disposePpoNetworks(nets);
  }
  installWasmMatMul();
  return results;
}

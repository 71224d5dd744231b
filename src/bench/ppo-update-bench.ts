import { availableParallelism, loadavg } from 'node:os';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  ppoGradientStep,
  ppoOptimizer,
  syntheticMinibatch,
} from '../agents/ppo-update.js';
import { profilePpoUpdate } from '../agents/ppo-update-profile.js';
import type { PolicyNetwork } from '../agents/ppo-config.js';
import { listBackends, useBackend, type BackendName } from '../compute/backends.js';
import { describeWebGpuAdapter } from '../compute/webgpu-adapter.js';
import { describeNativeGemm, loadSystemBlas, nativeGemmStatus } from '../compute/native-gemm.js';
import { setNativeTrainingKernelsEnabled } from '../compute/native-training-kernels.js';
import { setWasmMatMulPath, wasmMatMulPath, type WasmMatMulPath } from '../compute/wasm-matmul.js';
import {
  median,
  timeRuns,
  type BenchResult,
  type BenchStep,
  type GpuUpdateCounts,
} from './bench-result.js';
import { GpuPpoUpdate } from '../agents/ppo-gpu-update.js';
import { resolvePpoConfig } from '../agents/ppo-config.js';
import { startGpuCallMeter, type GpuCallMeter } from '../gpu/call-meter.js';
import { openGpuDevice, type RolloutArrays } from '../gpu/index.js';
import { Rng } from '../core/random.js';
import { describeReferenceBlas, runPytorchReference } from './pytorch-reference.js';

/** Named shapes: `finrl` is FinRL_Crypto's configuration (actor and critic 81→512→512, 10 assets, minibatch 2048). */
export const PPO_UPDATE_PRESETS = {
  finrl: { state: 81, netDim: 512, actions: 10, batch: 2048 },
} as const;

/** Options for {@link benchPpoUpdate}. */
export interface PpoUpdateBenchOptions {
  /** Shapes by name (explicit options win). */
  preset?: keyof typeof PPO_UPDATE_PRESETS;
  /** State dimension. Default 64. */
  state?: number;
  /** Hidden units per layer. Default 512. */
  netDim?: number;
  /** Action dimension. Default 4. */
  actions?: number;
  /** Minibatch size. Default 4096. */
  batch?: number;
  /** The actor's network ('ft_transformer': the FT-Transformer policy). Default 'mlp'. */
  policy?: PolicyNetwork;
  /** Updates per run. Default 5. */
  updates?: number;
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /**
   * Also measure the wasm backend's stock matmul kernels, on one update, once: at the defaults one
   * takes about 20 s on a 2-core machine, where five, three times, took five minutes. Default true.
   */
  stock?: boolean;
  /** Split each wasm row's time into products, element-wise, copies, optimizer and dispatch. Default true. */
  split?: boolean;
  /**
   * Also measure the GPU paths, tradelab's engine (`gpu`) and tfjs's webgpu backend: `auto`
   * (default) when Dawn finds a hardware adapter, `always` on any adapter (a software one, as
   * lavapipe, computes on the CPU: its figures compare dispatch overhead, not GPUs), `never`.
   */
  webgpu?: 'auto' | 'always' | 'never';
  /**
   * PyTorch's update on the same shapes, one thread, measured in this run
   * (bench/pytorch-ppo-update.py) as the target's reference: 'auto' (default) when python3 has
   * PyTorch, 'never'. An MLP actor only.
   */
  reference?: 'auto' | 'never';
  /** Progress: before each path, and at the end. */
  onStep?: BenchStep;
}

/** The issue's target: PyTorch's CPU update per core, measured in the same run, × this. */
const TARGET_OVER_PYTORCH = 1.2;

/**
 * Samples/s of one PPO minibatch update of actor and critic (forward, backward, gradient clip,
 * Adam), one thread, for each matmul path available: the native GEMM with its fused training
 * kernels, the same with tfjs's element-wise kernels, the system BLAS when there is one, XNNPACK
 * with explicit transposes (what runs without the native addon), the backend's stock kernels, and
 * webgpu when there is a GPU; each wasm row with where its time goes.
 */
export async function benchPpoUpdate(options: PpoUpdateBenchOptions = {}): Promise<BenchResult[]> {
  const preset = options.preset === undefined ? undefined : PPO_UPDATE_PRESETS[options.preset];
  const state = options.state ?? preset?.state ?? 64;
  const netDim = options.netDim ?? preset?.netDim ?? 512;
  const actions = options.actions ?? preset?.actions ?? 4;
  const batch = options.batch ?? preset?.batch ?? 4096;
  const policy = options.policy ?? 'mlp';
  const updates = options.updates ?? 5;
  const repeat = options.repeat ?? 3;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  await useBackend('wasm');
  const restore = wasmMatMulPath();
  const paths: {
    backend: BackendName;
    path?: WasmMatMulPath;
    name: string;
    /** false: tfjs's element-wise kernels instead of the fused native ones. */
    fused?: boolean;
  }[] = [];
  const native = nativeGemmStatus();
  if (native.available) {
    paths.push({
      backend: 'wasm',
      path: 'native',
      name: `wasm, native GEMM + fused kernels: ${describeNativeGemm(native)}`,
    });
    paths.push({
      backend: 'wasm',
      path: 'native',
      fused: false,
      name: "wasm, native GEMM, tfjs's element-wise kernels",
    });
    const blas = loadSystemBlas();
    if (blas.available)
      paths.push({
        backend: 'wasm',
        path: 'blas',
        name: `wasm, ${blas.vendor ?? 'BLAS'} sgemm + fused kernels`,
      });
  }
  paths.push({ backend: 'wasm', path: 'xnnpack', name: 'wasm, XNNPACK with explicit transposes' });
  if (options.stock !== false)
    paths.push({ backend: 'wasm', path: 'stock', name: 'wasm, stock kernels' });
  const webgpu = options.webgpu ?? 'auto';
  let meter: GpuCallMeter | undefined;
  if (webgpu !== 'never') {
    const adapter = (await listBackends()).find((b) => b.name === 'webgpu')?.webgpuAdapter;
    if (adapter !== undefined && (webgpu === 'always' || !adapter.software)) {
      const on = describeWebGpuAdapter(adapter);
      paths.push({ backend: 'gpu', name: `gpu, tradelab's engine on ${on}` });
      paths.push({ backend: 'webgpu', name: `webgpu (tfjs) on ${on}` });
      meter = await startGpuCallMeter();
    }
  }
  const shapeName = `(state ${state}, netDim ${netDim}, actions ${actions}, batch ${batch})`;
  const results: BenchResult[] = [];
  const onGpu = new Set<BenchResult>();
  const withReference = policy === 'mlp' && options.reference !== 'never';
  const steps = paths.length + (withReference ? 1 : 0);
  try {
    for (const [done, path] of paths.entries()) {
      options.onStep?.(path.name, done, steps);
      if (path.backend === 'gpu') {
        if (policy !== 'mlp') continue; // the engine trains MLP actors only
        const engine = await benchEngine(
          { state, netDim, actions, batch, updates, repeat },
          path.name,
          shapeName,
          machine,
          meter,
        );
        results.push(engine);
        onGpu.add(engine);
        continue;
      }
      // The stock kernels are ~100× slower: one update, once, is figure enough.
      const stock = path.path === 'stock';
      const pathUpdates = stock ? 1 : updates;
      await useBackend(path.backend);
      if (path.path !== undefined) setWasmMatMulPath(path.path);
      setNativeTrainingKernelsEnabled(path.fused !== false);
      const nets = createPpoNetworks({
        stateDim: state,
        actionDim: actions,
        netDim,
        policy,
        seed: 1,
      });
      const optimizer = ppoOptimizer(3e-4);
      const minibatch = syntheticMinibatch(batch, state, actions);
      // The last step's statistics are read: on a GPU that waits for every queued step.
      const run = async (): Promise<void> => {
        let stats: ReturnType<typeof ppoGradientStep> | undefined;
        for (let u = 0; u < pathUpdates; u++) {
          stats?.dispose();
          stats = ppoGradientStep(nets, optimizer, minibatch);
        }
        await stats?.data();
        stats?.dispose();
      };
      await run(); // warm-up: kernels set up, Adam's slots created
      meter?.take();
      const runs = await timeRuns(stock ? 1 : repeat, run);
      const counted = meter?.take();
      const seconds = median(runs);
      const split =
        options.split !== false && path.backend === 'wasm' && !stock
          ? await profilePpoUpdate(nets, optimizer, minibatch, updates)
          : undefined;
      const result: BenchResult = {
        bench: 'ppo-update',
        name: `PPO update${policy === 'mlp' ? '' : `, ${policy} actor`}, ${path.name} ${shapeName}`,
        items: batch * pathUpdates,
        seconds,
        runs,
        rate: (batch * pathUpdates) / seconds,
        unit: 'samples/s',
        ...(split === undefined ? {} : { split }),
        ...(path.backend === 'webgpu' && counted !== undefined
          ? { gpu: perUpdate(counted, runs.length * pathUpdates) }
          : {}),
        machine,
      };
      results.push(result);
      if (path.backend === 'webgpu') onGpu.add(result);
      disposeMinibatch(minibatch);
      optimizer.dispose();
      disposePpoNetworks(nets);
    }
  } finally {
    meter?.stop();
    setNativeTrainingKernelsEnabled(true);
    await useBackend('wasm');
    setWasmMatMulPath(restore);
  }
  // The target is for what tradelab can do on the CPU: its best wasm path, one thread, per core.
  const best = results
    .filter((r) => !onGpu.has(r))
    .reduce<BenchResult | undefined>(
      (b, r) => (b === undefined || r.rate > b.rate ? r : b),
      undefined,
    );
  if (withReference && best !== undefined) {
    options.onStep?.('PyTorch reference (bench/pytorch-ppo-update.py)', paths.length, steps);
    const reference = await runPytorchReference(
      'pytorch-ppo-update.py',
      [
        ...['--state', String(state), '--net-dim', String(netDim), '--actions', String(actions)],
        ...['--batch', String(batch), '--updates', String(updates), '--repeat', String(repeat)],
        ...['--threads', '1'],
      ],
      'rate',
    );
    if ('unavailable' in reference)
      best.note = `no PyTorch reference in this run (${reference.unavailable}): no ratio is printed`;
    else {
      results.push({
        bench: 'ppo-update',
        name: `${reference.name} (reference)`,
        items: batch * updates,
        seconds: Number(reference.record.seconds),
        runs: Array.isArray(reference.record.runs) ? (reference.record.runs as number[]) : [],
        rate: reference.rate,
        unit: 'samples/s',
        machine,
      });
      best.target = TARGET_OVER_PYTORCH * reference.rate;
      // The own kernels' ratio too: what `npm ci` alone gives, without a system BLAS.
      const own = results.find((r) => r.name.includes('native GEMM + fused'));
      const ownRatio =
        own === undefined || own === best
          ? ''
          : `, tradelab's own kernels ${(own.rate / reference.rate).toFixed(2)}×`;
      best.targetSource = `${TARGET_OVER_PYTORCH}× PyTorch's update measured in this run on these shapes, one thread (${Math.round(reference.rate).toLocaleString('en-US')} samples/s, ${describeReferenceBlas(reference.blas)}); the best path is ${(best.rate / reference.rate).toFixed(2)}× it${ownRatio}`;
    }
  }
  options.onStep?.('done', steps, steps);
  return results;
}

/** Counts over `updates` updates, per update. */
function perUpdate(counts: GpuUpdateCounts, updates: number): GpuUpdateCounts {
  return {
    dispatches: counts.dispatches / updates,
    submits: counts.submits / updates,
    uploadBytes: counts.uploadBytes / updates,
    downloadBytes: counts.downloadBytes / updates,
  };
}

/**
 * The engine's row: `updates` minibatch steps on one minibatch as one command buffer and one read
 * of the statistics (as a training update records its minibatches), timed like the tfjs rows.
 */
async function benchEngine(
  shape: {
    state: number;
    netDim: number;
    actions: number;
    batch: number;
    updates: number;
    repeat: number;
  },
  name: string,
  shapeName: string,
  machine: BenchResult['machine'],
  meter: GpuCallMeter | undefined,
): Promise<BenchResult> {
  const { state, netDim, actions, batch, updates, repeat } = shape;
  const gpu = await openGpuDevice();
  const nets = createPpoNetworks({ stateDim: state, actionDim: actions, netDim, seed: 1 });
  const optimizer = ppoOptimizer(3e-4);
  try {
    const config = resolvePpoConfig({
      nEnvs: 1,
      netDim,
      targetStep: batch,
      batchSize: batch,
      repeatTimes: updates,
    });
    const engine = await GpuPpoUpdate.create(gpu, nets, optimizer, config);
    const rng = new Rng(1);
    const normal = (n: number, shift = 0): Float32Array =>
      Float32Array.from({ length: n }, () => shift + rng.normal());
    const rollout: RolloutArrays = {
      rows: batch,
      states: normal(batch * state),
      actions: normal(batch * actions),
      logProbs: normal(batch, -4),
      advantages: normal(batch),
      returns: normal(batch),
      values: normal(batch),
    };
    const order = Int32Array.from({ length: batch }, (_, i) => i);
    const run = async (): Promise<void> => {
      await engine.program.train(rollout, () => order, { learningRate: 3e-4, targetKl: null });
    };
    await run(); // warm-up
    meter?.take();
    const runs = await timeRuns(repeat, run);
    const counted = meter?.take();
    const seconds = median(runs);
    const kernels = await engine.program.profileStep(rollout, 3e-4);
    return {
      bench: 'ppo-update',
      name: `PPO update, ${name} ${shapeName}`,
      items: batch * updates,
      seconds,
      runs,
      rate: (batch * updates) / seconds,
      unit: 'samples/s',
      ...(counted === undefined ? {} : { gpu: perUpdate(counted, runs.length * updates) }),
      ...(kernels === undefined ? {} : { gpuKernels: kernels }),
      gpuMemoryBytes: gpu.allocatedBytes,
      machine,
    };
  } finally {
    optimizer.dispose();
    disposePpoNetworks(nets);
    gpu.destroy();
  }
}

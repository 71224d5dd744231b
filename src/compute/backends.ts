import { createRequire } from 'node:module';
import * as tf from './tfjs.js';
import type { BackendChoice } from '../config/settings.js';
import { TradelabError } from '../core/index.js';
import { describeGemmChoice, readGemmChoice, type GemmChoice } from './gemm-choice.js';
import {
  describeNativeGemm,
  loadSystemBlas,
  nativeGemmStatus,
  ownKernel,
  setNativeThreads,
  type NativeGemmStatus,
} from './native-gemm.js';
import { setWasmMatMulPath, type WasmMatMulPath } from './wasm-matmul.js';
import { installNativeTrainingKernels } from './native-training-kernels.js';
import { installNativeReluMlp } from './native-relu-mlp.js';
import { installNativeTransformerKernels } from './native-transformer-kernels.js';
import { installNativeConvKernels } from './causal-conv.js';
import { installWasmTrainingKernels } from './wasm-training-kernels.js';
import {
  describeWebGpuAdapter,
  installWebGpuGlobals,
  probeWebGpuAdapter,
  WEBGPU_PACKAGES,
  type WebGpuAdapterInfo,
} from './webgpu-adapter.js';
import { installWebGpuKernels } from './webgpu-kernels.js';
import { openGpuDevice, type GpuDevice } from '../gpu/index.js';

/*
 * The backends: which exist here, and starting the chosen one. tfjs's names are kept:
 * `cpu` is its pure-JavaScript backend (not the `cpu` GPU profile). wasm and cpu are dependencies;
 * webgpu (`@tensorflow/tfjs-backend-webgpu` on the `webgpu` package, Dawn) is an optional one and
 * runs when Dawn finds an adapter. `gpu` is tradelab's own engine (src/gpu/) on the same Dawn: the
 * PPO update of MLP networks runs there as a few fused kernels per minibatch, and everything else
 * (acting in rollouts, evaluation, the FT-Transformer) on wasm with the native kernels. tfjs-node (`@tensorflow/tfjs-node`) is not offered: tradelab
 * does not start it, and a choice is listed only once it runs and is tested.
 */

/** A concrete backend (what `auto` resolves to). */
export type BackendName = Exclude<BackendChoice, 'auto'>;

/** Whether a backend can run here, and why not when it cannot. */
export interface BackendStatus {
  name: BackendName;
  available: boolean;
  /** What it is, or why it is not available and how to get it. */
  detail: string;
  /** wasm only: the native GEMM its matrix products use when it is available. */
  nativeGemm?: NativeGemmStatus;
  /** wasm only: the path `auto` takes for matrix products, and why. */
  autoMatMul?: { path: WasmMatMulPath; why: string; measured?: GemmChoice };
  /** webgpu and gpu: the adapter it runs on, when there is one. */
  webgpuAdapter?: WebGpuAdapterInfo;
}

/** How the wasm backend does matrix products: a {@link WasmMatMulPath}, or `auto` (native when built). */
export type MatMulChoice = 'auto' | WasmMatMulPath;

const MATMUL_CHOICES: readonly MatMulChoice[] = ['auto', 'native', 'blas', 'xnnpack', 'stock'];

/** Options for {@link useBackend}. */
export interface UseBackendOptions {
  /**
   * Whether a GPU profile is in use (`auto` then takes a hardware WebGPU adapter when the native
   * GEMM is not built). Default false.
   */
  gpuProfile?: boolean;
  /**
   * wasm's matrix products. Default: $TRADELAB_MATMUL, else `auto` (the native GEMM when it is
   * built, on the system BLAS where that was measured faster, else XNNPACK).
   */
  matmul?: MatMulChoice;
  /**
   * Threads per native product. Default 1 (trial workers fill the cores); `all` for a single run
   * that should use every core.
   */
  nativeThreads?: number | 'all';
}

/** The backend running now and how its matrix products are done. */
export interface ActiveBackend {
  name: BackendName;
  /** e.g. "tradelab sgemm (avx512 kernels, 1 thread)", "XNNPACK, transposes made explicit". */
  matmul: string;
  /** Why this backend: the choice and, for `auto`, the reason. */
  why: string;
  /** gpu only: the engine's device, which trainers run their updates on. */
  gpu?: GpuDevice;
}

/** How the webgpu row's detail starts when its packages are installed but Dawn finds no adapter. */
const NO_ADAPTER = 'installed, no adapter: ';

/**
 * A row of a backend on Dawn (webgpu, gpu): available when `packages` are installed and Dawn
 * finds an adapter; `detail` says what runs on a hardware or a software one.
 */
async function dawnStatus(
  name: 'webgpu' | 'gpu',
  packages: readonly string[],
  detail: (adapter: string, software: boolean) => string,
): Promise<BackendStatus> {
  const probe = await probeWebGpuAdapter({ packages });
  if (!probe.found)
    return {
      name,
      available: false,
      detail: probe.missing === true ? probe.reason : `${NO_ADAPTER}${probe.reason}`,
    };
  return {
    name,
    available: true,
    detail: detail(describeWebGpuAdapter(probe.adapter), probe.adapter.software),
    webgpuAdapter: probe.adapter,
  };
}

/** The webgpu row: tfjs's backend, which needs its package and Dawn's. */
function webgpuStatus(): Promise<BackendStatus> {
  return dawnStatus('webgpu', WEBGPU_PACKAGES, (adapter, software) =>
    software
      ? `Dawn on a software adapter, ${adapter}: works, slower than wasm (auto keeps wasm)`
      : `Dawn on ${adapter}`,
  );
}

/** The gpu row: tradelab's engine, which needs the webgpu package alone. */
function gpuStatus(): Promise<BackendStatus> {
  return dawnStatus('gpu', ['webgpu'], (adapter, software) =>
    software
      ? `tradelab's WebGPU engine on a software adapter, ${adapter}: correct, slower than wasm (auto keeps wasm)`
      : `tradelab's WebGPU engine on ${adapter}: the PPO update on the GPU, the rest on wasm`,
  );
}

/**
 * The path `auto` takes for wasm's products: the native GEMM when it is built, on the system BLAS
 * only where `bench gemm --save-choice` measured it faster (and it still loads); else XNNPACK.
 */
export function autoMatMulPath(): { path: WasmMatMulPath; why: string; measured?: GemmChoice } {
  const native = nativeGemmStatus();
  if (!native.available)
    return { path: 'xnnpack', why: `the native GEMM is not available (${native.reason})` };
  const measured = readGemmChoice();
  const own = `tradelab's ${ownKernel() ?? 'own'} kernels`;
  if (measured === undefined)
    return {
      path: 'native',
      why: `${own}: nothing measured yet (\`tradelab bench gemm --save-choice\` compares the kernels and any system BLAS)`,
    };
  if (measured.choice === 'native')
    return { path: 'native', why: `${own}: ${describeGemmChoice(measured)}`, measured };
  const blas = loadSystemBlas();
  if (!blas.available)
    return {
      path: 'native',
      why: `${own}: ${measured.blas?.vendor ?? 'the system BLAS'} was measured faster but no longer loads (${blas.reason})`,
      measured,
    };
  return { path: 'blas', why: describeGemmChoice(measured), measured };
}

/** The wasm row: always available; says whether its products run on the native GEMM. */
function wasmStatus(): BackendStatus {
  const nativeGemm = nativeGemmStatus();
  if (nativeGemm.available) loadSystemBlas(); // so the row can say what BLAS is here
  const autoMatMul = autoMatMulPath();
  const status = nativeGemmStatus();
  const running: NativeGemmStatus = {
    ...status,
    kernel: autoMatMul.path === 'blas' ? 'blas' : (ownKernel() ?? 'generic'),
  };
  return {
    name: 'wasm',
    available: true,
    detail: status.available
      ? `WebAssembly; matrix products on the native GEMM, ${describeNativeGemm(running)}`
      : 'WebAssembly with XNNPACK; every matrix product on its fast path (explicit transposes)',
    nativeGemm: status,
    autoMatMul,
  };
}

/** One backend's row; only webgpu's asks Dawn for an adapter. */
async function backendStatus(name: BackendName): Promise<BackendStatus> {
  switch (name) {
    case 'wasm':
      return wasmStatus();
    case 'gpu':
      return gpuStatus();
    case 'webgpu':
      return webgpuStatus();
    case 'cpu':
      return {
        name,
        available: true,
        detail: "tfjs's pure-JavaScript backend: slow, for reference",
      };
  }
}

/** Every backend and whether it can run here. */
export async function listBackends(): Promise<BackendStatus[]> {
  const names: BackendName[] = ['wasm', 'gpu', 'webgpu', 'cpu'];
  const statuses: BackendStatus[] = [];
  for (const name of names) statuses.push(await backendStatus(name));
  return statuses;
}

/** The matmul choice from the options, else $TRADELAB_MATMUL, else `auto`. */
function matmulChoice(options: UseBackendOptions): MatMulChoice {
  if (options.matmul !== undefined) return options.matmul;
  const env = process.env.TRADELAB_MATMUL;
  if (env === undefined || env === '') return 'auto';
  const choice = MATMUL_CHOICES.find((c) => c === env);
  if (choice === undefined)
    throw new TradelabError('CONFIG_INVALID', `TRADELAB_MATMUL=${env} is not a matmul path`, {
      hint: `set it to one of ${MATMUL_CHOICES.join(', ')}, or unset it`,
    });
  return choice;
}

/** Puts the chosen matmul kernels on the wasm backend and says which. */
function setUpWasmMatMul(options: UseBackendOptions): string {
  const choice = matmulChoice(options);
  const native = nativeGemmStatus();
  const path: WasmMatMulPath = choice === 'auto' ? autoMatMulPath().path : choice;
  if ((path === 'native' || path === 'blas') && !native.available)
    throw new TradelabError('BACKEND_UNAVAILABLE', `native GEMM not available: ${native.reason}`, {
      hint: 'use matmul auto or xnnpack, or build the native GEMM as the message says',
    });
  setWasmMatMulPath(path);
  if ((path === 'native' || path === 'blas') && options.nativeThreads !== undefined)
    setNativeThreads(options.nativeThreads);
  switch (path) {
    case 'native':
    case 'blas':
      return describeNativeGemm();
    case 'xnnpack':
      return choice === 'auto'
        ? `XNNPACK, transposes made explicit (${describeNativeGemm(native)})`
        : 'XNNPACK, transposes made explicit';
    case 'stock':
      return "the wasm backend's own kernels (XNNPACK only for untransposed 2-D products)";
  }
}

/** What {@link chooseBackend} decided. */
export interface BackendDecision {
  name: BackendName;
  why: string;
  /** The engine's status, when `auto` asked Dawn for an adapter. */
  probed?: BackendStatus;
}

/**
 * The backend `choice` resolves to here, started by nothing: `auto` is wasm, except on a GPU
 * profile where Dawn finds a hardware adapter: there, `gpu` (tradelab's engine). A planner asks
 * this to plan for what its workers will run on.
 */
export async function chooseBackend(
  choice: BackendChoice,
  options: Pick<UseBackendOptions, 'gpuProfile'> = {},
): Promise<BackendDecision> {
  if (choice !== 'auto') return { name: choice, why: `--backend ${choice}` };
  if (options.gpuProfile !== true) return { name: 'wasm', why: 'auto: a CPU profile' };
  // Dawn is asked for an adapter only when the GPU may be chosen: a trial worker on wasm need
  // not load it (and its Vulkan driver).
  const probed = await backendStatus('gpu');
  const adapter = probed.webgpuAdapter;
  if (probed.available && adapter !== undefined && !adapter.software)
    // tfjs's webgpu backend is never auto's choice: measured on an H100
    // (bench/results/2026-11-25-gpu-bundle-h100-tables.txt) it was dispatch-bound, one CPU
    // core's speed; the engine records a whole update as a few fused kernels per minibatch.
    return {
      name: 'gpu',
      why: `auto: a GPU profile and a GPU (${describeWebGpuAdapter(adapter)}): tradelab's engine trains there`,
      probed,
    };
  // A software adapter computes on the CPU, slower than wasm: only --backend gpu takes it.
  return {
    name: 'wasm',
    why:
      adapter?.software === true
        ? `auto: the only WebGPU adapter is a software one (${describeWebGpuAdapter(adapter)}), so wasm`
        : `auto: no WebGPU here (${probed.detail}), so wasm`,
    probed,
  };
}

/**
 * Starts the backend for `choice` ({@link chooseBackend}). A backend that is not available is an
 * error naming the fallback. On wasm (and gpu, whose other work runs there), `options.matmul`
 * picks how matrix products run.
 */
export async function useBackend(
  choice: BackendChoice,
  options: UseBackendOptions = {},
): Promise<ActiveBackend> {
  const { name, why, probed } = await chooseBackend(choice, options);
  const status = probed?.name === name ? probed : await backendStatus(name);
  if (
    (name === 'webgpu' || name === 'gpu') &&
    !status.available &&
    status.detail.startsWith(NO_ADAPTER)
  )
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `backend ${name}: no WebGPU adapter was found: ${status.detail.slice(NO_ADAPTER.length)}`,
      { hint: 'use --backend wasm, which always runs, or fix what the message names' },
    );
  if (!status.available)
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `backend ${name} is not available here: ${status.detail}`,
      {
        hint: 'use --backend wasm (always available), or install what the message names',
      },
    );
  let matmul = 'JavaScript loops';
  let gpu: GpuDevice | undefined;
  if (name === 'wasm' || name === 'gpu') {
    // require, not import: see tfjs.ts (Node would parse the CommonJS bundle for its exports).
    createRequire(import.meta.url)('@tensorflow/tfjs-backend-wasm');
    matmul = setUpWasmMatMul(options);
    installWasmTrainingKernels();
    installNativeTrainingKernels();
    installNativeReluMlp();
    installNativeTransformerKernels();
    installNativeConvKernels();
  }
  if (name === 'webgpu') {
    await installWebGpuGlobals();
    // By a name in a variable: an optional dependency, whose types the build must not need.
    const backendPackage = '@tensorflow/tfjs-backend-webgpu';
    await import(backendPackage);
    installWebGpuKernels();
    matmul = 'WebGPU compute shaders';
  }
  if (name === 'gpu') {
    gpu = await openGpuDevice();
    matmul = `PPO's update and the TCN's steps on tradelab's WebGPU kernels (${describeWebGpuAdapter(gpu.adapter)}); the rest on ${matmul}`;
  }
  // The engine is not a tfjs backend: tfjs runs on wasm beside it.
  const tfjsBackend = name === 'gpu' ? 'wasm' : name;
  if (!(await tf.setBackend(tfjsBackend)))
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `TensorFlow.js could not start its ${tfjsBackend} backend`,
      {
        hint: 'run `tradelab backends` to see what is available',
      },
    );
  await tf.ready();
  return { name, matmul, why, ...(gpu === undefined ? {} : { gpu }) };
}

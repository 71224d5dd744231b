import { createRequire } from 'node:module';
import * as tf from './tfjs.js';
import type { BackendChoice } from '../config/settings.js';
import { TradelabError } from '../core/index.js';
import { describeGemmChoice, readGemmChoice, type GemmChoice } from './gemm-choice.js';
import {
  describeNativeGemm,
  loadSystemBlas,
  nativeGemmStatus,
  setNativeThreads,
  type NativeGemmStatus,
} from './native-gemm.js';
import { setWasmMatMulPath, type WasmMatMulPath } from './wasm-matmul.js';
import { installNativeTrainingKernels } from './native-training-kernels.js';
import { installNativeTransformerKernels } from './native-transformer-kernels.js';
import { installNativeConvKernels } from './causal-conv.js';
import { installWasmTrainingKernels } from './wasm-training-kernels.js';
import {
  describeWebGpuAdapter,
  installWebGpuGlobals,
  probeWebGpuAdapter,
  type WebGpuAdapterInfo,
} from './webgpu-adapter.js';
import { installWebGpuKernels } from './webgpu-kernels.js';

/*
 * TensorFlow.js backends: which exist here, and starting the chosen one. tfjs's names are kept:
 * `cpu` is its pure-JavaScript backend (not the `cpu` GPU profile). wasm and cpu are dependencies;
 * webgpu (`@tensorflow/tfjs-backend-webgpu` on the `webgpu` package, Dawn) is an optional one and
 * runs when Dawn finds an adapter. tfjs-node (`@tensorflow/tfjs-node`) is not offered: tradelab
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
  /** webgpu only: the adapter it runs on, when there is one. */
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
}

/** How the webgpu row's detail starts when its packages are installed but Dawn finds no adapter. */
const NO_ADAPTER = 'installed, no adapter: ';

/** The webgpu row: available when its packages are installed and Dawn finds an adapter. */
async function webgpuStatus(): Promise<BackendStatus> {
  const probe = await probeWebGpuAdapter();
  if (!probe.found)
    return {
      name: 'webgpu',
      available: false,
      detail: probe.missing === true ? probe.reason : `${NO_ADAPTER}${probe.reason}`,
    };
  const adapter = describeWebGpuAdapter(probe.adapter);
  return {
    name: 'webgpu',
    available: true,
    detail: probe.adapter.software
      ? `Dawn on a software adapter, ${adapter}: works, slower than wasm (auto keeps wasm)`
      : `Dawn on ${adapter}`,
    webgpuAdapter: probe.adapter,
  };
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
  const own = `tradelab's ${native.kernels?.[0] ?? 'own'} kernels`;
  if (measured === undefined)
    return {
      path: 'native',
      why: `${own}: no system BLAS measured faster (\`tradelab bench gemm --save-choice\` compares them)`,
    };
  if (measured.choice === 'native')
    return { path: 'native', why: `${own}: ${describeGemmChoice(measured)}`, measured };
  const blas = loadSystemBlas();
  if (!blas.available)
    return {
      path: 'native',
      why: `${own}: ${measured.blas.vendor} was measured faster but no longer loads (${blas.reason})`,
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
    kernel: autoMatMul.path === 'blas' ? 'blas' : (status.kernels?.[0] ?? 'generic'),
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
  const names: BackendName[] = ['wasm', 'webgpu', 'cpu'];
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

/**
 * Starts the backend for `choice`: `auto` is wasm, except on a GPU profile where Dawn finds a
 * hardware adapter and the native GEMM is not built: there, webgpu. A backend that is not available is an error naming the fallback. On wasm,
 * `options.matmul` picks how matrix products run.
 */
export async function useBackend(
  choice: BackendChoice,
  options: UseBackendOptions = {},
): Promise<ActiveBackend> {
  // Dawn is asked for an adapter only when webgpu may be chosen, and once: a trial worker on wasm
  // need not load it (and its Vulkan driver).
  let webgpuProbed: BackendStatus | undefined;
  let name: BackendName;
  let why: string;
  if (choice === 'auto') {
    const webgpu = options.gpuProfile === true ? await backendStatus('webgpu') : undefined;
    webgpuProbed = webgpu;
    const adapter = webgpu?.webgpuAdapter;
    if (options.gpuProfile !== true) {
      name = 'wasm';
      why = 'auto: a CPU profile';
    } else if (webgpu?.available === true && adapter !== undefined && !adapter.software) {
      // Measured on an H100 (bench/results/2026-11-25-gpu-bundle-h100-tables.txt): tfjs's WebGPU
      // kernels are dispatch-bound, so one CPU core on the native GEMM trains PPO as fast or
      // faster (end to end 16× at netDim 256); against XNNPACK alone webgpu wins (6× an update).
      const native = nativeGemmStatus();
      if (native.available) {
        name = 'wasm';
        why = `auto: the native GEMM outran WebGPU on an H100 (PPO end to end 16×), so wasm; --backend webgpu takes the adapter (${describeWebGpuAdapter(adapter)})`;
      } else {
        name = 'webgpu';
        why = `auto: a GPU profile, a WebGPU adapter (${describeWebGpuAdapter(adapter)}) and no native GEMM (${native.reason})`;
      }
    } else {
      // A software adapter computes on the CPU, slower than wasm: only --backend webgpu takes it.
      name = 'wasm';
      why =
        adapter?.software === true
          ? `auto: the only WebGPU adapter is a software one (${describeWebGpuAdapter(adapter)}), so wasm`
          : `auto: no WebGPU here (${webgpu?.detail ?? 'unknown'}), so wasm`;
    }
  } else {
    name = choice;
    why = `--backend ${choice}`;
  }
  const status =
    name === 'webgpu' && webgpuProbed !== undefined ? webgpuProbed : await backendStatus(name);
  if (name === 'webgpu' && !status.available && status.detail.startsWith(NO_ADAPTER))
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `backend webgpu: no WebGPU adapter was found: ${status.detail.slice(NO_ADAPTER.length)}`,
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
  if (name === 'wasm') {
    // require, not import: see tfjs.ts (Node would parse the CommonJS bundle for its exports).
    createRequire(import.meta.url)('@tensorflow/tfjs-backend-wasm');
    matmul = setUpWasmMatMul(options);
    installWasmTrainingKernels();
    installNativeTrainingKernels();
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
  if (!(await tf.setBackend(name)))
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `TensorFlow.js could not start its ${name} backend`,
      {
        hint: 'run `tradelab backends` to see what is available',
      },
    );
  await tf.ready();
  return { name, matmul, why };
}

import * as tf from '@tensorflow/tfjs';
import type { BackendChoice } from '../config/settings.js';
import { TradelabError } from '../errors/index.js';
import {
  describeNativeGemm,
  nativeGemmStatus,
  setNativeThreads,
  type NativeGemmStatus,
} from './native-gemm.js';
import { setWasmMatMulPath, type WasmMatMulPath } from './wasm-matmul.js';
import { installWasmTrainingKernels } from './wasm-training-kernels.js';

/*
 * TensorFlow.js backends: which exist here, and starting the chosen one. tfjs's names are kept:
 * `cpu` is its pure-JavaScript backend (not the `cpu` GPU profile). Only wasm and cpu are
 * dependencies; webgpu (`@tensorflow/tfjs-backend-webgpu` on the `webgpu` package) and tensorflow
 * (`@tensorflow/tfjs-node`, whose install downloads libtensorflow) are used when the user installed
 * them.
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
}

/** How the wasm backend does matrix products: a {@link WasmMatMulPath}, or `auto` (native when built). */
export type MatMulChoice = 'auto' | WasmMatMulPath;

const MATMUL_CHOICES: readonly MatMulChoice[] = ['auto', 'native', 'xnnpack', 'stock'];

/** Options for {@link useBackend}. */
export interface UseBackendOptions {
  /** Whether a GPU profile is in use (`auto` then prefers webgpu). Default false. */
  gpuProfile?: boolean;
  /**
   * wasm's matrix products. Default: $TRADELAB_MATMUL, else `auto` (the native GEMM when it is
   * built, else XNNPACK with explicit transposes).
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
  /** e.g. "OpenBLAS sgemm (SkylakeX kernels, 1 thread)", "XNNPACK, transposes made explicit". */
  matmul: string;
  /** Why this backend: the choice and, for `auto`, the reason. */
  why: string;
}

/** Imports a module that may not be installed; undefined (with the reason) when it is not. */
async function tryImport(name: string): Promise<{ loaded: boolean; reason: string }> {
  try {
    await import(name);
    return { loaded: true, reason: '' };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      loaded: false,
      reason:
        code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
          ? `${name} is not installed`
          : `${name} failed to load: ${(error as Error).message}`,
    };
  }
}

/** Every backend and whether it can run here. */
export async function listBackends(): Promise<BackendStatus[]> {
  const webgpu = await tryImport('@tensorflow/tfjs-backend-webgpu');
  const node = await tryImport('@tensorflow/tfjs-node');
  const nativeGemm = nativeGemmStatus();
  return [
    {
      name: 'wasm',
      available: true,
      detail: nativeGemm.available
        ? `WebAssembly; matrix products on the native GEMM, ${describeNativeGemm(nativeGemm)}`
        : 'WebAssembly with XNNPACK; every matrix product on its fast path (explicit transposes)',
      nativeGemm,
    },
    {
      name: 'webgpu',
      available: false,
      detail: webgpu.loaded
        ? 'installed, but tradelab does not start it yet (the GPU path arrives with the PPO agent)'
        : `${webgpu.reason}: npm install @tensorflow/tfjs-backend-webgpu webgpu`,
    },
    {
      name: 'tensorflow',
      available: false,
      detail: node.loaded
        ? 'installed, but tradelab does not start it yet'
        : `${node.reason}: npm install @tensorflow/tfjs-node (its install downloads libtensorflow)`,
    },
    { name: 'cpu', available: true, detail: "tfjs's pure-JavaScript backend: slow, for reference" },
  ];
}

/** The matmul choice from the options, else $TRADELAB_MATMUL, else `auto`. */
function matmulChoice(options: UseBackendOptions): MatMulChoice {
  if (options.matmul !== undefined) return options.matmul;
  const env = process.env.TRADELAB_MATMUL;
  if (env === undefined || env === '') return 'auto';
  const choice = MATMUL_CHOICES.find((c) => c === env);
  if (choice === undefined)
    throw new TradelabError('INVALID_ARGUMENT', `TRADELAB_MATMUL=${env} is not a matmul path`, {
      hint: `set it to one of ${MATMUL_CHOICES.join(', ')}, or unset it`,
    });
  return choice;
}

/** Puts the chosen matmul kernels on the wasm backend and says which. */
function setUpWasmMatMul(options: UseBackendOptions): string {
  const choice = matmulChoice(options);
  const native = nativeGemmStatus();
  const path: WasmMatMulPath =
    choice === 'auto' ? (native.available ? 'native' : 'xnnpack') : choice;
  if (path === 'native' && !native.available)
    throw new TradelabError('INVALID_ARGUMENT', `native GEMM not available: ${native.reason}`, {
      hint: 'use matmul auto or xnnpack, or build the native GEMM as the message says',
    });
  if (path === 'native' && options.nativeThreads !== undefined)
    setNativeThreads(options.nativeThreads);
  setWasmMatMulPath(path);
  switch (path) {
    case 'native':
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
 * Starts the backend for `choice`: `auto` is webgpu on a GPU profile when it is available, else
 * wasm. A backend that is not available is an error naming the fallback. On wasm, `options.matmul`
 * picks how matrix products run.
 */
export async function useBackend(
  choice: BackendChoice,
  options: UseBackendOptions = {},
): Promise<ActiveBackend> {
  const statuses = await listBackends();
  let name: BackendName;
  let why: string;
  if (choice === 'auto') {
    const webgpu = statuses.find((s) => s.name === 'webgpu');
    if (options.gpuProfile === true && webgpu?.available === true) {
      name = 'webgpu';
      why = 'auto: a GPU profile and a WebGPU adapter';
    } else {
      name = 'wasm';
      why =
        options.gpuProfile === true
          ? `auto: no WebGPU here (${webgpu?.detail ?? 'unknown'}), so wasm`
          : 'auto: a CPU profile';
    }
  } else {
    name = choice;
    why = `--backend ${choice}`;
  }
  const status = statuses.find((s) => s.name === name);
  if (status?.available !== true)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `backend ${name} is not available here: ${status?.detail ?? ''}`,
      {
        hint: 'use --backend wasm (always available), or install what the message names',
      },
    );
  let matmul = 'JavaScript loops';
  if (name === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
    matmul = setUpWasmMatMul(options);
    installWasmTrainingKernels();
  }
  if (!(await tf.setBackend(name)))
    throw new TradelabError('INTERNAL', `TensorFlow.js could not start its ${name} backend`, {
      hint: 'run `tradelab backends` to see what is available',
    });
  await tf.ready();
  return { name, matmul, why };
}

import * as tf from '@tensorflow/tfjs';
import type { BackendChoice } from '../config/settings.js';
import { TradelabError } from '../errors/index.js';
import { installWasmMatMul } from './wasm-matmul.js';

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
}

/** The backend running now and how its matrix products are done. */
export interface ActiveBackend {
  name: BackendName;
  /** e.g. "XNNPACK, transposes made explicit" or "JavaScript loops". */
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
  return [
    {
      name: 'wasm',
      available: true,
      detail:
        'WebAssembly with XNNPACK; every matrix product on its fast path (explicit transposes)',
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

/**
 * Starts the backend for `choice`: `auto` is webgpu on a GPU profile when it is available, else
 * wasm. A backend that is not available is an error naming the fallback.
 */
export async function useBackend(
  choice: BackendChoice,
  options: { gpuProfile?: boolean } = {},
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
  if (name === 'wasm') {
    await import('@tensorflow/tfjs-backend-wasm');
    installWasmMatMul();
  }
  if (!(await tf.setBackend(name)))
    throw new TradelabError('INTERNAL', `TensorFlow.js could not start its ${name} backend`, {
      hint: 'run `tradelab backends` to see what is available',
    });
  await tf.ready();
  return {
    name,
    matmul: name === 'wasm' ? 'XNNPACK, transposes made explicit' : 'JavaScript loops',
    why,
  };
}

import {
  getKernel,
  registerKernel,
  unregisterKernel,
  type KernelConfig,
  type KernelFunc,
  type TensorInfo,
} from './tfjs.js';
import { TradelabError } from '../core/index.js';

/*
 * tfjs-backend-webgpu 4.22's AddN binds every input as a storage buffer in one shader. A device
 * gets WebGPU's default of 8 storage buffers per stage unless it asks for more (tfjs does not), so
 * summing more than 7 tensors (the gradient norm over a PPO network's 14 variables) makes an
 * invalid pipeline: Dawn prints validation errors and the sum is garbage. This AddN adds the
 * inputs in groups that fit and then adds the partial sums.
 */

/** What the AddN override needs of the webgpu backend. */
interface WebGpuBackendInternals {
  device: { limits: { maxStorageBuffersPerShaderStage: number } };
  disposeData(dataId: object): void;
}

let stockAddN: KernelConfig | undefined;

/** AddN in groups of at most (storage buffers per stage − 1) inputs: one buffer is the output. */
function groupedAddN(stock: KernelFunc): KernelFunc {
  const addN: KernelFunc = (args) => {
    const inputs = args.inputs as unknown as TensorInfo[];
    const backend = args.backend as unknown as WebGpuBackendInternals;
    const group = Math.max(2, backend.device.limits.maxStorageBuffersPerShaderStage - 1);
    if (inputs.length <= group) return stock(args);
    const partials: TensorInfo[] = [];
    for (let i = 0; i < inputs.length; i += group) {
      const slice = inputs.slice(i, i + group);
      partials.push(
        stock({ ...args, inputs: slice as unknown as typeof args.inputs }) as TensorInfo,
      );
    }
    const sum = addN({ ...args, inputs: partials as unknown as typeof args.inputs });
    for (const p of partials) backend.disposeData(p.dataId);
    return sum;
  };
  return addN;
}

/** Replaces the webgpu backend's AddN with one that respects the device's storage-buffer limit. */
export function installWebGpuKernels(): void {
  if (stockAddN !== undefined) return;
  const config = getKernel('AddN', 'webgpu') as KernelConfig | undefined;
  if (config === undefined)
    throw new TradelabError('BACKEND_UNAVAILABLE', 'the webgpu backend has no AddN kernel', {
      hint: 'check @tensorflow/tfjs-backend-webgpu matches @tensorflow/tfjs (same version)',
    });
  stockAddN = config;
  unregisterKernel('AddN', 'webgpu');
  registerKernel({ ...config, kernelFunc: groupedAddN(config.kernelFunc) });
}

/** Puts the webgpu backend's own AddN back. */
export function uninstallWebGpuKernels(): void {
  if (stockAddN === undefined) return;
  unregisterKernel('AddN', 'webgpu');
  registerKernel(stockAddN);
  stockAddN = undefined;
}

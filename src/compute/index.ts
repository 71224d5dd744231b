export {
  listBackends,
  chooseBackend,
  useBackend,
  type ActiveBackend,
  type BackendName,
  type BackendStatus,
  type MatMulChoice,
  type UseBackendOptions,
} from './backends.js';
export {
  describeNativeGemm,
  GemmParams,
  loadNativeGemm,
  loadSystemBlas,
  nativeGemmStatus,
  setNativeThreads,
  useNativeKernel,
  type GemmCall,
  type NativeGemmAddon,
  type NativeGemmStatus,
  type SystemBlasStatus,
} from './native-gemm.js';
export {
  describeGemmChoice,
  fastestKernel,
  readGemmChoice,
  writeGemmChoice,
  type GemmChoice,
} from './gemm-choice.js';
export { openblasCoretypeFor } from './openblas-coretype.js';
export {
  installWasmMatMul,
  matMulPathCounts,
  setWasmMatMulPath,
  uninstallWasmMatMul,
  wasmMatMulInstalled,
  wasmMatMulPath,
  type MatMulPathCounts,
  type WasmMatMulPath,
} from './wasm-matmul.js';
export {
  installWasmTrainingKernels,
  trainingKernelCounts,
  uninstallWasmTrainingKernels,
  wasmTrainingKernelsInstalled,
  type TrainingKernelCounts,
} from './wasm-training-kernels.js';
export { memoryReport, type MemoryReport } from './memory-report.js';
export {
  describeWebGpuAdapter,
  installWebGpuGlobals,
  missingWebGpuPackages,
  probeWebGpuAdapter,
  WEBGPU_PACKAGES,
  type ProbeWebGpuOptions,
  type WebGpuAdapterInfo,
  type WebGpuProbe,
} from './webgpu-adapter.js';
export { installWebGpuKernels, uninstallWebGpuKernels } from './webgpu-kernels.js';
export {
  adamStep,
  denseRelu,
  installNativeTrainingKernels,
  nativeTrainingKernelsActive,
  setNativeTrainingKernelsEnabled,
  sumOfSquares,
  type AdamConstants,
  type DenseReluOptions,
} from './native-training-kernels.js';
export { installNativeReluMlp, nativeReluMlpActive, reluMlp } from './native-relu-mlp.js';
export {
  firstTokenRows,
  installNativeTransformerKernels,
  layerNorm,
  multiHeadAttention,
  multiHeadCrossAttention,
  nativeTransformerKernelsActive,
  tokenize,
  type AttentionOptions,
} from './native-transformer-kernels.js';
export {
  causalConv1d,
  installNativeConvKernels,
  nativeConvActive,
  receptiveField,
  type CausalConvOptions,
} from './causal-conv.js';

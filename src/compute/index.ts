export {
  listBackends,
  useBackend,
  type ActiveBackend,
  type BackendName,
  type BackendStatus,
} from './backends.js';
export {
  installWasmMatMul,
  matMulPathCounts,
  uninstallWasmMatMul,
  wasmMatMulInstalled,
  type MatMulPathCounts,
} from './wasm-matmul.js';

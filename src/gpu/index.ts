export {
  BufferUsage,
  GpuDevice,
  openGpuDevice,
  type GpuAdapterSummary,
  type GpuCounts,
  type GpuFeature,
  type OpenGpuDeviceOptions,
} from './gpu-device.js';
export {
  PpoUpdateProgram,
  ppoParameterSlots,
  type AdamMoments,
  type DeviceRollout,
  type ParameterSlot,
  type PpoProgramConstants,
  type PpoProgramShape,
  type PpoTrainOptions,
  type PpoTrainResult,
  type RolloutArrays,
} from './ppo-update-program.js';
export { GpuPassTimer } from './gpu-timer.js';
export { startGpuCallMeter, type GpuCallCounts, type GpuCallMeter } from './call-meter.js';
export { profileDispatches, type KernelTime } from './kernel-profile.js';
export {
  TcnStepProgram,
  tcnParameterSlots,
  type TcnMicroBatch,
  type TcnProgramConstants,
  type TcnProgramShape,
  type TcnStepOutput,
} from './tcn-step-program.js';
export {
  dispatchOf,
  encodeDispatches,
  runDispatches,
  storageOf,
  uniformOf,
  type Dispatch,
} from './dispatch.js';
export {
  ENV_FLOATS,
  ENV_PARAM_WORDS,
  ENV_WORD_BLOCKS,
  ENV_WORDS,
  ENV_WORKGROUP,
  envFloatBlocks,
  tradingEnvKernel,
  type TradingEnvKernelShape,
} from './kernels/trading-env-step.js';
export { GAE_WORKGROUP, gaeKernel, gaeUniform } from './kernels/gae.js';
export {
  gemmKernel,
  gemmUniform,
  gemmWorkgroups,
  type GemmCall as GpuGemmCall,
  type GemmVariant,
} from './kernels/gemm.js';
export { minibatchLayout, type MinibatchLayout } from './kernels/ppo-loss.js';
export { MINIBATCH_STRIDE, type Kernel } from './pipeline-cache.js';
export { recordKernel, ROLLOUT_WORKGROUP, sampleKernel, sampleUniform } from './kernels/rollout.js';
export { evaluationHistoryKernel } from './kernels/evaluation-history.js';
export {
  rewardScalingKernels,
  scalingUniform,
  scalingWorkgroups,
  SCALING_STATS,
} from './kernels/reward-scaling.js';

export { Mlp, ownVariable, type HiddenActivation, type MlpConfig } from './mlp.js';
export { FtTransformer, ftTransformerSize, type FtTransformerConfig } from './ft-transformer.js';
export type { NetworkBody } from './network-body.js';
export { orthogonalMatrix } from './orthogonal.js';
export {
  resolveTcnConfig,
  Tcn,
  tcnSize,
  type ResolvedTcnConfig,
  type TcnApplyOptions,
  type TcnConfig,
  type TcnLayerRow,
  type TcnNorm,
  type TcnPooling,
  type TcnSize,
} from './tcn.js';
export {
  assignNamed,
  encodeTensors,
  firstNonFinite,
  readWeights,
  refuseNonFinite,
  sha256,
  weightsManifest,
  writeDirectoryAtomic,
  type WeightsFiles,
} from './weights-directory.js';
export {
  loadTcnModel,
  saveTcnModel,
  type LoadedTcnModel,
  type SaveTcnOptions,
  type TcnModelJson,
} from './tcn-file.js';
export { applyClippedGradients, ExactAdam, isExactAdam } from './adam.js';
export { WindowMlp, type WindowMlpConfig } from './window-mlp.js';
export {
  tcnForecast,
  TcnTrainer,
  type SequenceRegressor,
  type TcnBatch,
  type TcnStepResult,
  type TcnTrainerOptions,
} from './tcn-trainer.js';
export { GpuTcnTrainer } from './tcn-gpu-trainer.js';

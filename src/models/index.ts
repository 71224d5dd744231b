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

export { Mlp, ownVariable, type HiddenActivation, type MlpConfig } from './mlp.js';
export { FtTransformer, ftTransformerSize, type FtTransformerConfig } from './ft-transformer.js';
export type { NetworkBody } from './network-body.js';
export { orthogonalMatrix } from './orthogonal.js';

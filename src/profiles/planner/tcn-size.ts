/**
 * Sizes of tradelab's TCN (models/tcn.ts) for the planner: its parameters, and the float32
 * elements one training step keeps alive per chunk per bar, as measured on the trainer (the wasm
 * backend's heap high-water mark, `tradelab bench tcn` prints both beside each other).
 *
 * Without checkpointing, the forward pass keeps four tensors a block (each convolution's output,
 * the residual sum and its ReLU) and the backward pass about three more a block (tfjs keeps the
 * gradient of every op's output until it ends; the convolutions free theirs): ≈ 7 · layers ·
 * hidden. With checkpointing, the forward keeps one output a block, the backward one gradient a
 * block, and the block being recomputed all of its own: ≈ (2 · layers + 8) · hidden. Plus the
 * input chunk.
 */
export interface TcnShape {
  /** Features per bar. */
  inputs: number;
  hidden: number;
  layers: number;
  kernel: number;
  /** Bars per chunk. */
  chunkLen: number;
  checkpoint: boolean;
}

/** Parameters: the blocks (weight-normalized convolutions, a 1×1 residual where widths change) and the head. */
export function tcnParamCount({ inputs, hidden, layers, kernel }: TcnShape): number {
  const conv = (width: number): number => kernel * width * hidden + 2 * hidden;
  let params = 0;
  let width = inputs;
  for (let i = 0; i < layers; i++) {
    params += conv(width) + conv(hidden);
    if (width !== hidden) params += width * hidden + hidden;
    width = hidden;
  }
  return params + hidden * hidden + hidden + hidden + 1;
}

/** Float32 elements a training step keeps alive per chunk per bar (see the file header). */
export function tcnElementsPerBar({ inputs, hidden, layers, checkpoint }: TcnShape): number {
  return (checkpoint ? 2 * layers + 8 : 7 * layers + 2) * hidden + inputs;
}

/** Seed 003's TCN-12 with 512 channels on chunks of 512 bars of 4 features, checkpointed. */
export const SEED_TCN_SHAPE: TcnShape = {
  inputs: 4,
  hidden: 512,
  layers: 12,
  kernel: 3,
  chunkLen: 512,
  checkpoint: true,
};

/**
 * Sizes of tradelab's TCN (models/tcn.ts) for the planner: its parameters, and the float32
 * elements one training step holds per chunk per bar, fitted to what `tradelab bench tcn` measures
 * (tfjs's peak tensor bytes during a step; it prints the plan beside each measurement).
 *
 * Without checkpointing every block keeps its convolutions' outputs, the residual sum and its ReLU
 * for the backward pass, and tfjs keeps the gradient of every op's output until the backward pass
 * ends (the convolutions free theirs): ≈ 11 · layers · hidden, linear in the depth. With
 * checkpointing the forward pass keeps one output a block and the backward pass one gradient a
 * block, plus everything of the one block being recomputed: ≈ (2 · layers + 14) · hidden. Plus
 * the input chunk. Measured at 6 × 64 on the wasm backend: 4,219 and 1,664 elements a bar.
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
  return (checkpoint ? 2 * layers + 14 : 11 * layers) * hidden + inputs;
}

/**
 * Bytes a training step holds per parameter besides the weights and Adam's moments, above the
 * gradients the planner counts on their own: without checkpointing every block's weight-normalized
 * kernel and its gradient live through the backward pass, then the clipped gradients and Adam's new
 * state; with it one block's at a time. Measured by `bench tcn` at 12 × 512 (18.4 M parameters):
 * 40 and 12 bytes a parameter in all, gradients included.
 */
export function tcnTransientBytesPerParam(checkpoint: boolean): number {
  return checkpoint ? 8 : 36;
}

/**
 * What one training step of `chunks` chunks holds above the weights and Adam's moments: the
 * activations, the gradients and the step's transients (what `bench tcn` measures).
 */
export function tcnStepBytes(shape: TcnShape, chunks: number): number {
  const params = tcnParamCount(shape);
  return (
    chunks * shape.chunkLen * tcnElementsPerBar(shape) * 4 +
    params * (4 + tcnTransientBytesPerParam(shape.checkpoint))
  );
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

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

/** What a TCN's parameter count depends on; unset fields are the model's defaults. */
export interface TcnParamShape {
  inputs: number;
  hidden: number;
  layers: number;
  kernel: number;
  /** `weight`: each convolution has a gain per channel beside its weight and bias (default). */
  norm?: 'weight' | 'none';
  /** Units of the head's hidden dense layer (default `hidden`). */
  headHidden?: number;
  /** Outputs of the head (default 1). */
  outputs?: number;
}

/** One layer's parameters: a block's convolutions and 1×1 residual, then the head's two layers. */
export interface TcnParamRow {
  /** The block (0 first), or `head`. */
  block: number | 'head';
  part: 'conv1' | 'conv2' | 'residual' | 'dense' | 'out';
  params: number;
}

/**
 * The parameters of each layer of a TCN: the one count the model's summary (`tcnSize`) and the
 * planner (`tcnParamCount`) share. Blocks of two causal convolutions (weight-normalized by
 * default), a 1×1 residual where the width changes, then a dense head.
 */
export function tcnParamRows(shape: TcnParamShape): TcnParamRow[] {
  const { inputs, hidden, layers, kernel } = shape;
  const gain = (shape.norm ?? 'weight') === 'weight' ? hidden : 0;
  const headHidden = shape.headHidden ?? hidden;
  const outputs = shape.outputs ?? 1;
  const conv = (width: number): number => kernel * width * hidden + hidden + gain;
  const rows: TcnParamRow[] = [];
  let width = inputs;
  for (let block = 0; block < layers; block++) {
    rows.push({ block, part: 'conv1', params: conv(width) });
    rows.push({ block, part: 'conv2', params: conv(hidden) });
    if (width !== hidden) rows.push({ block, part: 'residual', params: width * hidden + hidden });
    width = hidden;
  }
  rows.push({ block: 'head', part: 'dense', params: hidden * headHidden + headHidden });
  rows.push({ block: 'head', part: 'out', params: headHidden * outputs + outputs });
  return rows;
}

/** Parameters of the whole TCN (tcnParamRows summed). */
export function tcnParamCount(shape: TcnParamShape): number {
  return tcnParamRows(shape).reduce((sum, row) => sum + row.params, 0);
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

/**
 * Float32 elements the GPU engine's TCN step (src/gpu/tcn-step-program.ts) holds per chunk per
 * bar, counted from its buffers: every block's output; its two convolutions' outputs, or with
 * checkpointing one shared pair that each block's backward recomputes into; the first block's
 * residual convolution where the width changes; six buffers of the backward that every block uses
 * in turn (the output's gradient twice, the sum's, dz2, dh1, dz1); and the chunk itself.
 */
export function tcnEngineElementsPerBar({ inputs, hidden, layers, checkpoint }: TcnShape): number {
  const convOutputs = checkpoint ? 2 : 2 * layers;
  const residual = inputs === hidden ? 0 : 1;
  return (layers + convOutputs + residual + 6) * hidden + inputs;
}

/**
 * Float32 elements the engine's step holds per chunk: the target, the forecast and its gradient,
 * 64 slots of forecasts for the step's micro-batches, the encoding and the head's hidden layer
 * (as wide as the TCN in the planner's model) and their gradients.
 */
export function tcnEngineElementsPerChunk({ hidden }: TcnShape): number {
  return 3 + 64 + 4 * hidden;
}

/**
 * Bytes per parameter the engine's step holds besides the weights, their gradients and Adam's
 * moments: the micro-batches' gradient sums (two, ping-pong), the weight-normalized kernels and
 * their gradients.
 */
export const TCN_ENGINE_TRANSIENT_BYTES_PER_PARAM = 16;

/** What one engine step of `chunks` chunks holds above the weights and Adam's moments. */
export function tcnEngineStepBytes(shape: TcnShape, chunks: number): number {
  return (
    chunks *
      (shape.chunkLen * tcnEngineElementsPerBar(shape) + tcnEngineElementsPerChunk(shape)) *
      4 +
    tcnParamCount(shape) * (4 + TCN_ENGINE_TRANSIENT_BYTES_PER_PARAM)
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

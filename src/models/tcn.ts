import * as tf from '../compute/tfjs.js';
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';
import { causalConv1d, receptiveField } from '../compute/index.js';
import { tcnParamRows } from '../profiles/index.js';
import { ownVariable } from './mlp.js';

/*
 * A temporal convolutional network (Bai, Kolter & Koltun 2018), seed 003's volatility model: residual
 * blocks of two dilated causal convolutions (dilation 2^i in block i), each followed by ReLU and
 * dropout, with a 1×1 convolution on the residual where the width changes; weight normalization
 * (w = g · v / ‖v‖ per output channel, Salimans & Kingma 2016) or none. A chunk encoder turns the
 * chunk's last hidden step (or the mean over its steps) into one vector, and a small head (dense,
 * ReLU, dense) maps it to the outputs. Every convolution is causal, so the encoding of a chunk
 * depends only on its bars, and step t of it only on bars ≤ t.
 *
 * Gradient checkpointing: with `checkpoint`, each block is one custom-gradient op whose forward
 * pass keeps only its input and output; its backward pass runs the block again (same dropout
 * masks: they are seeded) and differentiates that. Gradients are the same, activations memory
 * falls from every block's intermediates to one tensor per block, and a step costs about one more
 * forward pass.
 */

/** Normalization of the convolutions' weights. */
export type TcnNorm = 'weight' | 'none';
/** How a chunk's hidden steps become one vector. */
export type TcnPooling = 'last' | 'mean';

/** Shape of a {@link Tcn}. */
export interface TcnConfig {
  /** Features per bar. */
  inputs: number;
  /** Channels of every block. */
  hidden: number;
  /** Residual blocks; block i has dilation 2^i. */
  layers: number;
  /** Taps of every convolution. Default 3. */
  kernel?: number;
  /** Dropout after each convolution while training. Default 0.1. */
  dropout?: number;
  /** Default 'weight'. */
  norm?: TcnNorm;
  /** Default 'last'. */
  pooling?: TcnPooling;
  /** Units of the head's hidden layer. Default `hidden`. */
  headHidden?: number;
  /** Outputs of the head. Default 1. */
  outputs?: number;
  /** Seed of the initialization. Default 0. */
  seed?: number;
}

/** A config with every default filled in. */
export type ResolvedTcnConfig = Required<TcnConfig>;

/** One row of the layer table. */
export interface TcnLayerRow {
  name: string;
  /** e.g. "causal conv k=3 d=4". */
  kind: string;
  /** Output shape per chunk, `time` standing for the chunk length: "[time, 64]", "[1]". */
  output: string;
  params: number;
}

/** The model's size without building it. */
export interface TcnSize {
  layers: TcnLayerRow[];
  params: number;
  /** Bars the last step sees. */
  receptiveField: number;
}

/** Options of a forward pass. */
export interface TcnApplyOptions {
  /** Dropout on. Default false. */
  training?: boolean;
  /** Seed of this pass's dropout masks (vary it per step). Default 0. */
  seed?: number;
  /** Recompute each block in the backward pass instead of keeping its activations. Default false. */
  checkpoint?: boolean;
}

/** Fills in the defaults and checks the shape. */
export function resolveTcnConfig(config: TcnConfig): ResolvedTcnConfig {
  const resolved: ResolvedTcnConfig = {
    kernel: 3,
    dropout: 0.1,
    norm: 'weight',
    pooling: 'last',
    headHidden: config.hidden,
    outputs: 1,
    seed: 0,
    ...config,
  };
  for (const key of ['inputs', 'hidden', 'layers', 'kernel', 'headHidden', 'outputs'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 1)
      throw new TradelabError('INVALID_ARGUMENT', `TCN ${key} ${value} must be an integer ≥ 1`);
  }
  if (resolved.layers > 24)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `TCN layers ${resolved.layers} is too many: block i has dilation 2^i, so 24 blocks already see 2^25 bars`,
    );
  if (!(resolved.dropout >= 0 && resolved.dropout < 1))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `TCN dropout ${resolved.dropout} must be in [0, 1)`,
    );
  return resolved;
}

/** The layer table, parameter count, receptive field and activation sizes of a TCN. */
export function tcnSize(config: TcnConfig): TcnSize {
  const c = resolveTcnConfig(config);
  // The counts are the planner's (profiles/tcn-size.ts): one formula for the summary and the plan.
  const rows: TcnLayerRow[] = [];
  for (const row of tcnParamRows(c)) {
    if (row.block === 'head' && row.part === 'dense')
      rows.push({ name: 'encoder', kind: `${c.pooling} step`, output: `[${c.hidden}]`, params: 0 });
    rows.push({
      name: row.block === 'head' ? `head/${row.part}` : `block${row.block}/${row.part}`,
      kind:
        row.block === 'head'
          ? row.part === 'dense'
            ? 'dense + ReLU'
            : 'dense'
          : row.part === 'residual'
            ? 'conv 1×1'
            : `causal conv k=${c.kernel} d=${2 ** row.block}`,
      output:
        row.block !== 'head'
          ? `[time, ${c.hidden}]`
          : row.part === 'dense'
            ? `[${c.headHidden}]`
            : `[${c.outputs}]`,
      params: row.params,
    });
  }
  const dilations = Array.from({ length: c.layers }, (_, i) => [2 ** i, 2 ** i]).flat();
  return {
    layers: rows,
    params: rows.reduce((sum, row) => sum + row.params, 0),
    receptiveField: receptiveField(c.kernel, dilations),
  };
}

/** One convolution's variables: weight-normalized (v, g) or plain (v), and the bias. */
interface Conv {
  v: tf.Variable;
  g?: tf.Variable;
  b: tf.Variable;
}

interface Block {
  conv1: Conv;
  conv2: Conv;
  residual?: { w: tf.Variable; b: tf.Variable };
  dilation: number;
}

/** A TCN: blocks, chunk encoder and head, trainable. Dispose it when done. */
export class Tcn {
  readonly config: ResolvedTcnConfig;
  private readonly blocks: Block[] = [];
  private readonly head: { w1: tf.Variable; b1: tf.Variable; w2: tf.Variable; b2: tf.Variable };

  constructor(config: TcnConfig, name: string) {
    this.config = resolveTcnConfig(config);
    const c = this.config;
    const rng = new Rng(c.seed, 17);
    // He-normal initialization (fan-in k·inputs) for the ReLU convolutions; with weight norm g
    // starts at ‖v‖, so the first pass computes exactly w = v.
    const normal = (shape: number[], std: number): tf.Tensor =>
      tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * std),
        shape,
      );
    const conv = (prefix: string, inWidth: number): Conv => {
      const std = Math.sqrt(2 / (c.kernel * inWidth));
      const v = ownVariable(normal([c.kernel, inWidth, c.hidden], std), `${name}/${prefix}/v`);
      const b = ownVariable(tf.zeros([c.hidden]), `${name}/${prefix}/b`);
      if (c.norm === 'none') return { v, b };
      const g = ownVariable(
        tf.tidy(() => channelNorm(v)),
        `${name}/${prefix}/g`,
      );
      return { v, g, b };
    };
    let width = c.inputs;
    for (let i = 0; i < c.layers; i++) {
      const block: Block = {
        conv1: conv(`block${i}/conv1`, width),
        conv2: conv(`block${i}/conv2`, c.hidden),
        dilation: 2 ** i,
      };
      if (width !== c.hidden)
        block.residual = {
          w: ownVariable(
            normal([1, width, c.hidden], Math.sqrt(1 / width)),
            `${name}/block${i}/residual/w`,
          ),
          b: ownVariable(tf.zeros([c.hidden]), `${name}/block${i}/residual/b`),
        };
      this.blocks.push(block);
      width = c.hidden;
    }
    this.head = {
      w1: ownVariable(normal([c.hidden, c.headHidden], Math.sqrt(2 / c.hidden)), `${name}/head/w1`),
      b1: ownVariable(tf.zeros([c.headHidden]), `${name}/head/b1`),
      // Small: the first forecasts sit near the (standardized) target's mean, not far off it.
      w2: ownVariable(
        normal([c.headHidden, c.outputs], 0.01 / Math.sqrt(c.headHidden)),
        `${name}/head/w2`,
      ),
      b2: ownVariable(tf.zeros([c.outputs]), `${name}/head/b2`),
    };
  }

  /** Every trainable variable. */
  get variables(): tf.Variable[] {
    return Object.values(this.namedVariables());
  }

  /** The encoder's variables (the blocks): what a DRL policy reuses. */
  get encoderVariables(): tf.Variable[] {
    return Object.entries(this.namedVariables())
      .filter(([key]) => key.startsWith('block'))
      .map(([, v]) => v);
  }

  /** Variables by a stable name: `block0/conv1/v`, `block0/conv1/g`, …, `head/w1`, …. */
  namedVariables(): Record<string, tf.Variable> {
    const named: Record<string, tf.Variable> = {};
    this.blocks.forEach((block, i) => {
      for (const key of ['conv1', 'conv2'] as const) {
        const conv = block[key];
        named[`block${i}/${key}/v`] = conv.v;
        if (conv.g !== undefined) named[`block${i}/${key}/g`] = conv.g;
        named[`block${i}/${key}/b`] = conv.b;
      }
      if (block.residual !== undefined) {
        named[`block${i}/residual/w`] = block.residual.w;
        named[`block${i}/residual/b`] = block.residual.b;
      }
    });
    named['head/w1'] = this.head.w1;
    named['head/b1'] = this.head.b1;
    named['head/w2'] = this.head.w2;
    named['head/b2'] = this.head.b2;
    return named;
  }

  /** Every step's hidden state: `x` [batch, time, inputs] → [batch, time, hidden]. */
  hiddenSequence(x: tf.Tensor3D, options: TcnApplyOptions = {}): tf.Tensor3D {
    if (x.shape[2] !== this.config.inputs)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `TCN input has ${x.shape[2]} features per bar; the model was built for ${this.config.inputs}`,
      );
    const training = options.training === true && this.config.dropout > 0;
    const seed = options.seed ?? 0;
    let h = x;
    this.blocks.forEach((block, i) => {
      const weights = blockWeights(block);
      const run = (input: tf.Tensor3D, w: tf.Tensor[]): tf.Tensor3D =>
        blockForward(
          input,
          w,
          block,
          this.config,
          training ? seed * 1009 + i * 2 : undefined,
          i === 0,
        );
      h = options.checkpoint === true ? checkpointed(run, h, weights) : run(h, weights);
    });
    return h;
  }

  /** One vector per chunk: `x` [batch, time, inputs] → [batch, hidden]. */
  encode(x: tf.Tensor3D, options: TcnApplyOptions = {}): tf.Tensor2D {
    return tf.tidy(() => {
      const h = this.hiddenSequence(x, options);
      const [batch, time, hidden] = h.shape;
      if (this.config.pooling === 'mean') return tf.mean<tf.Tensor2D>(h, 1);
      return tf.reshape<tf.Rank.R2>(tf.slice(h, [0, time - 1, 0], [batch, 1, hidden]), [
        batch,
        hidden,
      ]);
    });
  }

  /** The head's output per chunk: `x` [batch, time, inputs] → [batch, outputs]. */
  apply(x: tf.Tensor3D, options: TcnApplyOptions = {}): tf.Tensor2D {
    return tf.tidy(() => {
      const z = this.encode(x, options);
      const hidden = tf.relu(tf.fused.matMul({ a: z, b: this.head.w1, bias: this.head.b1 }));
      return tf.fused.matMul({
        a: hidden,
        b: this.head.w2,
        bias: this.head.b2,
      }) as tf.Tensor2D;
    });
  }

  dispose(): void {
    for (const v of this.variables) v.dispose();
  }
}

/** ‖v‖ over taps and inputs, per output channel: [k, in, out] → [out]. */
function channelNorm(v: tf.Tensor): tf.Tensor1D {
  const [taps, inputs, outputs] = v.shape as [number, number, number];
  return tf.sqrt(tf.sum(tf.square(tf.reshape(v, [taps * inputs, outputs])), 0)) as tf.Tensor1D;
}

/** A block's tensors in a fixed order: conv1 (v, g?, b), conv2 (v, g?, b), residual (w, b)?. */
function blockWeights(block: Block): tf.Tensor[] {
  const list: tf.Tensor[] = [];
  for (const conv of [block.conv1, block.conv2]) {
    list.push(conv.v);
    if (conv.g !== undefined) list.push(conv.g);
    list.push(conv.b);
  }
  if (block.residual !== undefined) list.push(block.residual.w, block.residual.b);
  return list;
}

/** One residual block on the tensors of {@link blockWeights}; dropout when `dropoutSeed` is set. */
function blockForward(
  x: tf.Tensor3D,
  weights: readonly tf.Tensor[],
  block: Block,
  config: ResolvedTcnConfig,
  dropoutSeed: number | undefined,
  firstBlock: boolean,
): tf.Tensor3D {
  return tf.tidy(() => {
    let next = 0;
    const take = (): tf.Tensor => weights[next++] as tf.Tensor;
    const conv = (
      input: tf.Tensor3D,
      spec: Conv,
      seedOffset: number,
      inputGradient: boolean,
    ): tf.Tensor3D => {
      const v = take();
      let kernel = v;
      if (spec.g !== undefined) {
        const g = take();
        kernel = tf.mul(v, tf.div(g, channelNorm(v)));
      }
      const b = take() as tf.Tensor1D;
      return causalConv1d(input, kernel as tf.Tensor3D, b, block.dilation, {
        relu: true,
        inputGradient,
        ...(dropoutSeed === undefined
          ? {}
          : { dropout: config.dropout, dropoutSeed: dropoutSeed + seedOffset }),
      });
    };
    // The first block's input is data: no gradient flows into it.
    const h1 = conv(x, block.conv1, 0, !firstBlock);
    const h2 = conv(h1, block.conv2, 1, true);
    let residual: tf.Tensor = x;
    if (block.residual !== undefined) {
      const w = take() as tf.Tensor3D;
      const b = take() as tf.Tensor1D;
      residual = causalConv1d(x, w, b, 1, { inputGradient: !firstBlock });
    }
    return tf.relu(tf.add(h2, residual)) as tf.Tensor3D;
  });
}

/**
 * `run(x, weights)` as one op that keeps no intermediates: its gradient runs it again and
 * differentiates that (gradient checkpointing).
 */
function checkpointed(
  run: (x: tf.Tensor3D, weights: tf.Tensor[]) => tf.Tensor3D,
  x: tf.Tensor3D,
  weights: tf.Tensor[],
): tf.Tensor3D {
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const inputs = args.slice(0, -1) as tf.Tensor[];
    const save = args[args.length - 1] as tf.GradSaveFunc;
    save(inputs);
    const value = run(inputs[0] as tf.Tensor3D, inputs.slice(1));
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => recomputedGradients(run, saved, dy),
    };
  });
  return op(x, ...weights);
}

/** The part of tfjs's engine state that nested gradients touch (tfjs-core 4.x, not public). */
interface EngineTapeState {
  state: { activeTape: unknown; gradientDepth: number };
}

/**
 * The gradients of `run` at `saved` (input, then weights) for the output gradient `dy`, computed
 * inside another gradient's backward pass. tfjs's `grads` there would take the outer pass's tape
 * for its own and, at depth 0, free the tensors it saved and drop it; so the recompute records on
 * a tape of its own (freed when it is done, which is the point of checkpointing) and the outer
 * tape is put back.
 */
function recomputedGradients(
  run: (x: tf.Tensor3D, weights: tf.Tensor[]) => tf.Tensor3D,
  saved: tf.Tensor[],
  dy: tf.Tensor,
): tf.Tensor[] {
  const engine = tf.engine() as unknown as EngineTapeState;
  const outerTape = engine.state.activeTape;
  const outerDepth = engine.state.gradientDepth;
  engine.state.activeTape = null;
  engine.state.gradientDepth = 0;
  try {
    return tf.grads((...again: tf.Tensor[]) => run(again[0] as tf.Tensor3D, again.slice(1)))(
      saved,
      dy,
    );
  } finally {
    engine.state.activeTape = outerTape;
    engine.state.gradientDepth = outerDepth;
  }
}

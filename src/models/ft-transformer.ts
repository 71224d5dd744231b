import * as tf from '../compute/tfjs.js';
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';
import {
  denseRelu,
  firstTokenRows,
  layerNorm,
  multiHeadAttention,
  multiHeadCrossAttention,
  tokenize,
} from '../compute/index.js';
import { ownVariable } from './mlp.js';
import type { NetworkBody } from './network-body.js';
import { orthogonalMatrix } from './orthogonal.js';

/*
 * The FT-Transformer (Gorishniy et al. 2021, "Revisiting Deep Learning Models for Tabular Data"),
 * seed 000's "advanced architecture" for the policy. Every scalar of the observation becomes a
 * token (its own learned direction times the value, plus its own bias); a learned [CLS] token is
 * prepended; pre-LayerNorm transformer blocks let every token attend to every other, so the
 * network can learn interactions between an asset's indicators, across assets and with the
 * portfolio state; the output is read from [CLS] through LayerNorm → ReLU → linear.
 *
 * Each layer is one op of compute/native-transformer-kernels.ts: on the wasm backend with the
 * native GEMM a fused native kernel each way (attention FlashAttention-style, without the
 * [batch·heads, T, T] scores; LayerNorm, the tokenizer and the [CLS] read-out in one pass each),
 * elsewhere the tfjs ops. The residual stream is [batch·tokens, d] rows throughout, so no op
 * reshapes or transposes it, and since the output reads only [CLS], the last block computes
 * attention, residual and feed-forward for the [CLS] rows alone (the other tokens' keys and
 * values still feed it). Attention's cost grows with the square of the observation size: keep
 * observations to a few hundred values.
 */

/** Shape of an {@link FtTransformer}. */
export interface FtTransformerConfig {
  /** Values per observation: one token each. */
  inputs: number;
  outputs: number;
  /** Width of every token. Default 32. */
  dToken?: number;
  /** Transformer blocks. Default 2. */
  blocks?: number;
  /** Attention heads; must divide dToken. Default 4. */
  heads?: number;
  /** Hidden width of each block's feed-forward layer, as a multiple of dToken. Default 2. */
  ffnMultiplier?: number;
  /** Orthogonal-init gain of the output layer. Default 1. */
  outputGain?: number;
  /** Seed of the initialization. Default 0. */
  seed?: number;
}

/** A LayerNorm's gain and bias. */
type Norm = [tf.Tensor1D, tf.Tensor1D];

interface Block {
  norm1: Norm;
  wq: tf.Variable;
  wk: tf.Variable;
  wv: tf.Variable;
  wo: tf.Variable;
  bo: tf.Variable;
  norm2: Norm;
  w1: tf.Variable;
  b1: tf.Variable;
  w2: tf.Variable;
  b2: tf.Variable;
}

/** A feature-tokenizer transformer, trainable. Dispose it when done. */
export class FtTransformer implements NetworkBody {
  readonly config: Readonly<Required<FtTransformerConfig>>;
  private readonly named: Record<string, tf.Variable> = {};
  private readonly tokenWeights: tf.Tensor2D;
  private readonly tokenBiases: tf.Tensor2D;
  private readonly cls: tf.Tensor2D;
  private readonly blockList: Block[] = [];
  private readonly headNorm: Norm;
  private readonly headWeights: tf.Variable;
  private readonly headBias: tf.Variable;

  constructor(config: FtTransformerConfig, name: string) {
    const c: Required<FtTransformerConfig> = {
      dToken: 32,
      blocks: 2,
      heads: 4,
      ffnMultiplier: 2,
      outputGain: 1,
      seed: 0,
      ...config,
    };
    checkConfig(c);
    this.config = c;
    const d = c.dToken;
    const hidden = Math.round(d * c.ffnMultiplier);
    const rng = new Rng(c.seed, 0xf7);
    let layer = 0;
    const add = (key: string, initial: tf.Tensor): tf.Variable => {
      const v = ownVariable(initial, `${name}/${key}`);
      this.named[key] = v;
      return v;
    };
    const normal = (rows: number, cols: number, scale: number): tf.Tensor2D =>
      tf.tensor2d(
        Float32Array.from({ length: rows * cols }, () => rng.normal() * scale),
        [rows, cols],
      );
    const orthogonal = (rows: number, cols: number, gain: number): tf.Tensor2D =>
      tf.tensor2d(orthogonalMatrix(rows, cols, gain, c.seed * 1000 + layer++), [rows, cols]);
    const norm = (key: string): Norm => [
      add(`${key}/gain`, tf.ones([d])) as tf.Tensor1D,
      add(`${key}/bias`, tf.zeros([d])) as tf.Tensor1D,
    ];
    // Token directions of unit expected norm, as the paper's uniform(±1/√d) init.
    this.tokenWeights = add('tok_w', normal(c.inputs, d, 1 / Math.sqrt(d))) as tf.Tensor2D;
    this.tokenBiases = add('tok_b', normal(c.inputs, d, 1 / Math.sqrt(d))) as tf.Tensor2D;
    this.cls = add('cls', normal(1, d, 1 / Math.sqrt(d))) as tf.Tensor2D;
    for (let b = 0; b < c.blocks; b++) {
      const p = `block${b}`;
      this.blockList.push({
        norm1: norm(`${p}/norm1`),
        wq: add(`${p}/wq`, orthogonal(d, d, 1)),
        wk: add(`${p}/wk`, orthogonal(d, d, 1)),
        wv: add(`${p}/wv`, orthogonal(d, d, 1)),
        wo: add(`${p}/wo`, orthogonal(d, d, 1)),
        bo: add(`${p}/bo`, tf.zeros([d])),
        norm2: norm(`${p}/norm2`),
        w1: add(`${p}/w1`, orthogonal(d, hidden, Math.SQRT2)),
        b1: add(`${p}/b1`, tf.zeros([hidden])),
        w2: add(`${p}/w2`, orthogonal(hidden, d, 1)),
        b2: add(`${p}/b2`, tf.zeros([d])),
      });
    }
    this.headNorm = norm('head/norm');
    this.headWeights = add('head/w', orthogonal(d, c.outputs, c.outputGain));
    this.headBias = add('head/b', tf.zeros([c.outputs]));
  }

  get variables(): tf.Variable[] {
    return Object.values(this.named);
  }

  namedVariables(): Record<string, tf.Variable> {
    return { ...this.named };
  }

  apply(x: tf.Tensor2D): tf.Tensor2D {
    const { inputs, heads } = this.config;
    const tokens = inputs + 1;
    // [batch·tokens, d]: every sample's rows, [CLS] first.
    let h = tokenize(x, this.tokenWeights, this.tokenBiases, this.cls);
    this.blockList.forEach((block, index) => {
      // The output reads only [CLS]: in the last block only [CLS] queries, and the rest of the
      // block (residual, feed-forward) runs on [CLS] rows alone.
      const last = index === this.blockList.length - 1;
      const a = layerNorm(h, ...block.norm1);
      let mixed: tf.Tensor2D;
      if (last) {
        // Keys and values of every token, the query of [CLS] alone.
        const kv = tf.matMul<tf.Tensor2D>(a, tf.concat([block.wk, block.wv], 1));
        const q = tf.matMul<tf.Tensor2D>(firstTokenRows(a, tokens), block.wq);
        mixed = multiHeadCrossAttention(q, kv, { tokens, heads });
        h = firstTokenRows(h, tokens);
      } else {
        // One product for q, k and v: three of the GEMM's narrowest products made one.
        const qkv = tf.matMul<tf.Tensor2D>(a, tf.concat([block.wq, block.wk, block.wv], 1));
        mixed = multiHeadAttention(qkv, { tokens, heads });
      }
      h = tf.add(h, tf.fused.matMul({ a: mixed, b: block.wo, bias: block.bo }));
      const f = layerNorm(h, ...block.norm2);
      const inner = denseRelu(f, block.w1 as tf.Tensor2D, block.b1 as tf.Tensor1D);
      h = tf.add(h, tf.fused.matMul({ a: inner, b: block.w2, bias: block.b2 }));
    });
    const head = tf.relu(layerNorm(h, ...this.headNorm));
    return tf.fused.matMul({ a: head, b: this.headWeights, bias: this.headBias }) as tf.Tensor2D;
  }

  dispose(): void {
    for (const v of this.variables) v.dispose();
  }
}

function checkConfig(c: Required<FtTransformerConfig>): void {
  const positive = (field: keyof FtTransformerConfig, value: number): void => {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `ft_transformer: ${field} must be a whole number ≥ 1, got ${value}`,
        { hint: `e.g. ${field}: ${field === 'dToken' ? 32 : field === 'heads' ? 4 : 2}` },
      );
  };
  positive('inputs', c.inputs);
  positive('outputs', c.outputs);
  positive('dToken', c.dToken);
  positive('blocks', c.blocks);
  positive('heads', c.heads);
  if (c.dToken % c.heads !== 0) {
    const near = Math.max(c.heads, Math.round(c.dToken / c.heads) * c.heads);
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `ft_transformer: heads ${c.heads} does not divide dToken ${c.dToken}`,
      { hint: `use dToken ${near}, or a heads count that divides ${c.dToken}` },
    );
  }
  if (!(c.ffnMultiplier > 0))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `ft_transformer: ffnMultiplier must be > 0, got ${c.ffnMultiplier}`,
      { hint: 'e.g. ffnMultiplier: 2' },
    );
}

/**
 * Parameters and the elements one training sample keeps for backpropagation (with their
 * gradients, ×2): per block the token-wide tensors (norms, q, k, v, the attention output, the
 * feed-forward's) and the heads' T × T scores and weights, T = inputs + 1. With `fusedAttention`
 * (the native kernels: wasm on the native GEMM) the scores are never held, only each query row's
 * two softmax statistics. The planner sizes an FT-Transformer policy with it.
 */
export function ftTransformerSize(
  config: FtTransformerConfig,
  options: { fusedAttention?: boolean } = {},
): {
  paramCount: number;
  activationsPerSample: number;
} {
  const d = config.dToken ?? 32;
  const blocks = config.blocks ?? 2;
  const heads = config.heads ?? 4;
  const hidden = Math.round(d * (config.ffnMultiplier ?? 2));
  const { inputs, outputs } = config;
  const perBlock = 4 * d * d + d + d * hidden + hidden + hidden * d + d + 4 * d;
  const paramCount = 2 * inputs * d + d + blocks * perBlock + 2 * d + d * outputs + outputs;
  const tokens = inputs + 1;
  const attention =
    options.fusedAttention === true ? 2 * heads * tokens : 2 * heads * tokens * tokens;
  const perBlockActivations = tokens * (9 * d + 2 * hidden) + attention;
  const activationsPerSample =
    2 * (2 * inputs * d + tokens * d + blocks * perBlockActivations + 3 * d + outputs) + inputs;
  return { paramCount, activationsPerSample };
}

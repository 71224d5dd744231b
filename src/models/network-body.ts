import type * as tf from '../compute/tfjs.js';

/*
 * What PPO needs of a network: a batch of observations in, a batch of outputs out, its trainable
 * variables under stable names (model files store them by name), and release. The MLP and the
 * FT-Transformer both are one.
 */

/** A trainable network mapping [batch, inputs] to [batch, outputs]. Dispose it when done. */
export interface NetworkBody {
  /** The output for a batch `x` [batch, inputs] → [batch, outputs] (no output activation). */
  apply(x: tf.Tensor2D): tf.Tensor2D;
  /** Every trainable variable. */
  readonly variables: tf.Variable[];
  /**
   * The variables by a name that is stable across processes and versions (model files key the
   * weights by it), e.g. `w0`, `b0` for the MLP's first layer.
   */
  namedVariables(): Record<string, tf.Variable>;
  dispose(): void;
}

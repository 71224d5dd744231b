import * as tf from '../compute/tfjs.js';
import { Mlp } from './mlp.js';
import type { SequenceRegressor } from './tcn-trainer.js';
import type { TcnApplyOptions } from './tcn.js';

/*
 * The forecasting sets' other model (seed 004's sets are not all TCNs): an MLP on the last `window`
 * bars of a chunk, flattened. It reads the chunk's end only, so it is causal as the TCN is.
 */

/** Shape of a {@link WindowMlp}. */
export interface WindowMlpConfig {
  /** Features per bar. */
  inputs: number;
  /** Bars read from the chunk's end. */
  window: number;
  hidden: readonly number[];
  seed?: number;
}

/** An MLP over the last bars of each chunk. Dispose it when done. */
export class WindowMlp implements SequenceRegressor {
  private readonly mlp: Mlp;

  constructor(
    readonly config: WindowMlpConfig,
    name: string,
  ) {
    this.mlp = new Mlp(
      {
        inputs: config.inputs * config.window,
        hidden: config.hidden,
        outputs: 1,
        outputGain: 0.01,
        seed: config.seed ?? 0,
      },
      name,
    );
  }

  get variables(): tf.Variable[] {
    return this.mlp.variables;
  }

  /** One forecast per chunk: x [batch, time ≥ window, inputs] → [batch, 1]. */
  apply(x: tf.Tensor3D, _options?: TcnApplyOptions): tf.Tensor2D {
    const [batch, time, inputs] = x.shape;
    const window = Math.min(this.config.window, time);
    return tf.tidy(() => {
      const last = tf.slice(x, [0, time - window, 0], [batch, window, inputs]);
      return this.mlp.apply(tf.reshape<tf.Rank.R2>(last, [batch, window * inputs]));
    });
  }

  dispose(): void {
    this.mlp.dispose();
  }
}

import * as tf from '../compute/tfjs.js';
import { denseRelu, nativeReluMlpActive, reluMlp } from '../compute/index.js';
import type { NetworkBody } from './network-body.js';
import { orthogonalMatrix } from './orthogonal.js';

/*
 * A multi-layer perceptron on TensorFlow.js variables: the actor's and the critic's body. On the
 * native GEMM a ReLU network is one kernel forward and one backward (reluMlp); elsewhere hidden
 * layers are one fused matmul + bias (+ ReLU) kernel each, in training too (denseRelu: tfjs splits
 * its fused kernel while recording gradients); weights get orthogonal initialization
 * (gain √2 for hidden layers, as cleanrl and ElegantRL do; the output layer's gain is the caller's).
 */

/** Hidden-layer activation. */
export type HiddenActivation = 'relu' | 'tanh';

/** Shape of an {@link Mlp}. */
export interface MlpConfig {
  inputs: number;
  /** Units of each hidden layer. */
  hidden: readonly number[];
  outputs: number;
  /** Default 'relu'. */
  activation?: HiddenActivation;
  /** Orthogonal-init gain of the output layer. Default 1. */
  outputGain?: number;
  /** Seed of the initialization. Default 0. */
  seed?: number;
}

/**
 * A trainable variable made from `initial`, which is then released: a variable keeps its own
 * reference to the data, and the initial tensor would otherwise stay alive (a leak per variable).
 */
export function ownVariable(initial: tf.Tensor, name: string): tf.Variable {
  const variable = tf.variable(initial, true, name);
  initial.dispose();
  return variable;
}

/** Dense layers, trainable. Dispose it when done. */
export class Mlp implements NetworkBody {
  readonly weights: tf.Variable[];
  readonly biases: tf.Variable[];
  readonly config: Readonly<MlpConfig>;

  constructor(config: MlpConfig, name: string) {
    this.config = config;
    const sizes = [config.inputs, ...config.hidden, config.outputs];
    const seed = config.seed ?? 0;
    this.weights = [];
    this.biases = [];
    for (let l = 0; l + 1 < sizes.length; l++) {
      const last = l + 2 === sizes.length;
      const gain = last ? (config.outputGain ?? 1) : Math.SQRT2;
      const shape: [number, number] = [sizes[l] ?? 0, sizes[l + 1] ?? 0];
      const values = orthogonalMatrix(shape[0], shape[1], gain, seed * 1000 + l);
      this.weights.push(ownVariable(tf.tensor2d(values, shape), `${name}/w${l}`));
      this.biases.push(ownVariable(tf.zeros([shape[1]]), `${name}/b${l}`));
    }
  }

  /** Every trainable variable. */
  get variables(): tf.Variable[] {
    return [...this.weights, ...this.biases];
  }

  /** `w0`, `b0`, `w1`, … by layer. */
  namedVariables(): Record<string, tf.Variable> {
    const named: Record<string, tf.Variable> = {};
    this.weights.forEach((w, l) => (named[`w${l}`] = w));
    this.biases.forEach((b, l) => (named[`b${l}`] = b));
    return named;
  }

  /** The output for a batch `x` [batch, inputs] → [batch, outputs] (no output activation). */
  apply(x: tf.Tensor2D): tf.Tensor2D {
    const activation = this.config.activation ?? 'relu';
    if (activation === 'relu' && nativeReluMlpActive())
      return reluMlp(x, this.weights as tf.Tensor2D[], this.biases as tf.Tensor1D[]);
    let h = x;
    const layers = this.weights.length;
    for (let l = 0; l < layers; l++) {
      const w = this.weights[l] as tf.Variable;
      const b = this.biases[l] as tf.Variable;
      const hidden = l + 1 < layers;
      // The first layer's input is data: no gradient flows into it.
      if (hidden && activation === 'relu')
        h = denseRelu(h, w as tf.Tensor2D, b as tf.Tensor1D, { inputGradient: l > 0 });
      else {
        h = tf.fused.matMul({ a: h, b: w, bias: b }) as tf.Tensor2D;
        if (hidden) h = tf.tanh(h);
      }
    }
    return h;
  }

  dispose(): void {
    for (const v of this.variables) v.dispose();
  }
}

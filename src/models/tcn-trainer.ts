import * as tf from '../compute/tfjs.js';
import { TradelabError } from '../core/index.js';
import { applyClippedGradients, ExactAdam } from './adam.js';
import type { TcnApplyOptions } from './tcn.js';

/*
 * One TCN regression step as the pretraining loop runs it: `accum` micro-batches of chunks, each a
 * forward pass (dropout on, gradient checkpointing when asked) and its MSE gradients, summed; the
 * mean gradient clipped to a global norm and one Adam step. Inputs arrive as plain Float32Arrays
 * (the loop gathers chunks from the feature arrays) and the predictions come back the same way, so
 * the caller never holds a tensor.
 */

/**
 * What the trainer needs of a network: chunks [batch, time, inputs] in, one forecast per chunk
 * out, and its variables. The TCN is one; so is the window MLP of forecasting sets.
 */
export interface SequenceRegressor {
  readonly config: { readonly inputs: number };
  apply(x: tf.Tensor3D, options?: TcnApplyOptions): tf.Tensor2D;
  readonly variables: tf.Variable[];
}

/** A micro-batch: chunks [rows, time, inputs] and their standardized targets [rows]. */
export interface TcnBatch {
  x: Float32Array;
  y: Float32Array;
  rows: number;
}

/** Options of a {@link TcnTrainer}. */
export interface TcnTrainerOptions {
  learningRate: number;
  /** Recompute each block in the backward pass (less memory, about one more forward pass). */
  checkpoint: boolean;
  /** Global gradient norm clip. Default 1. */
  maxGradNorm?: number;
}

/** What one step did. */
export interface TcnStepResult {
  /** Mean squared error over the step's chunks (standardized targets). */
  loss: number;
  /** The forecasts of every chunk of the step, in batch order (dropout on). */
  predictions: Float32Array;
}

/** Trains a {@link SequenceRegressor} (a TCN, a window MLP) by steps; owns its optimizer. */
export class TcnTrainer {
  readonly optimizer: ExactAdam;

  constructor(
    readonly net: SequenceRegressor,
    readonly options: TcnTrainerOptions,
  ) {
    // A step reads its loss and forecasts back at once, which tfjs's webgpu backend cannot do in
    // Node (its synchronous read needs a browser's OffscreenCanvas).
    if (tf.getBackend() === 'webgpu')
      throw new TradelabError(
        'BACKEND_UNAVAILABLE',
        "the TCN does not train on tfjs's webgpu backend: it cannot read a step's results back synchronously in Node",
        { hint: "use --backend gpu (tradelab's GPU engine) or --backend wasm" },
      );
    this.optimizer = new ExactAdam(options.learningRate, 0.9, 0.999, 1e-8);
  }

  /** One optimizer step over `batches` (gradient accumulation); `seed` picks the dropout masks. */
  step(batches: readonly TcnBatch[], seed: number): TcnStepResult {
    const { net } = this;
    const inputs = net.config.inputs;
    const total = batches.reduce((n, b) => n + b.rows, 0);
    const predictions = new Float32Array(total);
    let lossSum = 0;
    let accumulated: tf.NamedTensorMap | undefined;
    let offset = 0;
    batches.forEach((batch, i) => {
      const steps = batch.x.length / (batch.rows * inputs);
      const { value, grads, out } = tf.tidy(() => {
        const x = tf.tensor3d(batch.x, [batch.rows, steps, inputs]);
        const y = tf.tensor2d(batch.y, [batch.rows, 1]);
        let forecast: tf.Tensor2D | undefined;
        // Each micro-batch's loss is its share of the step's mean: sum of squares / all chunks.
        const result = tf.variableGrads(() => {
          // Kept: the gradient's own scope would free it, and the step returns its values.
          forecast = tf.keep(
            net.apply(x, {
              training: true,
              seed: seed * 64 + i,
              checkpoint: this.options.checkpoint,
            }),
          );
          return tf.div<tf.Scalar>(tf.sum(tf.square(tf.sub(forecast, y))), total);
        }, net.variables);
        return { ...result, out: forecast as tf.Tensor2D };
      });
      predictions.set(out.dataSync(), offset);
      offset += batch.rows;
      lossSum += value.dataSync()[0] ?? Number.NaN;
      tf.dispose([value, out]);
      if (accumulated === undefined) accumulated = grads;
      else {
        const sum: tf.NamedTensorMap = {};
        for (const [name, g] of Object.entries(grads))
          sum[name] = tf.add(accumulated[name] as tf.Tensor, g);
        tf.dispose([...Object.values(accumulated), ...Object.values(grads)]);
        accumulated = sum;
      }
    });
    if (accumulated !== undefined) {
      applyClippedGradients(this.optimizer, accumulated, this.options.maxGradNorm ?? 1);
      tf.dispose(Object.values(accumulated));
    }
    return { loss: lossSum, predictions };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

/** A network's forecasts for chunks [rows, time, inputs], dropout off. */
export function tcnForecast(net: SequenceRegressor, x: Float32Array, rows: number): Float32Array {
  const inputs = net.config.inputs;
  const steps = x.length / (rows * inputs);
  return tf.tidy(() => net.apply(tf.tensor3d(x, [rows, steps, inputs])).dataSync() as Float32Array);
}

import * as tf from './tfjs.js';

/*
 * Host↔device traffic of a training loop: bytes uploaded into tensors, bytes read back, and the
 * time both took. On webgpu a read waits for the device to finish the work queued before it, so
 * its time is an upper bound on the copy itself; on wasm both are copies in and out of the
 * module's memory. Seed 001's first GPU fix was to stop paying this per env step.
 */

/** What a {@link TransferMeter} counted since it was last reset. */
export interface TransferTotals {
  uploadBytes: number;
  downloadBytes: number;
  /** Reads: each is a round trip to a GPU (and waits for its queued work). */
  reads: number;
  /** Seconds in uploads and in reads (reads include waiting for queued device work). */
  transferSeconds: number;
}

/** Counts and times the uploads and reads made through it. */
export class TransferMeter {
  private uploadBytes = 0;
  private downloadBytes = 0;
  private reads = 0;
  private milliseconds = 0;

  /** A float32 tensor of `values` with `shape`, counted as an upload. */
  upload<R extends tf.Rank>(
    values: Float32Array | Int32Array,
    shape: tf.ShapeMap[R],
  ): tf.Tensor<R> {
    const started = performance.now();
    const tensor = tf.tensor<R>(values, shape, values instanceof Int32Array ? 'int32' : 'float32');
    this.milliseconds += performance.now() - started;
    this.uploadBytes += values.byteLength;
    return tensor;
  }

  /** Reads `tensor`'s values back to the host (the tensor is left alive). */
  async read(tensor: tf.Tensor): Promise<Float32Array> {
    const started = performance.now();
    const values = (await tensor.data()) as Float32Array;
    this.milliseconds += performance.now() - started;
    this.downloadBytes += values.byteLength;
    this.reads++;
    return values;
  }

  /** The totals since the last reset, then zeroes them. */
  take(): TransferTotals {
    const totals = {
      uploadBytes: this.uploadBytes,
      downloadBytes: this.downloadBytes,
      reads: this.reads,
      transferSeconds: this.milliseconds / 1000,
    };
    this.uploadBytes = 0;
    this.downloadBytes = 0;
    this.reads = 0;
    this.milliseconds = 0;
    return totals;
  }
}

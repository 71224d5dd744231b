import type { KernelSpec } from '../pipeline-cache.js';
import { REDUCE_SUM_WGSL, REDUCE_THREADS } from './reduce.js';

/*
 * The TCN trainer's loss on one micro-batch: Σ (f − y)² / total, where total is the step's chunks
 * over all its micro-batches (each micro-batch's loss is its share of the step's mean, as
 * models/tcn-trainer.ts), its gradient at the forecasts 2(f − y)/total, and the loss added to a
 * device buffer that the host reads once per step. One workgroup: a tree sum in a fixed order.
 */

/** rows (this micro-batch's chunks) and the step's total chunks. */
export function mseUniform(rows: number, total: number): ArrayBuffer {
  const words = new ArrayBuffer(16);
  new Uint32Array(words, 0, 1)[0] = rows;
  new Float32Array(words, 4, 1)[0] = total;
  return words;
}

/** Bindings: params, forecasts [rows], targets [rows], gradient [rows], loss (added at 0). */
export function mseLossKernel(): KernelSpec {
  const code = /* wgsl */ `
struct Params { rows: u32, total: f32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> forecast: array<f32>;
@group(0) @binding(2) var<storage, read> target_: array<f32>;
@group(0) @binding(3) var<storage, read_write> gradient: array<f32>;
@group(0) @binding(4) var<storage, read_write> loss: array<f32>;
${REDUCE_SUM_WGSL}
@compute @workgroup_size(${REDUCE_THREADS})
fn main(@builtin(local_invocation_index) li: u32) {
  var sum = 0.0;
  for (var i = li; i < p.rows; i += ${REDUCE_THREADS}u) {
    let error = forecast[i] - target_[i];
    sum = sum + error * error;
    gradient[i] = 2.0 * error / p.total;
  }
  let total = reduceSum(sum, li);
  if (li == 0u) { loss[0] = loss[0] + total / p.total; }
}
`;
  return {
    label: 'mse loss',
    code,
    bindings: ['uniform', 'read', 'read', 'write', 'write'],
    perMinibatch: false,
  };
}

/*
 * A workgroup tree reduction in WGSL, shared by the kernels that sum: 256 values halved in 8 steps
 * through workgroup memory, always in the same order, so a sum comes out with the same bits every
 * time on a device (no atomics, whose order would vary).
 */

/** Threads of a reducing workgroup. */
export const REDUCE_THREADS = 256;

/** WGSL: `reduceSum(v, li)` sums `v` over the workgroup's 256 threads (all of them must call it). */
export const REDUCE_SUM_WGSL = /* wgsl */ `
var<workgroup> reduction: array<f32, ${REDUCE_THREADS}>;
fn reduceSum(v: f32, li: u32) -> f32 {
  reduction[li] = v;
  workgroupBarrier();
  for (var stride = ${REDUCE_THREADS / 2}u; stride > 0u; stride = stride >> 1u) {
    if (li < stride) { reduction[li] = reduction[li] + reduction[li + stride]; }
    workgroupBarrier();
  }
  let total = reduction[0];
  workgroupBarrier();
  return total;
}
`;

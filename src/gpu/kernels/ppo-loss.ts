import type { KernelSpec } from '../pipeline-cache.js';
import { REDUCE_SUM_WGSL, REDUCE_THREADS } from './reduce.js';

/*
 * PPO's minibatch kernels. The gather copies a minibatch's rows out of the rollout (uploaded once
 * per update) by the shuffled order (uploaded once per update too). The loss kernel is PPO's
 * clipped objective for a Gaussian policy with a state-independent log-std, forward and backward
 * in one workgroup: advantage normalization over the minibatch, log-probabilities, ratio, clip,
 * value loss (clipped or not), entropy; it writes the gradients at the actor's output (through
 * tanh when the mean is squashed), at the critic's output and of the log-std, and adds the
 * statistics to a device buffer that the host reads once per update. One workgroup, because the
 * sums over the minibatch (normalization, the log-std gradient, the statistics) then need no second
 * pass and come out in the same order every time; a minibatch of thousands of rows is a few
 * hundred thousand operations, small beside its GEMMs.
 *
 * The gradients follow tfjs's definitions where the math has a choice (minimum/maximum send the
 * gradient to the first argument on ties; a clip passes it inside its closed range), so they match
 * the CPU path's ppoLossGradients.
 */

/** Where a minibatch's columns sit in the gathered buffer: each a block of `capacity` rows. */
export interface MinibatchLayout {
  stateDim: number;
  actionDim: number;
  /** Rows of the largest minibatch. */
  capacity: number;
  /** Element offsets of each block. */
  states: number;
  actions: number;
  oldLogProbs: number;
  advantages: number;
  returns: number;
  oldValues: number;
  /** Elements of the whole buffer. */
  size: number;
}

/** The layout of a minibatch of at most `capacity` rows (the rollout uses it with its own size). */
export function minibatchLayout(
  stateDim: number,
  actionDim: number,
  capacity: number,
): MinibatchLayout {
  const actions = capacity * stateDim;
  const oldLogProbs = actions + capacity * actionDim;
  return {
    stateDim,
    actionDim,
    capacity,
    states: 0,
    actions,
    oldLogProbs,
    advantages: oldLogProbs + capacity,
    returns: oldLogProbs + 2 * capacity,
    oldValues: oldLogProbs + 3 * capacity,
    size: oldLogProbs + 4 * capacity,
  };
}

/** Threads per workgroup of the gather. */
export const GATHER_THREADS = 256;

/**
 * Gathers the minibatch's rows (order[start .. start + rows)) of the rollout into the minibatch
 * buffer. Bindings: order, rollout, minibatch. Group 1: the range. One thread per value.
 */
export function gatherKernel(rollout: MinibatchLayout, minibatch: MinibatchLayout): KernelSpec {
  const S = rollout.stateDim;
  const A = rollout.actionDim;
  const width = S + A + 4;
  const code = /* wgsl */ `
struct Minibatch { start: u32, rows: u32 };
@group(0) @binding(0) var<storage, read> order: array<u32>;
@group(0) @binding(1) var<storage, read> rollout: array<f32>;
@group(0) @binding(2) var<storage, read_write> batch: array<f32>;
@group(1) @binding(0) var<uniform> mb: Minibatch;
@compute @workgroup_size(${GATHER_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u) {
  let r = id.x / ${width}u;
  let c = id.x % ${width}u;
  if (r >= mb.rows) { return; }
  let source = order[mb.start + r];
  if (c < ${S}u) {
    batch[${minibatch.states}u + r * ${S}u + c] = rollout[${rollout.states}u + source * ${S}u + c];
  } else if (c < ${S + A}u) {
    let d = c - ${S}u;
    batch[${minibatch.actions}u + r * ${A}u + d] = rollout[${rollout.actions}u + source * ${A}u + d];
  } else {
    let column = c - ${S + A}u;
    batch[${minibatch.oldLogProbs}u + column * ${minibatch.capacity}u + r] =
      rollout[${rollout.oldLogProbs}u + column * ${rollout.capacity}u + source];
  }
}
`;
  return {
    label: 'gather minibatch',
    code,
    bindings: ['read', 'read', 'write'],
    perMinibatch: true,
  };
}

/** Workgroups of the gather for `rows` rows. */
export function gatherWorkgroups(layout: MinibatchLayout, rows: number): [number] {
  return [Math.ceil((rows * (layout.stateDim + layout.actionDim + 4)) / GATHER_THREADS)];
}

/** The loss kernel's compile-time choices. */
export interface PpoLossVariant {
  layout: MinibatchLayout;
  /** The mean is tanh of the actor's output (else the output itself). */
  tanhMean: boolean;
  /** Normalize advantages over the minibatch. */
  normalizeAdvantages: boolean;
  clipValueLoss: boolean;
}

/** Statistics the loss kernel adds per minibatch: PPO_STEP_STATS' order, then the last KL. */
export const PPO_LOSS_STATS = 6;

/** The loss kernel's uniform: ratio clip, entropy and value coefficients, the log-std's offset. */
export function ppoLossUniform(constants: {
  ratioClip: number;
  entropyCoef: number;
  valueCoef: number;
  logStdOffset: number;
}): ArrayBuffer {
  const words = new ArrayBuffer(16);
  new Float32Array(words, 0, 3).set([
    constants.ratioClip,
    constants.entropyCoef,
    constants.valueCoef,
  ]);
  new Uint32Array(words, 12, 1)[0] = constants.logStdOffset;
  return words;
}

/**
 * PPO's loss forward and backward on one minibatch. Bindings: params (uniform), minibatch,
 * actor output [rows × A], critic output [rows], weights (for the log-std), actor-output gradient,
 * critic-output gradient, gradients (the log-std's slot), statistics. Group 1: the range.
 */
export function ppoLossKernel(variant: PpoLossVariant): KernelSpec {
  const { layout } = variant;
  const A = layout.actionDim;
  const code = /* wgsl */ `
struct Params { clip: f32, entropyCoef: f32, valueCoef: f32, logStdOffset: u32 };
struct Minibatch { start: u32, rows: u32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> batch: array<f32>;
@group(0) @binding(2) var<storage, read> actorOut: array<f32>;
@group(0) @binding(3) var<storage, read> criticOut: array<f32>;
@group(0) @binding(4) var<storage, read> weights: array<f32>;
@group(0) @binding(5) var<storage, read_write> dActor: array<f32>;
@group(0) @binding(6) var<storage, read_write> dCritic: array<f32>;
@group(0) @binding(7) var<storage, read_write> grads: array<f32>;
@group(0) @binding(8) var<storage, read_write> stats: array<f32>;
@group(1) @binding(0) var<uniform> mb: Minibatch;
${REDUCE_SUM_WGSL}
const A = ${A}u;
const LOG_SQRT_2PI = 0.91893853320467274178;

fn meanOf(raw: f32) -> f32 { return ${variant.tanhMean ? 'tanh(raw)' : 'raw'}; }

@compute @workgroup_size(${REDUCE_THREADS})
fn main(@builtin(local_invocation_index) li: u32) {
  let n = mb.rows;
  let nf = f32(n);
  let clip = p.clip;
  var logStd: array<f32, ${A}>;
  var sigma: array<f32, ${A}>;
  var entropy = 0.0;
  for (var d = 0u; d < A; d++) {
    logStd[d] = weights[p.logStdOffset + d];
    sigma[d] = exp(logStd[d]);
    entropy = entropy + (logStd[d] + (0.5 + LOG_SQRT_2PI));
  }
  var advMean = 0.0;
  var advSd = 1.0;
  var normalize = ${variant.normalizeAdvantages ? 'n >= 2u' : 'false'};
  if (normalize) {
    var s = 0.0;
    for (var i = li; i < n; i += ${REDUCE_THREADS}u) { s = s + batch[${layout.advantages}u + i]; }
    advMean = reduceSum(s, li) / nf;
    var q = 0.0;
    for (var i = li; i < n; i += ${REDUCE_THREADS}u) {
      let x = batch[${layout.advantages}u + i] - advMean;
      q = q + x * x;
    }
    let variance = reduceSum(q, li) / nf;
    advSd = sqrt(variance * (nf / (nf - 1.0))) + 1e-8;
  }
  var policy = 0.0;
  var value = 0.0;
  var kl = 0.0;
  var clipped = 0.0;
  var gLogStd: array<f32, ${A}>;
  for (var d = 0u; d < A; d++) { gLogStd[d] = 0.0; }
  for (var i = li; i < n; i += ${REDUCE_THREADS}u) {
    var adv = batch[${layout.advantages}u + i];
    if (normalize) { adv = (adv - advMean) / advSd; }
    var logProb = 0.0;
    for (var d = 0u; d < A; d++) {
      let z = (batch[${layout.actions}u + i * A + d] - meanOf(actorOut[i * A + d])) / sigma[d];
      logProb = logProb + (-0.5 * (z * z) - (logStd[d] + LOG_SQRT_2PI));
    }
    let logRatio = logProb - batch[${layout.oldLogProbs}u + i];
    let ratio = exp(logRatio);
    let surrogate1 = ratio * adv;
    let surrogate2 = clamp(ratio, 1.0 - clip, 1.0 + clip) * adv;
    policy = policy - min(surrogate1, surrogate2);
    var dRatio = 0.0;
    if (surrogate1 <= surrogate2 || (ratio >= 1.0 - clip && ratio <= 1.0 + clip)) { dRatio = adv; }
    let dLogProb = -(dRatio * ratio) / nf;
    for (var d = 0u; d < A; d++) {
      let mean = meanOf(actorOut[i * A + d]);
      let z = (batch[${layout.actions}u + i * A + d] - mean) / sigma[d];
      let dMean = dLogProb * z / sigma[d];
      dActor[i * A + d] = ${variant.tanhMean ? 'dMean * (1.0 - mean * mean)' : 'dMean'};
      gLogStd[d] = gLogStd[d] + dLogProb * (z * z - 1.0);
    }
    let v = criticOut[i];
    let goal = batch[${layout.returns}u + i];
    let error = v - goal;
    let squared = error * error;
    ${
      variant.clipValueLoss
        ? `let old = batch[${layout.oldValues}u + i];
    let moved = v - old;
    let clippedValue = old + clamp(moved, -clip, clip);
    let clippedError = clippedValue - goal;
    let squared2 = clippedError * clippedError;
    value = value + max(squared, squared2);
    var dValue = 0.0;
    if (squared >= squared2) { dValue = 2.0 * error; }
    else if (moved >= -clip && moved <= clip) { dValue = 2.0 * clippedError; }`
        : `value = value + squared;
    let dValue = 2.0 * error;`
    }
    dCritic[i] = p.valueCoef * dValue / nf;
    kl = kl + ((ratio - 1.0) - logRatio);
    if (abs(ratio - 1.0) > clip) { clipped = clipped + 1.0; }
  }
  let policyLoss = reduceSum(policy, li) / nf;
  let valueLoss = reduceSum(value, li) / nf;
  let approxKl = reduceSum(kl, li) / nf;
  let clipFraction = reduceSum(clipped, li) / nf;
  for (var d = 0u; d < A; d++) {
    let g = reduceSum(gLogStd[d], li);
    if (li == 0u) { grads[p.logStdOffset + d] = g - p.entropyCoef; }
  }
  if (li == 0u) {
    stats[0] = stats[0] + policyLoss;
    stats[1] = stats[1] + valueLoss;
    stats[2] = stats[2] + entropy;
    stats[3] = stats[3] + approxKl;
    stats[4] = stats[4] + clipFraction;
    stats[5] = approxKl;
  }
}
`;
  return {
    label: `ppo loss A=${A}`,
    code,
    bindings: ['uniform', 'read', 'read', 'read', 'read', 'write', 'write', 'write', 'write'],
    perMinibatch: true,
  };
}

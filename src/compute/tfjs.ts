import { createRequire } from 'node:module';
import type * as Tf from '@tensorflow/tfjs';

/*
 * TensorFlow.js, for every module of tradelab: `import * as tf from '../compute/tfjs.js'`, never
 * from '@tensorflow/tfjs' (eslint refuses it). Why: tfjs is one CommonJS bundle of several MB, and
 * an ES `import` of a CommonJS module makes Node parse its whole source for its export names
 * (cjs-module-lexer): about 0.4 CPU-s at the start of every process that trains, evaluates or runs
 * a study worker, on top of running the bundle. `require` runs it without that parse; a single ES
 * import anywhere would bring the parse back.
 *
 * The types are the package's (`export type *`); the values are the ones tradelab uses, listed
 * here (add one when you use it). A class used as a type and as a value (AdamOptimizer, which
 * ExactAdam extends) and the namespaces whose types are used (io, fused) are declared both ways.
 */

const tfjs = createRequire(import.meta.url)('@tensorflow/tfjs') as typeof Tf;

export type * from '@tensorflow/tfjs';

export const {
  abs,
  add,
  addN,
  backend,
  broadcast_util,
  cast,
  clipByValue,
  clone,
  concat,
  customGrad,
  dispose,
  div,
  dropout,
  engine,
  exp,
  expandDims,
  fill,
  fused,
  gather,
  getBackend,
  getKernel,
  grad,
  grads,
  greater,
  initializers,
  io,
  keep,
  layers,
  losses,
  matMul,
  maximum,
  mean,
  memory,
  minimum,
  moments,
  mul,
  neg,
  ones,
  pad,
  profile,
  randomNormal,
  randomUniform,
  ready,
  registerKernel,
  relu,
  reshape,
  scalar,
  sequential,
  setBackend,
  slice,
  softmax,
  split,
  sqrt,
  square,
  squeeze,
  stack,
  step,
  sub,
  sum,
  tanh,
  tensor,
  tensor1d,
  tensor2d,
  tensor3d,
  tidy,
  train,
  transpose,
  unregisterKernel,
  variable,
  variableGrads,
  zeros,
  zerosLike,
} = tfjs;

export const AdamOptimizer = tfjs.AdamOptimizer;
export type AdamOptimizer = Tf.AdamOptimizer;

/* eslint-disable @typescript-eslint/no-namespace -- the types of two namespaces exported as values */
export declare namespace io {
  export type CompositeArrayBuffer = Tf.io.CompositeArrayBuffer;
  export type WeightData = Tf.io.WeightData;
  export type WeightsManifestConfig = Tf.io.WeightsManifestConfig;
  export type WeightsManifestEntry = Tf.io.WeightsManifestEntry;
}
export declare namespace fused {
  export type Activation = Tf.fused.Activation;
}
/* eslint-enable @typescript-eslint/no-namespace */

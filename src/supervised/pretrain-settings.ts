import { TradelabError } from '../core/index.js';

/*
 * The settings of a TCN pretraining run (seed 003's `pretrain_tcn_rv.py` flags, in tradelab's
 * names), their defaults, and the precision a backend really computes in.
 */

/** Numeric precision asked for. */
export type Precision = 'fp32' | 'bf16' | 'fp16';
export const PRECISIONS: readonly Precision[] = ['fp32', 'bf16', 'fp16'];

/** Everything that decides a run's numbers. */
export interface PretrainSettings {
  /** Channels of every block. */
  hidden: number;
  /** Residual blocks (dilation 2^i). */
  layers: number;
  /** Taps per convolution. */
  kernel: number;
  dropout: number;
  /** Bars per chunk. */
  chunkLen: number;
  /** Forward horizon of the target, sessions. */
  horizon: number;
  /** Chunks per micro-batch. */
  chunks: number;
  /** Micro-batches per optimizer step (gradient accumulation). */
  accum: number;
  /** Optimizer steps per epoch. */
  stepsPerEpoch: number;
  epochs: number;
  learningRate: number;
  /** Gradient checkpointing. */
  checkpoint: boolean;
  /** Precision asked for (what ran is in the run's `precision`). */
  precision: Precision;
  /** Epochs without a better validation loss before stopping. */
  patience: number;
  seed: number;
}

/**
 * Defaults: seed 003's schedule (500 steps an epoch, accumulation 4, 100 epochs), a network the CPU
 * trains in minutes an epoch (6 blocks of 64 channels; seed 003's is `--layers 12 --hidden 512`),
 * and chunks of 512 bars. `chunks` and `checkpoint` depend on the profile and the model: the
 * caller fills them.
 */
export const PRETRAIN_DEFAULTS = {
  hidden: 64,
  layers: 6,
  kernel: 3,
  dropout: 0.1,
  chunkLen: 512,
  horizon: 22,
  accum: 4,
  stepsPerEpoch: 500,
  epochs: 100,
  learningRate: 1e-3,
  precision: 'fp32',
  patience: 10,
  seed: 0,
} as const satisfies Partial<PretrainSettings>;

/** What precision a run used, and why, for the log and run.json. */
export interface PrecisionUsed {
  requested: Precision;
  used: 'fp32';
  /** Set when the request was not honoured. */
  note?: string;
}

/**
 * The precision the backend computes in. TensorFlow.js's wasm and webgpu backends compute float32
 * only (tfjs has no bfloat16 dtype, and its WebGPU kernels are f32), so a bf16 or fp16 request
 * trains in fp32 and says so: a run never reports reduced precision that did not happen.
 */
export function resolvePrecision(requested: Precision, backend: string): PrecisionUsed {
  if (requested === 'fp32') return { requested, used: 'fp32' };
  return {
    requested,
    used: 'fp32',
    note: `--precision ${requested}: the ${backend} backend computes in float32 only (TensorFlow.js has no ${requested} kernels), so training continues in fp32`,
  };
}

/** Checks the settings' ranges; the message names the flag. */
export function checkPretrainSettings(s: PretrainSettings): void {
  const ints: [keyof PretrainSettings, string, number][] = [
    ['hidden', '--hidden', 1],
    ['layers', '--layers', 1],
    ['kernel', '--kernel', 1],
    ['chunkLen', '--chunk-len', 2],
    ['horizon', '--horizon', 1],
    ['chunks', '--chunks', 1],
    ['accum', '--accum', 1],
    ['stepsPerEpoch', '--steps-per-epoch', 1],
    ['epochs', '--epochs', 1],
    ['patience', '--patience', 1],
  ];
  for (const [key, flag, min] of ints) {
    const value = s[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${flag} ${String(value)} must be an integer ≥ ${min}`,
      );
  }
  if (!(s.learningRate > 0 && s.learningRate < 1))
    throw new TradelabError('INVALID_ARGUMENT', `--lr ${s.learningRate} must be in (0, 1)`);
  if (!(s.dropout >= 0 && s.dropout < 1))
    throw new TradelabError('INVALID_ARGUMENT', `--dropout ${s.dropout} must be in [0, 1)`);
}

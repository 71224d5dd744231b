import type { CommandSpec } from '../command-spec.js';
import { PROGRESS_INTERVAL_OPTION } from '../progress.js';

/** Commands for supervised pretraining. */
export const PRETRAIN_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['pretrain', 'tcn'],
    summary:
      'pretrain a TCN on log forward realized volatility beside HAR-RV: epoch table, checkpoints, early stopping, report',
    positionals: [],
    options: [
      {
        name: 'data',
        type: 'string',
        value: 'SYM[,SYM]:TF',
        description: 'intraday bars of one or more symbols (required unless --resume)',
      },
      {
        name: 'out',
        type: 'string',
        value: 'DIR',
        path: true,
        description: 'run directory: run.json, checkpoint/, model/ (best epoch), report.html',
      },
      {
        name: 'summary',
        type: 'boolean',
        description: 'print the layer table, parameter count and memory plan, and stop',
      },
      {
        name: 'chunks',
        type: 'string',
        value: 'N',
        description:
          "chunks a micro-batch (default: the profile's tcn.chunksPerBatch, as many as fit)",
      },
      {
        name: 'accum',
        type: 'string',
        value: 'N',
        description: 'micro-batches a step, gradient accumulation (default 4)',
      },
      {
        name: 'steps-per-epoch',
        type: 'string',
        value: 'N',
        description: 'optimizer steps an epoch (default 500)',
      },
      {
        name: 'epochs',
        type: 'string',
        value: 'N',
        description: 'most epochs (default 100; --resume may raise it)',
      },
      {
        name: 'patience',
        type: 'string',
        value: 'N',
        description: 'epochs without a better validation loss before stopping (default 10)',
      },
      {
        name: 'lr',
        type: 'string',
        value: 'X',
        description: "Adam's learning rate (default 1e-3)",
      },
      {
        name: 'layers',
        type: 'string',
        value: 'N',
        description:
          'residual blocks, dilation 2^i (default 6; the TCN benchmarks (PyTorch original) used 12)',
      },
      {
        name: 'hidden',
        type: 'string',
        value: 'N',
        description: 'channels (default 64; the TCN benchmarks (PyTorch original) used 512)',
      },
      { name: 'kernel', type: 'string', value: 'K', description: 'taps a convolution (default 3)' },
      {
        name: 'dropout',
        type: 'string',
        value: 'X',
        description: 'dropout after each convolution (default 0.1)',
      },
      { name: 'chunk-len', type: 'string', value: 'N', description: 'bars a chunk (default 512)' },
      {
        name: 'horizon',
        type: 'string',
        value: 'H',
        description: 'sessions of the forward RV target (default 22)',
      },
      {
        name: 'checkpoint',
        type: 'boolean',
        description:
          'gradient checkpointing on (default: on when the step would not fit without it)',
      },
      { name: 'no-checkpoint', type: 'boolean', description: 'gradient checkpointing off' },
      {
        name: 'precision',
        type: 'string',
        value: 'P',
        description:
          'fp32 (default), bf16 or fp16: reduced only where the backend computes it (says so otherwise)',
      },
      {
        name: 'seed',
        type: 'string',
        value: 'N',
        description: 'seed of weights, chunks and dropout (default 0)',
      },
      PROGRESS_INTERVAL_OPTION,
      {
        name: 'threads',
        type: 'string',
        value: 'N|all',
        description: "threads of the native GEMM's products (default all cores)",
      },
      {
        name: 'resume',
        type: 'boolean',
        description: 'continue the run in --out from its last epoch, with its settings',
      },
    ],
    settings: ['backend', 'profile', 'profilesFile', 'detect', 'detectTimeoutMs', 'dataDir'],
    examples: [
      'tradelab pretrain tcn --summary --layers 12 --hidden 512',
      'tradelab pretrain tcn --data SPY:5m --profile rtx5080 --out runs/spy-tcn',
      'tradelab pretrain tcn --out runs/spy-tcn --resume --epochs 200',
    ],
    load: () => import('../commands/pretrain-tcn.js'),
  },
];

import type { CommandSpec } from '../command-spec.js';
import { PROGRESS_INTERVAL_OPTION } from '../progress.js';

/** Commands for training one agent and re-evaluating saved models. */
export const TRAIN_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['train', 'ppo'],
    summary:
      'train PPO on market data, checkpoint, and evaluate the policy on a held-out range beside buy-and-hold',
    positionals: [],
    options: [
      {
        name: 'data',
        type: 'string',
        value: 'SYM[,SYM]:TF',
        description: 'symbols at one timeframe (required unless --resume)',
      },
      {
        name: 'out',
        type: 'string',
        value: 'DIR',
        path: true,
        description: 'run directory: manifest, checkpoints, model, report (required)',
      },
      {
        name: 'train',
        type: 'string',
        value: 'RANGE',
        description:
          'training bars: dates 2021-01-01..2022-06-30 or indices 0..5000 (default first 80%)',
      },
      {
        name: 'test',
        type: 'string',
        value: 'RANGE',
        description: 'held-out evaluation bars (default: the bars after --train)',
      },
      { name: 'no-test', type: 'boolean', description: 'skip the evaluation' },
      {
        name: 'steps',
        type: 'string',
        value: 'N',
        description: 'total env steps, breakStep (default 200000)',
      },
      {
        name: 'envs',
        type: 'string',
        value: 'N',
        description: 'envs stepped together, nEnvs (default 16)',
      },
      {
        name: 'policy',
        type: 'string',
        value: 'NET',
        pathAfter: 'tcn:',
        description:
          "the actor's network: mlp (default), ft_transformer, or tcn:DIR (an MLP over the features and the frozen encoder of a `pretrain tcn` run)",
      },
      {
        name: 'net-dim',
        type: 'string',
        value: 'N',
        description: 'hidden units per layer (default 256)',
      },
      {
        name: 'layers',
        type: 'string',
        value: 'N',
        description: 'hidden layers per network (default 2)',
      },
      {
        name: 'batch-size',
        type: 'string',
        value: 'N',
        description: 'minibatch size (default 512)',
      },
      {
        name: 'target-step',
        type: 'string',
        value: 'N',
        description: 'env steps per update, across envs (default 2048)',
      },
      {
        name: 'repeat-times',
        type: 'string',
        value: 'N',
        description: 'passes over each rollout (default 8)',
      },
      {
        name: 'lr',
        type: 'string',
        value: 'X',
        description: "Adam's learning rate (default 3e-4)",
      },
      { name: 'gamma', type: 'string', value: 'X', description: 'discount (default 0.99)' },
      {
        name: 'lambda-gae',
        type: 'string',
        value: 'X',
        description: "GAE's lambda (default 0.95)",
      },
      {
        name: 'ratio-clip',
        type: 'string',
        value: 'X',
        description: 'PPO clip range (default 0.2)',
      },
      {
        name: 'entropy',
        type: 'string',
        value: 'X',
        description: 'entropy bonus, lambdaEntropy (default 0.01)',
      },
      {
        name: 'seed',
        type: 'string',
        value: 'N',
        description: 'seed of networks, noise, minibatches, env starts (default 0)',
      },
      {
        name: 'lookback',
        type: 'string',
        value: 'N',
        description: 'bars of features per observation (default 1)',
      },
      {
        name: 'episode-length',
        type: 'string',
        value: 'N',
        description: 'steps per training episode, from a random start (default 256)',
      },
      {
        name: 'fee-bps',
        type: 'string',
        value: 'X',
        description: 'fee per buy and per sell, basis points (default 10)',
      },
      {
        name: 'reward',
        type: 'string',
        value: 'R',
        description: 'value-change (default) or excess (over buy-and-hold)',
      },
      {
        name: 'turnover-penalty',
        type: 'string',
        value: 'X',
        description:
          'subtracted from the reward per unit of notional traded, on top of the fees (default 0; e.g. 0.001: 10 bps more)',
      },
      {
        name: 'action-scaling',
        type: 'string',
        value: 'S',
        description:
          'fraction (default: an action is an order, a share of the portfolio), units, or target (an action is a position: the target weight of its asset)',
      },
      {
        name: 'rebalance-band',
        type: 'string',
        value: 'X',
        description:
          'a no-trade band: with target positions, gaps to the target of at most this share of the portfolio are not traded; with orders, orders of at most this share are not placed (e.g. 0.1)',
      },
      {
        name: 'execution-price',
        type: 'string',
        value: 'P',
        description:
          "close (default: an action fills at the next bar's close) or open (at the next bar's open, the first price after the bar the agent saw)",
      },
      {
        name: 'checkpoint-every',
        type: 'string',
        value: 'K',
        description: 'updates between checkpoints (default 10)',
      },
      PROGRESS_INTERVAL_OPTION,
      {
        name: 'threads',
        type: 'string',
        value: 'N|all',
        description:
          "threads of the native GEMM's matrix products (default all cores; --resume keeps the run's)",
      },
      {
        name: 'no-reward-scaling',
        type: 'boolean',
        description:
          "train on the env's raw rewards, not divided by the running sd of the discounted return (normalizeRewards false)",
      },
      {
        name: 'resume',
        type: 'boolean',
        description: 'continue the run in --out from its last checkpoint, with its settings',
      },
    ],
    settings: ['backend', 'profile', 'profilesFile', 'detect', 'detectTimeoutMs', 'dataDir'],
    examples: [
      'tradelab train ppo --data BTCUSDT,ETHUSDT:1h --out runs/btc-eth',
      'tradelab train ppo --data SYN0,SYN1:1h --train 2020-01-01..2020-12-31 --test 2021-01-01.. --steps 300000 --out runs/syn',
      'tradelab train ppo --out runs/syn --resume',
    ],
    load: () => import('../commands/train-ppo.js'),
  },
  {
    words: ['train', 'forecast'],
    summary:
      'train a set of forecasting models in parallel workers sized by the profile, scored alone and as their mean ensemble',
    positionals: [],
    options: [
      {
        name: 'data',
        type: 'string',
        value: 'SYM[,SYM]:TF',
        description: 'symbols at one timeframe (required)',
      },
      {
        name: 'models',
        type: 'string',
        value: 'N',
        description: 'models in the set, one seed each (default 5)',
      },
      {
        name: 'model',
        type: 'string',
        value: 'KIND',
        description: "tcn (default) or mlp (on the chunk's last bars)",
      },
      {
        name: 'target',
        type: 'string',
        value: 'T',
        description:
          'return (default: the forward log return) or rv (log forward realized volatility)',
      },
      {
        name: 'horizon',
        type: 'string',
        value: 'H',
        description: 'bars ahead for return (default 1), sessions for rv (default 22)',
      },
      { name: 'epochs', type: 'string', value: 'N', description: 'epochs a model (default 10)' },
      {
        name: 'steps-per-epoch',
        type: 'string',
        value: 'N',
        description: 'steps an epoch (default 100)',
      },
      {
        name: 'batch-size',
        type: 'string',
        value: 'N',
        description: "chunks a step (default: the profile's forecast batch size for the timeframe)",
      },
      { name: 'chunk-len', type: 'string', value: 'N', description: 'bars a chunk (default 64)' },
      {
        name: 'hidden',
        type: 'string',
        value: 'N',
        description: 'TCN channels or MLP width (default 32)',
      },
      {
        name: 'layers',
        type: 'string',
        value: 'N',
        description: 'TCN blocks (default 4) or MLP layers (default 2)',
      },
      {
        name: 'lr',
        type: 'string',
        value: 'X',
        description: "Adam's learning rate (default 1e-3)",
      },
      {
        name: 'workers',
        type: 'string',
        value: 'auto|N',
        description: 'models at once (default auto: as many as the planner fits)',
      },
      {
        name: 'seed',
        type: 'string',
        value: 'N',
        description: 'seed of model 0; model i gets seed + i (default 0)',
      },
    ],
    settings: [
      'backend',
      'profile',
      'profilesFile',
      'detect',
      'detectTimeoutMs',
      'dataDir',
      'safetyFactor',
    ],
    examples: [
      'tradelab train forecast --data BTCUSDT:1h --models 5',
      'tradelab train forecast --data SPY:5m --target rv --model tcn --models 3 --epochs 5',
    ],
    load: () => import('../commands/train-forecast.js'),
  },
  {
    words: ['backtest'],
    summary: "evaluate a saved model's deterministic policy on a range, beside buy-and-hold",
    positionals: [],
    options: [
      {
        name: 'model',
        type: 'string',
        value: 'DIR',
        path: true,
        description: 'a `train ppo` run directory, or its model/ (required)',
      },
      {
        name: 'data',
        type: 'string',
        value: 'SYM[,SYM]:TF',
        description: 'data to evaluate on (default: what it was trained on)',
      },
      {
        name: 'range',
        type: 'string',
        value: 'RANGE',
        description: "bars to evaluate (default: the run's test range, or all bars on other data)",
      },
      {
        name: 'fee-bps',
        type: 'string',
        value: 'X',
        description: 'fee per buy and per sell, basis points (default: as trained)',
      },
      {
        name: 'study',
        type: 'string',
        value: 'NAME',
        description:
          "a trading study: with --trial, backtest that trial's kept model (default range: the holdout)",
      },
      { name: 'trial', type: 'string', value: 'N', description: 'the trial number (with --study)' },
      {
        name: 'out',
        type: 'string',
        value: 'DIR',
        path: true,
        description: 'write equity.csv and report.html there',
      },
    ],
    settings: [
      'backend',
      'profile',
      'profilesFile',
      'detect',
      'detectTimeoutMs',
      'dataDir',
      'storage',
      'artifactDir',
    ],
    examples: [
      'tradelab backtest --model runs/btc-eth',
      'tradelab backtest --model runs/btc-eth --range 2023-01-01.. --fee-bps 20 --out runs/btc-eth/bt-2023',
      'tradelab backtest --study btc-bal --trial 14',
    ],
    load: () => import('../commands/backtest.js'),
  },
];

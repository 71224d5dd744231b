import type { CommandSpec } from '../command-spec.js';

/** Commands for benchmarks: each prints a table, or JSON lines with --json. */
export const BENCH_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['bench', 'data'],
    summary: 'benchmark import, resample, features and loading on a synthetic 1-minute CSV',
    positionals: [],
    options: [
      {
        name: 'rows',
        type: 'string',
        value: 'N',
        description:
          'rows of the 1-minute CSV (default 2600000: about five years of 1-minute bars)',
      },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 3)',
      },
    ],
    settings: [],
    examples: ['tradelab bench data', 'tradelab bench data --rows 500000 --json'],
    load: () => import('../commands/bench-data.js'),
  },
  {
    words: ['bench', 'env'],
    summary:
      'benchmark the vectorized trading env: aggregate env steps/s per nEnvs, random actions, one thread, and on the GPU when there is one',
    positionals: [],
    options: [
      { name: 'assets', type: 'string', value: 'N', description: 'assets per env (default 10)' },
      {
        name: 'features',
        type: 'string',
        value: 'F',
        description: 'features per asset, random values (default 7)',
      },
      {
        name: 'lookback',
        type: 'string',
        value: 'L',
        description: 'bars of features per observation (default 1)',
      },
      {
        name: 'envs',
        type: 'string',
        value: 'LIST',
        description: 'nEnvs values, comma-separated (default 1,16,256,2048)',
      },
      {
        name: 'steps',
        type: 'string',
        value: 'N',
        description: 'env steps per run, summed over envs (default 2000000)',
      },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 3)',
      },
      {
        name: 'gpu',
        type: 'string',
        value: 'WHEN',
        description:
          'rows of the env stepped on the GPU: auto (a hardware adapter; default), always (a software one too), never',
      },
      {
        name: 'gpu-envs',
        type: 'string',
        value: 'LIST',
        description: 'nEnvs values of the GPU rows, comma-separated (default 1024,65536,1048576)',
      },
    ],
    settings: [],
    examples: [
      'tradelab bench env',
      'tradelab bench env --envs 1,256 --steps 500000 --json',
      'tradelab bench env --gpu always --gpu-envs 1024,16384 --steps 2000000',
    ],
    load: () => import('../commands/bench-env.js'),
  },
  {
    words: ['bench', 'gemm'],
    summary:
      "benchmark matrix products in GFLOP/s per kernel (tradelab's, the system BLAS, XNNPACK) on a PPO update's shapes, beside the core's FMA peak",
    positionals: [],
    options: [
      {
        name: 'threads',
        type: 'string',
        value: 'N',
        description: 'threads per product (default 1)',
      },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 5)',
      },
      {
        name: 'no-xnnpack',
        type: 'boolean',
        description: "skip the XNNPACK rows (the wasm backend's products without the native GEMM)",
      },
      {
        name: 'save-choice',
        type: 'boolean',
        description:
          "record the fastest of tradelab's kernels, and whether the system BLAS beat it; products then run on the faster",
      },
      {
        name: 'gpu',
        type: 'string',
        value: 'WHEN',
        description:
          "the GPU engine's GEMM rows (GPU timestamps), with 4096×512×512: auto (a hardware adapter; default), always (a software one too), never",
      },
    ],
    settings: [],
    examples: [
      'tradelab bench gemm',
      'tradelab bench gemm --threads 2 --json',
      'tradelab bench gemm --gpu always --no-xnnpack',
    ],
    load: () => import('../commands/bench-gemm.js'),
  },
  {
    words: ['bench', 'ppo-update'],
    summary:
      'benchmark one PPO minibatch update (forward, backward, Adam) in samples/s per matmul path, one thread, and where its time goes',
    positionals: [],
    options: [
      {
        name: 'preset',
        type: 'string',
        value: 'NAME',
        description:
          "finrl: FinRL_Crypto's shapes (state 81, netDim 512, actions 10, batch 2048); flags override",
      },
      { name: 'state', type: 'string', value: 'N', description: 'state dimension (default 64)' },
      {
        name: 'net-dim',
        type: 'string',
        value: 'N',
        description: 'hidden units per layer (default 512)',
      },
      { name: 'actions', type: 'string', value: 'N', description: 'action dimension (default 4)' },
      { name: 'batch', type: 'string', value: 'N', description: 'minibatch size (default 4096)' },
      {
        name: 'policy',
        type: 'string',
        value: 'NET',
        description: "the actor's network: mlp (default) or ft_transformer",
      },
      { name: 'updates', type: 'string', value: 'N', description: 'updates per run (default 5)' },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 3)',
      },
      {
        name: 'webgpu',
        type: 'string',
        value: 'WHEN',
        description:
          'auto: add a webgpu row on a hardware adapter (default); always: on any adapter; never',
      },
      {
        name: 'no-stock',
        type: 'boolean',
        description: "skip the wasm backend's stock kernels (slow: ~50 s a run at the defaults)",
      },
      {
        name: 'reference',
        type: 'string',
        value: 'R',
        description:
          "auto (default: PyTorch's update on the same shapes, one thread, in this run, when python3 has PyTorch; TRADELAB_PYTHON picks the interpreter) or never",
      },
      {
        name: 'no-split',
        type: 'boolean',
        description: 'skip the table of where an update goes (products, element-wise, optimizer…)',
      },
    ],
    settings: [],
    examples: [
      'tradelab bench ppo-update',
      'tradelab bench ppo-update --state 64 --net-dim 512 --actions 4 --batch 4096',
      'tradelab bench ppo-update --preset finrl --no-stock',
      'tradelab bench ppo-update --policy ft_transformer --state 81 --actions 10 --batch 512 --no-stock',
    ],
    load: () => import('../commands/bench-ppo-update.js'),
  },
  {
    words: ['bench', 'eval'],
    summary:
      "benchmark evaluation as a study runs it: one deterministic episode per test range, the actor's forward pass every bar",
    positionals: [],
    options: [
      {
        name: 'net-dims',
        type: 'string',
        value: 'LIST',
        description: 'hidden units per layer to measure (default 512,2048)',
      },
      {
        name: 'ranges',
        type: 'string',
        value: 'LIST',
        description: 'test ranges evaluated together, one forward pass for all (default 1,2)',
      },
      { name: 'bars', type: 'string', value: 'N', description: 'bars per range (default 2000)' },
      {
        name: 'assets',
        type: 'string',
        value: 'N',
        description: 'assets, the action dimension (default 10)',
      },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 3)',
      },
    ],
    settings: [],
    examples: ['tradelab bench eval', 'tradelab bench eval --net-dims 512 --ranges 2 --json'],
    load: () => import('../commands/bench-eval.js'),
  },
  {
    words: ['bench', 'ppo'],
    summary:
      'benchmark PPO training end to end: env steps/s, rollout/update phase split, per nEnvs',
    positionals: [],
    options: [
      { name: 'envs', type: 'string', value: 'LIST', description: 'nEnvs values (default 16)' },
      {
        name: 'net-dim',
        type: 'string',
        value: 'N',
        description: 'hidden units per layer (default 256)',
      },
      {
        name: 'assets',
        type: 'string',
        value: 'N',
        description: 'assets, the action dimension (default 4)',
      },
      {
        name: 'target-step',
        type: 'string',
        value: 'N',
        description: 'env steps per update (default 2048)',
      },
      {
        name: 'batch-size',
        type: 'string',
        value: 'N',
        description: 'minibatch size (default 512)',
      },
      {
        name: 'repeat-times',
        type: 'string',
        value: 'N',
        description: 'passes over each rollout (default 8)',
      },
      {
        name: 'updates',
        type: 'string',
        value: 'N',
        description: 'updates measured after a warm-up (default 5)',
      },
      {
        name: 'resident-envs',
        type: 'string',
        value: 'LIST',
        description:
          'nEnvs values of rows with the whole trial on the GPU (env, rollout, update), comma-separated; with --backend gpu',
      },
    ],
    settings: ['backend', 'profile', 'profilesFile', 'detect', 'detectTimeoutMs'],
    examples: [
      'tradelab bench ppo',
      'tradelab bench ppo --envs 1,16,64 --net-dim 256',
      'tradelab bench ppo --backend webgpu',
      'tradelab bench ppo --backend gpu --envs 16 --resident-envs 1024,16384',
    ],
    load: () => import('../commands/bench-ppo.js'),
  },
  {
    words: ['bench', 'learn'],
    summary:
      "PPO's held-out Sharpe beside buy-and-hold on synthetic markets: planted signal vs random walk",
    positionals: [],
    options: [
      {
        name: 'signals',
        type: 'string',
        value: 'LIST',
        description: 'planted signal strengths (default 0.2,0.1,0.05,0)',
      },
      {
        name: 'seeds',
        type: 'string',
        value: 'LIST',
        description: 'seeds per signal (default 1,2,3,4,5)',
      },
      {
        name: 'steps',
        type: 'string',
        value: 'N',
        description: 'env steps of training per run (default 300000)',
      },
      {
        name: 'ppo',
        type: 'string',
        value: 'K=V,…',
        description: "PPO settings over the check's own, e.g. annealLr=true,targetKl=0.02",
      },
      {
        name: 'action-scaling',
        type: 'string',
        value: 'S',
        description:
          'fraction (default: actions are orders), units, or target (actions are positions)',
      },
      {
        name: 'rebalance-band',
        type: 'string',
        value: 'X',
        description:
          'a no-trade band: gaps to a target, or orders, of at most this share of the portfolio are not traded',
      },
      {
        name: 'execution-price',
        type: 'string',
        value: 'P',
        description:
          "close (default: an action fills at the next bar's close) or open (at the next bar's open)",
      },
      {
        name: 'turnover-penalty',
        type: 'string',
        value: 'X',
        description:
          'subtracted from the reward per unit of notional traded, on top of the fees (e.g. 0.001: 10 bps more)',
      },
    ],
    settings: [],
    examples: [
      'tradelab bench learn',
      'tradelab bench learn --signals 0.2,0 --seeds 1,2,3 --steps 100000',
      'tradelab bench learn --signals 0.2 --ppo clipValueLoss=true',
    ],
    load: () => import('../commands/bench-learn.js'),
  },
  {
    words: ['bench', 'learn-study'],
    summary:
      'a small trading study on a planted signal (2 workers, SQLite): trials/hour, prunes by fold, best trial on the holdout',
    positionals: [],
    options: [
      { name: 'trials', type: 'string', value: 'N', description: 'trials to run (default 12)' },
      { name: 'workers', type: 'string', value: 'N', description: 'worker processes (default 2)' },
      {
        name: 'steps',
        type: 'string',
        value: 'N',
        description: 'env steps per split of every trial (default 60000)',
      },
      {
        name: 'seed',
        type: 'string',
        value: 'S',
        description: 'seed of the synthetic market (default 3)',
      },
      {
        name: 'dir',
        type: 'string',
        value: 'DIR',
        path: true,
        description: 'keep the data and study.db there (default: a temporary directory, removed)',
      },
    ],
    settings: [],
    examples: [
      'tradelab bench learn-study',
      'tradelab bench learn-study --trials 20 --dir bench-study',
    ],
    load: () => import('../commands/bench-learn-study.js'),
  },
  {
    words: ['bench', 'tcn'],
    summary:
      'benchmark TCN training steps (forward, backward, Adam): it/s, chunks/s, timesteps/s, memory with and without checkpointing, where the time goes',
    positionals: [],
    options: [
      { name: 'layers', type: 'string', value: 'N', description: 'residual blocks (default 6)' },
      { name: 'hidden', type: 'string', value: 'N', description: 'channels (default 64)' },
      { name: 'kernel', type: 'string', value: 'K', description: 'taps a convolution (default 3)' },
      { name: 'seq', type: 'string', value: 'N', description: 'bars a chunk (default 512)' },
      { name: 'batch', type: 'string', value: 'N', description: 'chunks a step (default 32)' },
      { name: 'features', type: 'string', value: 'F', description: 'features a bar (default 8)' },
      { name: 'dropout', type: 'string', value: 'X', description: 'dropout (default 0.1)' },
      {
        name: 'sweep',
        type: 'string',
        value: 'chunks=N,…',
        description: 'measure each chunk count (samples/s is the figure to compare)',
      },
      {
        name: 'checkpoint',
        type: 'string',
        value: 'both|on|off',
        description: 'gradient checkpointing modes to measure (default both)',
      },
      {
        name: 'reference',
        type: 'string',
        value: 'R',
        description:
          "auto (default: PyTorch's step on the first shape without checkpointing, one thread, in this run, when python3 has PyTorch; TRADELAB_PYTHON picks the interpreter) or never",
      },
      {
        name: 'backend',
        type: 'string',
        value: 'B',
        description:
          "wasm (default: native kernels), gpu (tradelab's GPU engine) or webgpu (tfjs's ops on a GPU adapter)",
      },
      { name: 'steps', type: 'string', value: 'N', description: 'steps a run (default 5)' },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per figure; the median is reported (default 3)',
      },
    ],
    settings: [],
    examples: [
      'tradelab bench tcn',
      'tradelab bench tcn --sweep chunks=8,16,32,64 --checkpoint off',
      'tradelab bench tcn --layers 12 --hidden 512 --batch 4 --steps 1 --repeat 1',
    ],
    load: () => import('../commands/bench-tcn.js'),
  },
  {
    words: ['bench', 'campaign'],
    summary:
      "FinRL_Crypto's CPCV study (10 assets, 5m, 25,000 bars, 10 splits, 2×512 MLPs) as a tradelab study: trials/hour on 1 worker, workers auto, and with the pruner; the share of the machine's compute limit; with --runs gpu, resident on the GPU engine against the CPU run",
    positionals: [],
    options: [
      {
        name: 'trials',
        type: 'string',
        value: 'N',
        description:
          'trials of each run without pruning (default 4 on 1 worker, 6 on workers auto)',
      },
      {
        name: 'pruned-trials',
        type: 'string',
        value: 'N',
        description: 'trials of the pruned run (default 14; the median pruner waits for 5)',
      },
      {
        name: 'steps',
        type: 'string',
        value: 'N',
        description:
          "env steps per split (default FinRL_Crypto's 15000; less is a quick look, not a measurement)",
      },
      {
        name: 'runs',
        type: 'string',
        value: 'LIST',
        description:
          "which runs: one, auto, pruned (the CPU; the default), gpu (the trials resident on tradelab's engine, as many at once as the planner fits; with auto, their ratio)",
      },
      {
        name: 'gpu-trials',
        type: 'string',
        value: 'N',
        description: 'trials of the gpu run (default 16)',
      },
    ],
    settings: ['profile', 'profilesFile'],
    examples: [
      'tradelab bench campaign',
      'tradelab bench campaign --runs auto,gpu --trials 6 --gpu-trials 32   # GPU against all cores, one run',
      'tradelab bench campaign --runs auto --trials 4 --json',
      'tradelab bench campaign --steps 2000 --trials 2 --runs auto   # a quick look, minutes: no measurement',
    ],
    load: () => import('../commands/bench-campaign.js'),
  },
  {
    words: ['bench', 'tune'],
    summary:
      'benchmark the study engine: trials/s in memory, on SQLite and from worker processes; TPE time per suggestion',
    positionals: [],
    options: [
      {
        name: 'trials',
        type: 'string',
        value: 'N',
        description: 'trials per throughput run (default 500)',
      },
      {
        name: 'processes',
        type: 'string',
        value: 'LIST',
        description: 'worker-process counts on one SQLite file (default 2,8)',
      },
      {
        name: 'history',
        type: 'string',
        value: 'LIST',
        description: 'finished trials behind each TPE suggestion (default 100,1000,2000,10000)',
      },
      {
        name: 'repeat',
        type: 'string',
        value: 'R',
        description: 'runs per measurement; the median is reported (default 3)',
      },
    ],
    settings: [],
    examples: ['tradelab bench tune', 'tradelab bench tune --processes 2 --history 1000 --json'],
    load: () => import('../commands/bench-tune.js'),
  },
  {
    words: ['bench', 'serve'],
    summary:
      "load-test the service: concurrent dashboard readers while a campaign job writes the same SQLite file; latency percentiles, errors, 'database is locked'",
    positionals: [],
    options: [
      {
        name: 'clients',
        type: 'string',
        value: 'N',
        description: 'concurrent clients (default 50)',
      },
      {
        name: 'seconds',
        type: 'string',
        value: 'S',
        description: 'seconds of load (default 20)',
      },
    ],
    settings: [],
    examples: ['tradelab bench serve', 'tradelab bench serve --clients 100 --seconds 60 --json'],
    load: () => import('../commands/bench-serve.js'),
  },
];

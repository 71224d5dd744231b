import type { CommandSpec, OptionSpec } from '../command-spec.js';

/** The workload options of `profiles plan`. */
const PLAN_OPTIONS: readonly OptionSpec[] = [
  { name: 'workload', type: 'string', value: 'W', description: 'drl (default), forecast or tcn' },
  {
    name: 'net-dim',
    type: 'string',
    value: 'N',
    description: 'drl hidden width (default min(1024, profile netDimMax))',
  },
  {
    name: 'layers',
    type: 'string',
    value: 'N',
    description: 'drl hidden layers per network (default 3); tcn residual blocks (default 12)',
  },
  {
    name: 'hidden',
    type: 'string',
    value: 'N',
    description: "tcn channels (default 512, the TCN benchmarks' network (PyTorch original))",
  },
  {
    name: 'kernel',
    type: 'string',
    value: 'K',
    description: 'tcn taps per convolution (default 3)',
  },
  {
    name: 'chunk-len',
    type: 'string',
    value: 'N',
    description: 'tcn bars per chunk (default 512)',
  },
  {
    name: 'no-checkpoint',
    type: 'boolean',
    description: 'tcn without gradient checkpointing (more memory, a little faster)',
  },
  {
    name: 'batch-size',
    type: 'string',
    value: 'B',
    description: "minibatch (chunks for tcn); default: the profile's",
  },
  { name: 'envs', type: 'string', value: 'E', description: 'envs per worker, nEnvs (default 16)' },
  {
    name: 'target-step',
    type: 'string',
    value: 'S',
    description: 'env steps per update (default 2 × batch size)',
  },
  {
    name: 'workers',
    type: 'string',
    value: 'auto|N',
    description: 'check that N workers fit (default auto)',
  },
  { name: 'assets', type: 'string', value: 'A', description: 'assets in the dataset (default 10)' },
  { name: 'features', type: 'string', value: 'F', description: 'features per asset (default 7)' },
  {
    name: 'bars',
    type: 'string',
    value: 'T',
    description: 'bars in the dataset (default 8615: about six months of 30m bars)',
  },
  {
    name: 'lookback',
    type: 'string',
    value: 'L',
    description: 'bars in each observation (default 1)',
  },
  {
    name: 'dtype',
    type: 'string',
    value: 'D',
    description: 'float32 (default), float16 or bfloat16',
  },
  {
    name: 'timeframe',
    type: 'string',
    value: 'TF',
    description: 'forecast: the bars, 1m … 1d (default 1h)',
  },
];

/** Every command. Each module is imported only when its command runs. */

/** Commands for GPU profiles, detection and the memory planner. */
export const PROFILE_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['profiles', 'list'],
    summary: 'list the GPU profiles, built-in and custom',
    positionals: [],
    options: [],
    settings: ['profilesFile'],
    examples: ['tradelab profiles list', 'tradelab profiles list --json'],
    load: () => import('../commands/profiles-list.js'),
  },
  {
    words: ['profiles', 'show'],
    summary:
      'print every field of one profile (default: the one in use, as profiles plan picks it)',
    positionals: [
      {
        name: 'NAME',
        description:
          'profile name or alias (rtx4090, 4090, h100 …); default: the profile in use (--profile, GPU_PROFILE, the config file, else the GPU detected here)',
        required: false,
      },
    ],
    options: [],
    settings: ['profile', 'profilesFile', 'detect', 'detectTimeoutMs'],
    examples: [
      'tradelab profiles show rtx_4090',
      'tradelab profiles show a100_80gb --json',
      'GPU_PROFILE=4090 tradelab profiles show',
    ],
    load: () => import('../commands/profiles-show.js'),
  },
  {
    words: ['profiles', 'detect'],
    summary: 'which GPUs are here, found by which tool, and which profile applies and why',
    positionals: [],
    options: [],
    settings: ['profile', 'profilesFile', 'detectTimeoutMs'],
    examples: ['tradelab profiles detect', 'tradelab profiles detect --json'],
    load: () => import('../commands/profiles-detect.js'),
  },
  {
    words: ['profiles', 'plan'],
    summary: 'how many trial workers fit, with the memory arithmetic shown',
    positionals: [],
    options: PLAN_OPTIONS,
    settings: ['profile', 'profilesFile', 'backend', 'safetyFactor', 'detect', 'detectTimeoutMs'],
    examples: [
      'tradelab profiles plan',
      'tradelab profiles plan --profile rtx_3070 --net-dim 2048 --batch-size 32768',
      'tradelab profiles plan --profile rx_7900_gre --workers 10 --json',
    ],
    load: () => import('../commands/profiles-plan.js'),
  },
];

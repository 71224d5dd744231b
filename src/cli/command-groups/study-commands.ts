import type { CommandSpec } from '../command-spec.js';
import { PROGRESS_INTERVAL_OPTION } from '../progress.js';

/** Commands for hyperparameter studies. */
export const STUDY_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['study', 'create'],
    summary: 'create a hyperparameter study: direction, sampler and pruner, in the study storage',
    positionals: [{ name: 'NAME', description: 'the study name', required: true }],
    options: [
      {
        name: 'direction',
        type: 'string',
        value: 'D',
        description: 'max or min (maximize, minimize) the objective (required)',
      },
      {
        name: 'sampler',
        type: 'string',
        value: 'S',
        description: 'tpe (default), random or grid',
      },
      {
        name: 'sampler-options',
        type: 'string',
        value: 'JSON',
        description: 'sampler options, e.g. \'{"nStartupTrials": 20}\'; grid needs searchSpace',
      },
      {
        name: 'pruner',
        type: 'string',
        value: 'P',
        description: 'median (default), percentile, successive-halving, hyperband or nop',
      },
      {
        name: 'pruner-options',
        type: 'string',
        value: 'JSON',
        description: 'pruner options, e.g. \'{"nStartupTrials": 5}\'; percentile needs percentile',
      },
      {
        name: 'seed',
        type: 'string',
        value: 'N',
        description:
          "the sampler's random seed; a trading study's trials are seeded seed + trial number",
      },
      {
        name: 'load-if-exists',
        type: 'boolean',
        description: 'continue a study of that name (same direction) instead of failing',
      },
      {
        name: 'preset',
        type: 'string',
        value: 'P',
        description:
          'trading study: ensemble_balanced (default), ensemble_aggressive, ensemble_conservative, ft_small, ft_large',
      },
      {
        name: 'data',
        type: 'string',
        value: 'SYM[,SYM]:TF',
        description: 'trading study: the dataset its agents train and test on',
      },
      {
        name: 'features',
        type: 'string',
        value: 'LIST',
        description:
          'trading study: indicator groups the agents see, e.g. logReturns,volatility (default: all)',
      },
      {
        name: 'cv',
        type: 'string',
        value: 'CV',
        description: 'cpcv:N:k (default cpcv:4:2), kfold:K or walk-forward:F',
      },
      {
        name: 'embargo',
        type: 'string',
        value: 'BARS',
        description: 'bars kept out of training after each test range (default 1% of the bars)',
      },
      {
        name: 'holdout',
        type: 'string',
        value: 'H',
        description: 'final holdout: 20% (default), a share, a first bar index, or none',
      },
      {
        name: 'lookback',
        type: 'string',
        value: 'L',
        description: 'bars in each observation (default 1)',
      },
      {
        name: 'policy',
        type: 'string',
        value: 'NET',
        description: 'policy network: mlp (default) or ft_transformer',
      },
      {
        name: 'aggregate',
        type: 'string',
        value: 'A',
        description:
          'trial value from split Sharpe ratios: mean (default), median, mean-std, excess',
      },
      {
        name: 'budget-scale',
        type: 'string',
        value: 'X',
        description: 'factor on breakStep (default: by timeframe, 1h = 1, 5m = 12)',
      },
      {
        name: 'from',
        type: 'string',
        value: 'STUDY',
        description: 'fine-tune (ft_small, ft_large): enqueue its best trials, search around them',
      },
      {
        name: 'file',
        type: 'string',
        value: 'FILE',
        path: true,
        description: 'a study file (YAML/JSON) with any of these settings and parameter overrides',
      },
    ],
    settings: ['storage', 'artifactDir', 'dataDir'],
    examples: [
      'tradelab study create ppo-btc --direction max',
      'tradelab study create btc-bal --preset ensemble_balanced --data BTCUSDT,ETHUSDT:1h --cv cpcv:4:2 --embargo 50 --holdout 20%',
      'tradelab study create btc-ft --preset ft_small --data BTCUSDT,ETHUSDT:1h --from btc-bal',
      'tradelab study create btc-bal --file studies/btc.yaml',
      'tradelab study create ppo-btc --direction max --sampler random --seed 7 --pruner hyperband',
      'tradelab study create sweep --direction min --sampler grid --sampler-options \'{"searchSpace": {"lr": [0.001, 0.01]}}\'',
    ],
    load: () => import('../commands/study-create.js'),
  },
  {
    words: ['study', 'run'],
    summary:
      'run trials of a study in worker processes; Ctrl-C finishes running trials, twice stops them',
    positionals: [{ name: 'NAME', description: 'the study (create it first)', required: true }],
    options: [
      {
        name: 'objective',
        type: 'string',
        value: 'MODULE',
        path: true,
        description:
          "a .js/.mjs file exporting objective(trial) or createObjective(setup), or a registered name (quadratic, drl); default: the study's own (drl for a trading study)",
      },
      {
        name: 'trials',
        type: 'string',
        value: 'N',
        description: 'trials to finish (required unless --timeout)',
      },
      {
        name: 'workers',
        type: 'string',
        value: 'auto|N',
        description: 'worker processes (default auto: what the planner fits, at most --trials)',
      },
      {
        name: 'timeout',
        type: 'string',
        value: 'S',
        description: 'start no trial after S seconds (running ones finish)',
      },
      PROGRESS_INTERVAL_OPTION,
    ],
    settings: [
      'storage',
      'artifactDir',
      'dataDir',
      'profile',
      'profilesFile',
      'backend',
      'safetyFactor',
      'detect',
      'detectTimeoutMs',
    ],
    examples: [
      'tradelab study run ppo-btc --objective ./objective.mjs --trials 100',
      'tradelab study run ppo-btc --objective ./objective.mjs --trials 1000 --workers 4 --timeout 3600',
      '# exit status: 0 done; 130 after Ctrl-C; 143 after SIGTERM (stops running trials at once); 1, 2 errors',
    ],
    load: () => import('../commands/study-run.js'),
  },
  {
    words: ['study', 'list'],
    summary: 'list the studies: direction, trials by state, best value, sampler, created',
    positionals: [],
    options: [],
    settings: ['storage', 'artifactDir'],
    examples: [
      'tradelab study list',
      'tradelab study list --storage postgres://me@db:5432/tradelab',
    ],
    load: () => import('../commands/study-list.js'),
  },
  {
    words: ['study', 'show'],
    summary:
      'a study: trials by state, best trial and params, trials/hour, completion and prune rates; a trading study adds the best trial by split and on the holdout',
    positionals: [{ name: 'NAME', description: 'the study', required: true }],
    options: [
      {
        name: 'no-holdout',
        type: 'boolean',
        description: "trading study: skip evaluating the best trial's model on the holdout",
      },
    ],
    settings: ['storage', 'artifactDir', 'dataDir', 'backend', 'profile'],
    examples: ['tradelab study show ppo-btc', 'tradelab study show ppo-btc --json'],
    load: () => import('../commands/study-show.js'),
  },
  {
    words: ['study', 'pbo'],
    summary:
      "a trading study's probability of backtest overfitting (CSCV) from its trials' out-of-sample returns",
    positionals: [{ name: 'NAME', description: 'the study', required: true }],
    options: [
      {
        name: 'blocks',
        type: 'string',
        value: 'S',
        description:
          'even number of blocks the bars are cut into (default 16, fewer for short data)',
      },
    ],
    settings: ['storage', 'artifactDir'],
    examples: ['tradelab study pbo btc-bal', 'tradelab study pbo btc-bal --blocks 10 --json'],
    load: () => import('../commands/study-pbo.js'),
  },
  {
    words: ['study', 'trials'],
    summary: "a study's trials: number, state, value, params as columns, duration, retries",
    positionals: [{ name: 'NAME', description: 'the study', required: true }],
    options: [
      {
        name: 'csv',
        type: 'boolean',
        description: 'write CSV to stdout (params_NAME columns, raw values, ms, ISO times)',
      },
    ],
    settings: ['storage', 'artifactDir'],
    examples: ['tradelab study trials ppo-btc', 'tradelab study trials ppo-btc --csv > trials.csv'],
    load: () => import('../commands/study-trials.js'),
  },
  {
    words: ['study', 'export'],
    summary: 'copy a study with all its trials and artifacts into another storage',
    positionals: [{ name: 'NAME', description: 'the study', required: true }],
    options: [
      {
        name: 'to',
        type: 'string',
        value: 'URL',
        description:
          'target storage: sqlite:PATH (relative to the project root) or postgres://… (required)',
      },
    ],
    settings: ['storage', 'artifactDir'],
    examples: [
      'tradelab study export ppo-btc --to sqlite:./archive.db',
      'tradelab study export ppo-btc --to postgres://me:secret@db:5432/tradelab',
    ],
    load: () => import('../commands/study-export.js'),
  },
  {
    words: ['study', 'rm'],
    summary: 'remove a study with its trials and artifacts',
    positionals: [{ name: 'NAME', description: 'the study', required: true }],
    options: [
      {
        name: 'force',
        type: 'boolean',
        description: 'remove it even with trials running (by default that is refused)',
      },
    ],
    settings: ['storage', 'artifactDir'],
    examples: ['tradelab study rm ppo-btc'],
    load: () => import('../commands/study-rm.js'),
  },
  {
    words: ['study', 'fail-stale'],
    summary: 'fail running trials whose heartbeat is stale (dead workers) and re-enqueue them',
    positionals: [],
    options: [
      {
        name: 'study',
        type: 'string',
        value: 'NAME',
        description: 'only this study (default all)',
      },
      {
        name: 'grace',
        type: 'string',
        value: 'S',
        description:
          'heartbeat age in seconds that counts as stale (default 60; 0: every running trial)',
      },
      {
        name: 'max-retries',
        type: 'string',
        value: 'N',
        description: 'retry a trial while it has been retried fewer than N times (default 2)',
      },
    ],
    settings: ['storage', 'artifactDir'],
    examples: [
      'tradelab study fail-stale',
      'tradelab study fail-stale --study ppo-btc --grace 300',
    ],
    load: () => import('../commands/study-fail-stale.js'),
  },
];

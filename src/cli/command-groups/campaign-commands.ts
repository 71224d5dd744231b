import type { CommandSpec } from '../command-spec.js';
import { PROGRESS_INTERVAL_OPTION } from '../progress.js';

/** Commands for campaigns: several trading studies run at once by one pool of workers. */
export const CAMPAIGN_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['campaign', 'run'],
    summary:
      'run a campaign file: its studies at once, workers shared by weight; run again to continue',
    positionals: [
      {
        name: 'FILE',
        description: 'the campaign file (YAML or JSON)',
        required: true,
        path: true,
      },
    ],
    options: [
      {
        name: 'workers',
        type: 'string',
        value: 'auto|N',
        description:
          "worker processes (default: the file's workers:, else auto: what the planner fits for the largest trial of any study)",
      },
      {
        name: 'inside-project',
        type: 'boolean',
        description:
          'refuse a campaign file that names a path out of the project (storage: sqlite:PATH, policy: tcn:DIR, a study file); jobs of tradelab serve always run with it',
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
      'tradelab campaign run campaigns/btc-1h.yaml',
      'tradelab campaign run campaigns/btc-1h.yaml --workers 2 --json',
      '# Ctrl-C: running trials finish; twice: they stop (and run again next time). Exit status 130, SIGTERM 143',
    ],
    load: () => import('../commands/campaign-run.js'),
  },
  {
    words: ['campaign', 'status'],
    summary:
      "a campaign's progress per study, from the storage: done/target, states, rate/h, best, ETA",
    positionals: [
      { name: 'NAME', description: "the campaign's name (name: in its file)", required: true },
    ],
    options: [],
    settings: ['storage', 'artifactDir'],
    examples: [
      'tradelab campaign status btc-1h',
      'tradelab campaign status btc-1h --storage postgres://me@db:5432/tradelab --json',
    ],
    load: () => import('../commands/campaign-status.js'),
  },
  {
    words: ['campaign', 'report'],
    summary:
      "the campaign's table: trials by state, rate/h, best value, holdout against buy-and-hold, where trial time goes, a diagnosis",
    positionals: [{ name: 'NAME', description: "the campaign's name", required: true }],
    options: [
      {
        name: 'format',
        type: 'string',
        value: 'F',
        description: 'table (default), md, json or html (one self-contained file with charts)',
      },
      {
        name: 'out',
        type: 'string',
        value: 'FILE',
        path: true,
        description:
          'write the report to FILE instead of printing it (html: default reports/campaign-NAME.html)',
      },
      {
        name: 'no-holdout',
        type: 'boolean',
        description: "skip evaluating each study's best trial on the holdout (faster)",
      },
    ],
    settings: ['storage', 'artifactDir', 'dataDir', 'backend'],
    examples: [
      'tradelab campaign report btc-1h',
      'tradelab campaign report btc-1h --format md > report.md',
      'tradelab campaign report btc-1h --format html --out btc-1h.html',
    ],
    load: () => import('../commands/campaign-report.js'),
  },
  {
    words: ['campaign', 'project'],
    summary:
      'what the campaign would do on another GPU box: workers that fit, trial time, trials/hour and /day, days to finish, cost; each factor with its source',
    positionals: [
      {
        name: 'NAME',
        description: "the campaign's name (it must have run trials)",
        required: true,
      },
    ],
    options: [
      {
        name: 'to',
        type: 'string',
        value: 'PROFILE',
        description: 'the target GPU profile (required)',
      },
      {
        name: 'trials-per-study',
        type: 'string',
        value: 'N',
        description: "trials each study would run (default: each study's target)",
      },
      {
        name: 'cores',
        type: 'string',
        value: 'N',
        description: "the target machine's CPU cores (default: this machine's, as an assumption)",
      },
      {
        name: 'ram-gb',
        type: 'string',
        value: 'G',
        description: "the target machine's RAM in GiB (default: this machine's, as an assumption)",
      },
      {
        name: 'core-speed',
        type: 'string',
        value: 'X',
        description:
          'one target core against one here, measured (e.g. bench ppo-update on both); default 1',
      },
      {
        name: 'validate',
        type: 'string',
        value: 'NAME2',
        description: "a campaign run on the target: prints the projection's error per factor",
      },
      {
        name: 'validate-storage',
        type: 'string',
        value: 'URL',
        description:
          "where --validate's campaign is, when not here (e.g. the target's SQLite file)",
      },
    ],
    settings: ['storage', 'artifactDir', 'profilesFile', 'safetyFactor'],
    examples: [
      'tradelab campaign project btc-1h --to h100 --cores 16 --ram-gb 128',
      'tradelab campaign project btc-1h --to rx_7900_gre --trials-per-study 200',
      'tradelab campaign project btc-1h --to h100 --cores 16 --ram-gb 128 --validate btc-1h-h100',
    ],
    load: () => import('../commands/campaign-project.js'),
  },
];

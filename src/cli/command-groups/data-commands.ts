import type { CommandSpec } from '../command-spec.js';

/** Commands for the dataset store: import, inspect, resample, features, synthetic data. */
export const DATA_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['data', 'import'],
    summary: 'import CSV (generic, Binance, Yahoo; .gz too) or Parquet bars into the dataset store',
    positionals: [
      {
        name: 'FILE',
        description: 'files, directories or globs (relative to the working directory)',
        required: true,
        variadic: true,
        path: true,
      },
    ],
    options: [
      {
        name: 'symbol',
        type: 'string',
        value: 'SYM',
        description: 'the symbol, e.g. BTCUSDT (required)',
      },
      {
        name: 'timeframe',
        type: 'string',
        value: 'TF',
        description:
          'bar timeframe of the files: 1m 5m 15m 30m 1h 4h 1d (required; checked against the data)',
      },
      {
        name: 'format',
        type: 'string',
        value: 'F',
        description: 'auto (default: sniffed and reported), generic, binance, yahoo, parquet',
      },
      {
        name: 'tz',
        type: 'string',
        value: 'ZONE',
        description: 'IANA time zone of zone-less timestamps (default UTC)',
      },
      {
        name: 'adjusted',
        type: 'boolean',
        description: 'use the adjusted close as close and scale OHLC with it (Yahoo)',
      },
      {
        name: 'on-bad',
        type: 'string',
        value: 'P',
        description: 'bad rows: error (default: nothing imported), drop, repair (forward fill)',
      },
      {
        name: 'calendar',
        type: 'string',
        value: 'C',
        description: '24/7 (default; Binance, generic), us-equities (default for Yahoo), fx',
      },
    ],
    settings: ['dataDir'],
    examples: [
      'tradelab data import btc_1m.csv --symbol BTCUSDT --timeframe 1m',
      "tradelab data import 'dumps/BTCUSDT-1m-2024-*.csv.gz' --symbol BTCUSDT --timeframe 1m",
      'tradelab data import SPY.csv --symbol SPY --timeframe 1d --adjusted',
    ],
    load: () => import('../commands/data-import.js'),
  },
  {
    words: ['data', 'list'],
    summary: 'list the datasets in the store',
    positionals: [],
    options: [],
    settings: ['dataDir'],
    examples: ['tradelab data list', 'tradelab data list --json'],
    load: () => import('../commands/data-list.js'),
  },
  {
    words: ['data', 'show'],
    summary: "a dataset's summary and its first and last bars",
    positionals: [{ name: 'SYM:TF', description: 'the dataset, e.g. BTCUSDT:1m', required: true }],
    options: [
      {
        name: 'rows',
        type: 'string',
        value: 'N',
        description: 'bars to show at each end (default 5)',
      },
    ],
    settings: ['dataDir'],
    examples: ['tradelab data show BTCUSDT:1m'],
    load: () => import('../commands/data-show.js'),
  },
  {
    words: ['data', 'rm'],
    summary: 'remove a dataset',
    positionals: [{ name: 'SYM:TF', description: 'the dataset', required: true }],
    options: [],
    settings: ['dataDir'],
    examples: ['tradelab data rm BTCUSDT:1m'],
    load: () => import('../commands/data-rm.js'),
  },
  {
    words: ['data', 'export'],
    summary: 'write a dataset to CSV (.csv, .csv.gz) or Parquet (.parquet)',
    positionals: [{ name: 'SYM:TF', description: 'the dataset', required: true }],
    options: [
      {
        name: 'out',
        type: 'string',
        value: 'FILE',
        path: true,
        description: 'output file; its extension picks the format (relative to the project root)',
      },
      {
        name: 'raw',
        type: 'boolean',
        description: 'for adjusted datasets: the close as imported, not the adjusted one',
      },
    ],
    settings: ['dataDir'],
    examples: ['tradelab data export BTCUSDT:1h --out btc_1h.parquet'],
    load: () => import('../commands/data-export.js'),
  },
  {
    words: ['data', 'resample'],
    summary: 'aggregate a dataset to coarser timeframes (one new dataset each)',
    positionals: [{ name: 'SYM:TF', description: 'the source dataset', required: true }],
    options: [
      {
        name: 'to',
        type: 'string',
        value: 'TF,...',
        description: 'target timeframes, e.g. 5m,15m,30m,1h,4h,1d (required)',
      },
      {
        name: 'daily',
        type: 'string',
        value: 'B',
        description:
          'daily bars end at utc midnight or the session close (default: session, utc for 24/7)',
      },
      {
        name: 'force',
        type: 'boolean',
        description:
          'replace a target dataset of another origin (imported, synthetic, resampled from another)',
      },
    ],
    settings: ['dataDir'],
    examples: ['tradelab data resample BTCUSDT:1m --to 5m,15m,30m,1h,4h,1d'],
    load: () => import('../commands/data-resample.js'),
  },
  {
    words: ['data', 'features'],
    summary:
      'the feature table of aligned symbols: names, warm-up, statistics (--out writes it as CSV)',
    positionals: [
      { name: 'SYM[,SYM]:TF', description: 'one or more symbols at one timeframe', required: true },
    ],
    options: [
      { name: 'rows', type: 'string', value: 'N', description: 'last bars to print (default 3)' },
      {
        name: 'out',
        type: 'string',
        value: 'FILE',
        path: true,
        description: 'write every row as CSV (relative to the project root)',
      },
    ],
    settings: ['dataDir'],
    examples: ['tradelab data features BTCUSDT,ETHUSDT:1h'],
    load: () => import('../commands/data-features.js'),
  },
  {
    words: ['data', 'rv'],
    summary: 'daily realized variance, annualized volatility and the forward RV target',
    positionals: [{ name: 'SYM:TF', description: 'an intraday dataset', required: true }],
    options: [
      {
        name: 'sampling',
        type: 'string',
        value: 'TF',
        description: 'return sampling interval (default 5m; coarser bars are used as they are)',
      },
      {
        name: 'horizon',
        type: 'string',
        value: 'H',
        description: 'forward target horizon in sessions (default 22)',
      },
      { name: 'rows', type: 'string', value: 'N', description: 'last days to print (default 10)' },
      {
        name: 'out',
        type: 'string',
        value: 'FILE',
        path: true,
        description: 'write every day as CSV (relative to the project root)',
      },
    ],
    settings: ['dataDir'],
    examples: [
      'tradelab data rv SPY:5m',
      'tradelab data rv BTCUSDT:1m --sampling 5m --horizon 22 --out btc_rv.csv',
    ],
    load: () => import('../commands/data-rv.js'),
  },
  {
    words: ['data', 'synth'],
    summary:
      'generate correlated synthetic assets (GARCH, fat tails, regimes, optional planted signal) into the store',
    positionals: [],
    options: [
      {
        name: 'symbols',
        type: 'string',
        value: 'N|A,B',
        description: 'how many symbols (SYN0, SYN1, …) or their names (default 3)',
      },
      { name: 'bars', type: 'string', value: 'T', description: 'bars per symbol (default 10000)' },
      { name: 'timeframe', type: 'string', value: 'TF', description: 'bar timeframe (default 1h)' },
      {
        name: 'seed',
        type: 'string',
        value: 'S',
        description: 'random seed: same seed, same bytes (default 1)',
      },
      {
        name: 'signal',
        type: 'string',
        value: 'X',
        description:
          'planted momentum strength, per-bar Sharpe of the ideal strategy (default 0: none)',
      },
      {
        name: 'calendar',
        type: 'string',
        value: 'C',
        description: '24/7 (default), us-equities or fx',
      },
      {
        name: 'start',
        type: 'string',
        value: 'DATE',
        description: 'first bar (default 2020-01-01)',
      },
      {
        name: 'force',
        type: 'boolean',
        description: 'replace datasets of another origin (imported or resampled) of the same names',
      },
    ],
    settings: ['dataDir'],
    examples: [
      'tradelab data synth --symbols 4 --bars 20000 --timeframe 1h --seed 7 --signal 0.05',
    ],
    load: () => import('../commands/data-synth.js'),
  },
];

/**
 * Walk-forward splits: train on a window, test on the bars right after it (past a gap), move both
 * forward by `step`, repeat while the test still fits.
 *
 * Training never reads a test bar without any purging: a training range [a, b) reads bars up to
 * b − 1 (its last fill), and the test starts at b + gap ≥ b. The test's observation windows do read
 * training bars, but those lie in its past. `gap` keeps bars between the two out of both, as an
 * embargo against serial correlation.
 */
import type { EnvRange } from '../env/env-config.js';
import {
  checkInteger,
  cvError,
  splitDomain,
  type CvSplit,
  type CvWindowOptions,
} from './cv-window.js';

/** Options of {@link walkForward}. */
export interface WalkForwardOptions extends CvWindowOptions {
  /** Training bars per fold (the first fold's when `anchored`). At least 2. */
  train: number;
  /** Test bars per fold. At least 2. */
  test: number;
  /** Bars both windows move forward from one fold to the next. Default `test` (tests tile). */
  step?: number;
  /** Bars between a fold's training and test ranges, in neither. Default 0. */
  gap?: number;
  /** Every fold trains from the window's start (an expanding window). Default false (sliding). */
  anchored?: boolean;
  /** Bars in each observation (the env's `lookback`); no range starts before bar lookback − 1. Default 1. */
  lookback?: number;
}

/** The folds of {@link walkForward}, in time order. */
export interface WalkForward {
  /** The bars split: `within`, its start raised to lookback − 1. */
  domain: EnvRange;
  /** One training and one test range per fold. */
  splits: CvSplit[];
}

/** Walk-forward folds over `within` (default all bars): each fold tests the bars after its training. */
export function walkForward(options: WalkForwardOptions): WalkForward {
  const name = 'walkForward';
  const domain = splitDomain(name, options, options.lookback ?? 1);
  const train = checkInteger(name, 'train', options.train, 2);
  const test = checkInteger(name, 'test', options.test, 2);
  const step = checkInteger(name, 'step', options.step ?? test, 1);
  const gap = checkInteger(name, 'gap', options.gap ?? 0, 0);
  const [first, end] = domain;
  const needed = train + gap + test;
  if (needed > end - first)
    throw cvError(
      name,
      `one fold needs train ${train} + gap ${gap} + test ${test} = ${needed} bars, but [${first}, ${end}) has ${end - first}`,
      'shorten train, test or gap, or split more bars',
    );
  const splits: CvSplit[] = [];
  for (let offset = 0; first + offset + needed <= end; offset += step) {
    const trainEnd = first + offset + train;
    const testStart = trainEnd + gap;
    splits.push({
      train: [[options.anchored === true ? first : first + offset, trainEnd]],
      test: [[testStart, testStart + test]],
    });
  }
  return { domain, splits };
}

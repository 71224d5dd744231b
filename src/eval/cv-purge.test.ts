import { describe, expect, it } from 'vitest';
import { exclusionZone, trainingRuns } from './cv-purge.js';

describe('exclusionZone', () => {
  it('runs from the test start to lookback − 1 + embargo bars past the test end', () => {
    // Transition 29 (window [25, 29], reward 29→30) is the first one after the test; then 3 embargoed.
    expect(exclusionZone([10, 20], 10, 3)).toEqual([10, 32]);
    // lookback 1: the window is the bar itself, so only the embargo follows the test.
    expect(exclusionZone([10, 20], 1, 0)).toEqual([10, 20]);
  });
});

describe('trainingRuns', () => {
  const options = { lookback: 5, embargo: 2, minTrainBars: 2 };

  it('ends a run at a test start and resumes it after purge and embargo', () => {
    const runs = trainingRuns(
      [4, 100],
      [
        [30, 40],
        [60, 70],
      ],
      options,
    );
    // 40 + 5 − 1 + 2 = 46; 70 + 6 = 76.
    expect(runs).toEqual({
      train: [
        [4, 30],
        [46, 60],
        [76, 100],
      ],
      dropped: [],
    });
  });

  it('takes the tests in any order', () => {
    const runs = trainingRuns(
      [4, 100],
      [
        [60, 70],
        [30, 40],
      ],
      options,
    );
    expect(runs.train).toEqual([
      [4, 30],
      [46, 60],
      [76, 100],
    ]);
  });

  it('merges the zones of adjacent tests instead of training between them', () => {
    const runs = trainingRuns(
      [0, 100],
      [
        [30, 40],
        [40, 50],
      ],
      { ...options, embargo: 0 },
    );
    expect(runs.train).toEqual([
      [0, 30],
      [54, 100],
    ]);
  });

  it('clips the zone of a test at the domain end', () => {
    expect(trainingRuns([0, 50], [[40, 50]], options).train).toEqual([[0, 40]]);
  });

  it('reports runs shorter than minTrainBars as dropped', () => {
    // Zones [10, 12) and [13, 21) leave the 1-bar run [12, 13).
    const runs = trainingRuns(
      [0, 50],
      [
        [10, 11],
        [13, 20],
      ],
      { ...options, lookback: 1, embargo: 1 },
    );
    expect(runs).toEqual({
      train: [
        [0, 10],
        [21, 50],
      ],
      dropped: [[12, 13]],
    });
    const strict = trainingRuns([0, 50], [[10, 20]], { lookback: 1, embargo: 0, minTrainBars: 11 });
    expect(strict).toEqual({ train: [[20, 50]], dropped: [[0, 10]] });
  });

  it('leaves nothing when the zones cover the domain', () => {
    expect(trainingRuns([0, 20], [[0, 10]], { ...options, embargo: 20 })).toEqual({
      train: [],
      dropped: [],
    });
  });
});

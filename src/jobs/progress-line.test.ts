import { describe, expect, it } from 'vitest';
import { parseProgressLine } from './progress-line.js';

describe('parseProgressLine', () => {
  it('reads the percentage of the plain progress lines of train, pretrain, study and campaign runs', () => {
    expect(parseProgressLine('progress: 42% (12/28 updates), 3.1 updates/s, ETA 5 s', 7)).toEqual({
      percent: 42,
      text: '42% (12/28 updates), 3.1 updates/s, ETA 5 s',
      at: 7,
    });
    expect(
      parseProgressLine('progress: 3/10 trials done (30%): 3 complete, 0 pruned', 1)?.percent,
    ).toBe(30);
    expect(parseProgressLine('progress: 5 trials done: 5 complete', 1)?.percent).toBeNull();
  });

  it('ignores every other line', () => {
    expect(parseProgressLine('GPU: using profile …', 1)).toBeUndefined();
    expect(parseProgressLine('  progress: 5%', 1)).toBeUndefined();
  });
});

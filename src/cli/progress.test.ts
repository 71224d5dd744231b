import { describe, expect, it } from 'vitest';
import { createProgress, etaSeconds, formatDuration, formatRate } from './progress.js';

function terminal(isTTY: boolean): {
  isTTY: boolean;
  columns: number;
  text: string;
  write(s: string): void;
} {
  return {
    isTTY,
    columns: 120,
    text: '',
    write(s: string) {
      this.text += s;
    },
  };
}

describe('createProgress', () => {
  it('draws a bar with the percentage, rate and ETA on a terminal, and clears it', () => {
    const stream = terminal(true);
    const progress = createProgress({ total: 200, unit: 'rows', stream });
    progress.update(200, 'file.csv');
    expect(stream.text).toMatch(/^\r\[#{24}\] 100% [\d,]+ rows\/s ETA 0 s file\.csv/);
    progress.done();
    expect(stream.text.endsWith('\r')).toBe(true);
  });

  it('says a slow rate as the time per item, in the singular of the unit', () => {
    const stream = terminal(true);
    let now = 0;
    const progress = createProgress({ total: 10, unit: 'trials', stream, now: () => now });
    now = 74_000;
    progress.update(1);
    expect(stream.text).toContain('10% 1 min 14 s/trial ETA 11 min 06 s');
  });

  it('draws nothing when the stream is not a terminal (logs stay clean)', () => {
    const stream = terminal(false);
    const progress = createProgress({ total: 10, unit: 'rows', stream });
    progress.update(5);
    progress.done();
    expect(stream.text).toBe('');
  });
});

describe('etaSeconds', () => {
  it('extrapolates the time left from the fraction of the work done, unknown before any', () => {
    expect(etaSeconds(0.25, 60)).toBe(180);
    expect(etaSeconds(1, 60)).toBe(0);
    expect(etaSeconds(0, 60)).toBeNaN();
    expect(etaSeconds(0.5, 0)).toBeNaN();
  });
});

describe('formatDuration', () => {
  it('words seconds, minutes and hours, and ? for unknown', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(44.2)).toBe('45 s');
    expect(formatDuration(74)).toBe('1 min 14 s');
    expect(formatDuration(3 * 3600 + 5 * 60)).toBe('3 h 05 min');
    expect(formatDuration(Number.NaN)).toBe('?');
  });
});

describe('formatRate', () => {
  it('says a slow rate as the time per item, never "0 trials/s"', () => {
    expect(formatRate(1 / 74, 'trials', 'trial')).toBe('1 min 14 s/trial');
    expect(formatRate(0.5, 'trials', 'trial')).toBe('2 s/trial');
    expect(formatRate(2.5, 'trials', 'trial')).toBe('2.5 trials/s');
    expect(formatRate(12_345.6, 'steps', 'step')).toBe('12,346 steps/s');
    expect(formatRate(0, 'trials', 'trial')).toBe('? s/trial');
  });
});

describe('createProgress when not on a terminal, with plain lines', () => {
  it('writes a plain line (no carriage return) at the first update, then at most every interval, and at the end', () => {
    const stream = terminal(false);
    let now = 0;
    const progress = createProgress({
      total: 1000,
      unit: 'steps',
      one: 'step',
      stream,
      plainIntervalS: 30,
      now: () => now,
    });
    now = 10_000;
    progress.update(100, 'update 1/10');
    now = 20_000;
    progress.update(200, 'update 2/10');
    now = 41_000;
    progress.update(400, 'update 4/10');
    now = 50_000;
    progress.update(1000, 'update 10/10');
    progress.done();
    expect(stream.text).not.toContain('\r');
    expect(stream.text.split('\n')).toEqual([
      'progress: 10% (100/1,000 steps), 10 steps/s, ETA 1 min 30 s, update 1/10',
      'progress: 40% (400/1,000 steps), 9.76 steps/s, ETA 1 min 02 s, update 4/10',
      'progress: 100% (1,000/1,000 steps), 20 steps/s, ETA 0 s, update 10/10',
      '',
    ]);
  });
});

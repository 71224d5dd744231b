import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.js';

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

  it('draws nothing when the stream is not a terminal (logs stay clean)', () => {
    const stream = terminal(false);
    const progress = createProgress({ total: 10, unit: 'rows', stream });
    progress.update(5);
    progress.done();
    expect(stream.text).toBe('');
  });
});

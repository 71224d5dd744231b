import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { calendarFor } from '../calendar.js';
import type { Timeframe } from '../timeframe.js';
import { cleanBars, findGaps, type CleanOptions } from './clean-bars.js';
import { parseBarsCsv, type ParsedRows } from './parse-bars-csv.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2024, 0, 1);
const HEADER = 'timestamp,open,high,low,close,volume';
const crypto = calendarFor('24/7');
const equities = calendarFor('us-equities');

/** A CSV row: epoch seconds and the five values as written. */
const row = (
  t: number,
  o: number | string,
  h: number | string,
  l: number | string,
  c: number | string,
  v: number | string,
): string => `${t / 1000},${o},${h},${l},${c},${v}`;
/** A valid bar at `t` around `price`. */
const good = (t: number, price = 100, volume = 10): string =>
  row(t, price, price + 1, price - 1, price + 0.5, volume);
/** Parses a generic CSV made of `rows`. */
const csv = (file: string, rows: readonly string[]): ParsedRows =>
  parseBarsCsv(file, new TextEncoder().encode(`${HEADER}\n${rows.join('\n')}\n`), 'generic');
/** `n` valid bars `step` apart from `start`. */
const series = (start: number, n: number, step = MIN): string[] =>
  Array.from({ length: n }, (_, i) => good(start + i * step, 100 + i));
const options = (timeframe: Timeframe = '1m', extra: Partial<CleanOptions> = {}): CleanOptions => ({
  timeframe,
  calendar: crypto,
  ...extra,
});

describe('cleanBars: clean input', () => {
  it('passes valid rows through and reports nothing to do', () => {
    const { bars, report } = cleanBars([csv('a.csv', series(T0, 5))], options());
    expect([...bars.timestamps]).toEqual([0, 1, 2, 3, 4].map((i) => T0 + i * MIN));
    expect([...bars.close]).toEqual([100.5, 101.5, 102.5, 103.5, 104.5]);
    expect(report).toMatchObject({
      rowsRead: 5,
      existingRows: 0,
      dropped: 0,
      repaired: 0,
      clamped: 0,
      duplicatesMerged: 0,
      outOfOrder: 0,
      rows: 5,
      firstMs: T0,
      lastMs: T0 + 4 * MIN,
      spacing: { commonMs: MIN, share: 1 },
      gaps: { unexpected: 0, missingBars: 0, closures: 0 },
    });
  });
});

describe('cleanBars: value problems', () => {
  const cases = [
    [
      'non-positive price',
      row(T0 + MIN, 0, 102, 100, 101, 12),
      'non-positive price (open 0, high 102, low 100, close 101)',
    ],
    [
      'high below open/close',
      row(T0 + MIN, 100.5, 100.8, 100, 101, 12),
      'high 100.8 is below max(open 100.5, close 101)',
    ],
    [
      'low above open/close',
      row(T0 + MIN, 100.5, 102, 100.7, 101, 12),
      'low 100.7 is above min(open 100.5, close 101)',
    ],
    ['negative volume', row(T0 + MIN, 100.5, 102, 100, 101, -12), 'negative volume -12'],
  ] as const;

  it.each(cases)('fails on %s (default policy), naming file and line', (kind, bad, text) => {
    const files = [csv('bad.csv', [good(T0), bad, good(T0 + 2 * MIN), good(T0 + 3 * MIN)])];
    const error = errorOf(() => cleanBars(files, options()));
    expect(error.code).toBe('DATA_INVALID');
    const [first, example, ...rest] = error.message.split('\n');
    expect(first).toBe('1 bad value in the input:');
    expect(example).toMatch(/^ {2}bad\.csv:3[:\s]/);
    expect(example).toContain(text);
    expect(rest).toEqual([]);
    expect(error.hint).toContain('--on-bad drop');
    expect(error.hint).toContain('nothing was imported');
    expect((error.details?.valueProblems as Record<string, number>)[kind]).toBe(1);
  });

  it.each(cases)('drops the row with %s under --on-bad drop', (kind, bad) => {
    const { bars, report } = cleanBars(
      [csv('bad.csv', [good(T0), bad, good(T0 + 2 * MIN), good(T0 + 3 * MIN)])],
      options('1m', { onBad: 'drop' }),
    );
    expect(report.valueProblems[kind]).toBe(1);
    expect(report.dropped).toBe(1);
    expect([...bars.timestamps]).toEqual([T0, T0 + 2 * MIN, T0 + 3 * MIN]);
  });

  it('locates value problems by column too, as it does field problems', () => {
    const files = [
      csv('bad.csv', [
        good(T0),
        row(T0 + MIN, 0, 102, 100, 101, 12), // open (column 2) is not positive
        row(T0 + 2 * MIN, 100.5, 100.8, 100, 101, 12), // high (column 3) too low
        row(T0 + 3 * MIN, 100.5, 102, 100.7, 101, 12), // low (column 4) too high
        row(T0 + 4 * MIN, 100.5, 102, 100, 101, -12), // volume (column 6) negative
      ]),
    ];
    const message = errorOf(() => cleanBars(files, options())).message;
    expect(message).toMatch(/bad\.csv:3:2\b/);
    expect(message).toMatch(/bad\.csv:4:3\b/);
    expect(message).toMatch(/bad\.csv:5:4\b/);
    expect(message).toMatch(/bad\.csv:6:6\b/);
  });

  it('lists field problems with file:line:column and counts what it does not show', () => {
    const rows = [good(T0)];
    for (let i = 1; i <= 15; i++) rows.push(row(T0 + i * MIN, 100, 'x', 99, 100.5, 10));
    const error = errorOf(() => cleanBars([csv('many.csv', rows)], options()));
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('15 bad values in the input:');
    expect(lines[1]).toBe('  many.csv:3:3 (high): "x" is not a number');
    expect(lines).toHaveLength(1 + 12 + 1);
    expect(lines.at(-1)).toBe('  … and 3 more');
  });
});

describe('cleanBars: policies', () => {
  const messy = (): ParsedRows[] => [
    csv('m.csv', [
      row(T0, 100, 101, 99, 100.5, 10), // line 2: fine
      row(T0 + MIN, 100.5, 'x', 100, 101, 12), // 3: unparsable high
      row(T0 + 2 * MIN, 0, 101.5, 100.2, 100.8, -9), // 4: open 0 and negative volume
      row(T0 + 3 * MIN, 100.8, 100.9, 100, 101, 7), // 5: high below close
      row(T0 + 4 * MIN, 100.8, 101.2, 100.9, 101, 7), // 6: low above open
      row(T0 + 5 * MIN, 101, 102, 100, 101.5, 8), // 7: fine
      `2024-01-01T00:0X:00Z,100,101,99,100.5,10`, // 8: bad timestamp
      row(T0 + 6 * MIN, 101.5, 102, 101, 101.8, 9), // 9: fine
    ]),
  ];

  it('error: lists every problem with its file and line, imports nothing', () => {
    const lines = errorOf(() => cleanBars(messy(), options())).message.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '6 bad values in the input:',
      '  m.csv:3:3 (high): "x" is not a number',
      '  m.csv:8:1 (timestamp): timestamp "2024-01-01T00:0X:00Z" is not an ISO-8601 date-time or an epoch number',
    ]);
    const valueLines = lines.slice(3);
    expect(valueLines).toHaveLength(4);
    [
      ['m.csv:4', 'non-positive price (open 0, high 101.5, low 100.2, close 100.8)'],
      ['m.csv:4', 'negative volume -9'],
      ['m.csv:5', 'high 100.9 is below max(open 100.8, close 101)'],
      ['m.csv:6', 'low 100.9 is above min(open 100.8, close 101)'],
    ].forEach(([where = '', what = ''], i) => {
      expect(valueLines[i]).toMatch(new RegExp(`^  ${where.replace('.', '\\.')}[:\\s]`));
      expect(valueLines[i]).toContain(what);
    });
  });

  it('drop: skips bad rows and counts them', () => {
    const { bars, report } = cleanBars(messy(), options('1m', { onBad: 'drop' }));
    expect([...bars.timestamps]).toEqual([T0, T0 + 5 * MIN, T0 + 6 * MIN]);
    expect(report).toMatchObject({ policy: 'drop', dropped: 5, repaired: 0, clamped: 0, rows: 3 });
    expect(report.fieldProblems).toMatchObject({ unparsable: 1, timestamp: 1 });
    expect(report.valueProblems).toEqual({
      'non-positive price': 1,
      'high below open/close': 1,
      'low above open/close': 1,
      'negative volume': 1,
    });
    expect(report.gaps).toMatchObject({ unexpected: 1, missingBars: 4 });
  });

  it('repair: forward-fills bad fields from the previous bar and clamps high/low', () => {
    const { bars, report } = cleanBars(messy(), options('1m', { onBad: 'repair' }));
    expect(report).toMatchObject({
      policy: 'repair',
      repaired: 3,
      clamped: 2,
      dropped: 1,
      rows: 7,
    });
    expect([...bars.timestamps]).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => T0 + i * MIN));
    // Line 3: high was unreadable: max(open, close).
    expect([bars.open[1], bars.high[1], bars.low[1], bars.close[1]]).toEqual([
      100.5, 101, 100, 101,
    ]);
    // Line 4: open from the previous close, volume from the previous volume.
    expect([bars.open[2], bars.volume[2]]).toEqual([101, 12]);
    // Lines 5 and 6: high raised to the close, low lowered to the open.
    expect(bars.high[3]).toBe(101);
    expect(bars.low[4]).toBe(100.8);
    for (let i = 0; i < 7; i++) {
      const o = bars.open[i] ?? 0;
      const c = bars.close[i] ?? 0;
      expect(bars.high[i]).toBeGreaterThanOrEqual(Math.max(o, c));
      expect(bars.low[i]).toBeLessThanOrEqual(Math.min(o, c));
      expect(bars.volume[i]).toBeGreaterThanOrEqual(0);
    }
  });

  it('repair: a bad first row has nothing to fill from and is dropped', () => {
    const { bars, report } = cleanBars(
      [csv('f.csv', [row(T0, 100, 101, 99, 'nan', 1), good(T0 + MIN), good(T0 + 2 * MIN)])],
      options('1m', { onBad: 'repair' }),
    );
    expect(report.dropped).toBe(1);
    expect(report.repaired).toBe(0);
    expect([...bars.timestamps]).toEqual([T0 + MIN, T0 + 2 * MIN]);
  });
});

describe('cleanBars: duplicates and order', () => {
  it('merges identical duplicate rows and counts them', () => {
    const { bars, report } = cleanBars(
      [
        csv('d.csv', [
          good(T0),
          good(T0 + MIN, 101),
          good(T0 + MIN, 101),
          good(T0 + 2 * MIN, 102),
          good(T0 + MIN, 101),
        ]),
      ],
      options(),
    );
    expect(report.duplicatesMerged).toBe(2);
    expect(report.rows).toBe(3);
    expect([...bars.timestamps]).toEqual([T0, T0 + MIN, T0 + 2 * MIN]);
  });

  it('rejects conflicting duplicates, naming both locations', () => {
    const a = csv('a.csv', [good(T0), good(T0 + MIN, 101), good(T0 + 2 * MIN)]);
    const b = csv('b.csv', [good(T0 + 2 * MIN), row(T0 + 3 * MIN, 1, 2, 0.5, 1.5, 1)]);
    const c = csv('c.csv', [row(T0 + MIN, 101, 102, 100, 101.75, 10)]);
    const error = errorOf(() => cleanBars([a, b, c], options()));
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toBe(
      '1 conflicting duplicate timestamp (same time, different values):\n' +
        '  2024-01-01T00:01:00.000Z: a.csv:3 has close 101.5, c.csv:2 has close 101.75',
    );
    expect(error.hint).toContain('nothing was imported');
  });

  it('treats rows that differ in volume only as a conflict', () => {
    const error = errorOf(() =>
      cleanBars([csv('v.csv', [good(T0, 100, 10), good(T0, 100, 11)])], options()),
    );
    expect(error.message).toContain('v.csv:2 has close 100.5, v.csv:3 has close 100.5');
  });

  it('sorts out-of-order rows and counts them', () => {
    const rows = series(T0, 6);
    const swapped = [rows[0], rows[2], rows[1], rows[3], rows[5], rows[4]].map((r) => r ?? '');
    const { bars, report } = cleanBars([csv('o.csv', swapped)], options());
    expect(report.outOfOrder).toBe(2);
    expect([...bars.timestamps]).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * MIN));
    expect([...bars.close]).toEqual([100.5, 101.5, 102.5, 103.5, 104.5, 105.5]);
  });

  it('concatenates files in time order whatever order they are given in', () => {
    const jan = csv('jan.csv', series(T0, 3));
    const feb = csv('feb.csv', series(T0 + 3 * MIN, 3));
    const { bars, report } = cleanBars([feb, jan], options());
    expect(report.outOfOrder).toBe(0);
    expect(report.rows).toBe(6);
    expect([...bars.timestamps]).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * MIN));
  });
});

describe('cleanBars: merging with existing bars', () => {
  const existing = cleanBars([csv('old.csv', series(T0, 5))], options()).bars;

  it('adds new bars and merges the ones already there', () => {
    const update = csv('new.csv', [
      good(T0 + 3 * MIN, 103),
      good(T0 + 4 * MIN, 104),
      good(T0 + 5 * MIN, 105),
    ]);
    const { bars, report } = cleanBars([update], options('1m', { existing }));
    expect(report).toMatchObject({ existingRows: 5, rowsRead: 3, duplicatesMerged: 2, rows: 6 });
    expect([...bars.timestamps]).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * MIN));
    expect([...bars.close]).toEqual([100.5, 101.5, 102.5, 103.5, 104.5, 105.5]);
  });

  it('rejects a new row that contradicts a stored bar', () => {
    const update = csv('new.csv', [good(T0 + 4 * MIN, 99)]);
    const error = errorOf(() => cleanBars([update], options('1m', { existing })));
    expect(error.message).toContain('existing dataset has close 104.5, new.csv:2 has close 99.5');
  });

  it('puts earlier new bars before the stored ones, without calling them out of order', () => {
    const earlier = csv('earlier.csv', series(T0 - 5 * MIN, 5));
    const { bars, report } = cleanBars([earlier], options('1m', { existing }));
    expect([...bars.timestamps]).toEqual(Array.from({ length: 10 }, (_, i) => T0 + (i - 5) * MIN));
    // The file itself is in order: nothing in the input came before an earlier row.
    expect(report.outOfOrder).toBe(0);
  });
});

describe('cleanBars: the timeframe is checked against the data', () => {
  it('rejects 1m data declared as 1h, suggesting 1m', () => {
    const error = errorOf(() => cleanBars([csv('m.csv', series(T0, 30))], options('1h')));
    expect(error.message).toBe(
      '29 of 29 bars are closer than 1h to the previous one (the closest 1m apart, first at 2024-01-01T00:01:00.000Z)',
    );
    expect(error.hint).toBe(
      'this looks like 1m data: import it with --timeframe 1m, then `tradelab data resample`',
    );
  });

  it('rejects 5m data declared as 1h, suggesting 5m', () => {
    const error = errorOf(() => cleanBars([csv('m.csv', series(T0, 30, 5 * MIN))], options('1h')));
    expect(error.message).toContain('closer than 1h');
    expect(error.hint).toContain('--timeframe 5m');
  });

  it('rejects 1h data declared as 5m: no two bars are 5m apart', () => {
    const error = errorOf(() => cleanBars([csv('h.csv', series(T0, 10, HOUR))], options('5m')));
    expect(error.message).toBe(
      'no two bars are 5m apart: the closest are 1h apart (the most common spacing is 1h, 100 % of bars)',
    );
    expect(error.hint).toContain('--timeframe 1h');
  });

  it('accepts the declared timeframe with holes in the data', () => {
    const rows = series(T0, 20, HOUR).filter((_, i) => i % 4 !== 1);
    const { report } = cleanBars([csv('h.csv', rows)], options('1h'));
    expect(report.spacing).toEqual({ commonMs: HOUR, share: 9 / 14 });
    expect(report.gaps).toMatchObject({ unexpected: 5, missingBars: 5 });
  });
});

describe('cleanBars and findGaps: gaps', () => {
  it('counts a hole in 24/7 data as missing, with the largest gap', () => {
    const rows = [...series(T0, 10), ...series(T0 + 13 * MIN, 2), ...series(T0 + 25 * MIN, 3)];
    const { report } = cleanBars([csv('g.csv', rows)], options());
    expect(report.gaps).toEqual({
      unexpected: 2,
      missingBars: 3 + 10,
      largest: { missingBars: 10, fromMs: T0 + 14 * MIN, toMs: T0 + 25 * MIN },
      closures: 0,
    });
  });

  /** 30-minute bars of one NYSE session (09:30–15:30 New York; January: UTC-5). */
  const session = (y: number, m: number, d: number): string[] =>
    series(Date.UTC(y, m - 1, d, 14, 30), 13, 30 * MIN);

  it('counts nights and weekends of a session market as closures, not missing data', () => {
    // Thursday, Friday, then Monday 2024-01-08.
    const rows = [...session(2024, 1, 4), ...session(2024, 1, 5), ...session(2024, 1, 8)];
    const { report } = cleanBars([csv('spy.csv', rows)], options('30m', { calendar: equities }));
    expect(report.gaps).toEqual({ unexpected: 0, missingBars: 0, largest: undefined, closures: 2 });
  });

  it('counts a missing trading day as missing, and a holiday as a closure', () => {
    // Daily bars: Thu 2024-01-11, Fri 01-12, Tue 01-16 (Monday was MLK day), Thu 01-18 (Wednesday missing).
    const days = [11, 12, 16, 18].map((d) => Date.UTC(2024, 0, d));
    const { report } = cleanBars(
      [
        csv(
          'spy.csv',
          days.map((t) => good(t)),
        ),
      ],
      options('1d', { calendar: equities }),
    );
    expect(report.gaps).toEqual({
      unexpected: 1,
      missingBars: 1,
      largest: { missingBars: 1, fromMs: days[2], toMs: days[3] },
      closures: 1,
    });
  });

  it('counts a missing hour inside a session as missing', () => {
    const rows = session(2024, 1, 4).filter((_, i) => i !== 5 && i !== 6);
    const { report } = cleanBars([csv('spy.csv', rows)], options('30m', { calendar: equities }));
    expect(report.gaps).toMatchObject({ unexpected: 1, missingBars: 2, closures: 0 });
  });

  it('reports nothing for adjacent bars', () => {
    const bars = cleanBars([csv('a.csv', series(T0, 3, DAY))], options('1d')).bars;
    expect(findGaps(bars, DAY, crypto)).toEqual({
      unexpected: 0,
      missingBars: 0,
      largest: undefined,
      closures: 0,
    });
  });
});

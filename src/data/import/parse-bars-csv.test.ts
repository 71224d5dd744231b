import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { FIELD_BITS, parseBarsCsv, sniffCsvFormat, type ParsedRows } from './parse-bars-csv.js';
import { zoneOffsetFor } from './parse-timestamp.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const iso = (rows: ParsedRows): string[] =>
  [...rows.timestamps].map((t) => (Number.isNaN(t) ? 'NaN' : new Date(t).toISOString()));
/** The problems as `line:column name kind "text"`, for readable comparisons. */
const located = (rows: ParsedRows): string[] =>
  rows.problems.map(
    (p) => `${p.file}:${p.line}:${p.column} ${p.columnName} ${p.kind} ${JSON.stringify(p.text)}`,
  );

const HEADER = 'timestamp,open,high,low,close,volume';
const JAN1 = Date.UTC(2024, 0, 1);

/** A Binance kline row (12 columns) opening at `open` in the unit the file uses. */
function binanceRow(open: number, unit: 1 | 1000, price: number): string {
  const close = open + 59_999 * unit + (unit - 1);
  return `${open},${price},${price + 1},${price - 1},${price + 0.5},1.5,${close},150.2,42,0.7,70.1,0`;
}

describe('sniffCsvFormat', () => {
  it('recognises a generic header in any order and case', () => {
    expect(sniffCsvFormat(bytes('Volume,CLOSE,Low,high,Open,TimeStamp\n1,2,3,4,5,6\n'))).toEqual({
      format: 'generic',
      reason: 'header with volume, close, low, high, open, timestamp',
    });
    expect(sniffCsvFormat(bytes('Date,Time,Open,High,Low,Close,Volume\n'))?.format).toBe('generic');
  });

  it('recognises Binance klines without a header, open time in ms or µs', () => {
    const ms = sniffCsvFormat(bytes(`${binanceRow(1704067200000, 1, 100)}\n`));
    expect(ms?.format).toBe('binance');
    expect(ms?.reason).toContain('1704067200000');
    expect(sniffCsvFormat(bytes(`${binanceRow(1735689600000000, 1000, 100)}\n`))?.format).toBe(
      'binance',
    );
  });

  it("recognises Binance klines with Binance's header", () => {
    const header =
      'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';
    expect(sniffCsvFormat(bytes(`${header}\n${binanceRow(1704067200000, 1, 1)}\n`))).toEqual({
      format: 'binance',
      reason: "12 columns with Binance's header (open_time, …)",
    });
  });

  it('recognises Yahoo Finance by Date and Adj Close', () => {
    expect(sniffCsvFormat(bytes('Date,Open,High,Low,Close,Adj Close,Volume\r\n'))?.format).toBe(
      'yahoo',
    );
  });

  it('skips leading blank lines and a byte order mark', () => {
    expect(sniffCsvFormat(bytes(`\uFEFF\n\n${HEADER}\n`))?.format).toBe('generic');
  });

  it('gives up on what it cannot tell (no header, unknown columns, nothing)', () => {
    expect(sniffCsvFormat(bytes('2024-01-01,1,2,0.5,1.5,10\n'))).toBeUndefined();
    expect(sniffCsvFormat(bytes('foo,bar\n1,2\n'))).toBeUndefined();
    expect(sniffCsvFormat(bytes('\n\n'))).toBeUndefined();
    // Twelve numeric columns whose first field is not an epoch time are not Binance.
    expect(sniffCsvFormat(bytes('1,2,3,4,5,6,7,8,9,10,11,12\n'))).toBeUndefined();
  });
});

describe('parseBarsCsv: formats', () => {
  it('reads a generic CSV with columns in any order and case', () => {
    const rows = parseBarsCsv(
      'g.csv',
      bytes(
        'Volume,Close,LOW,High,open,Timestamp\n' +
          '10,100.5,99,101,100,2024-01-01T00:00:00Z\n' +
          '12,101,100,102,100.5,2024-01-01T00:01:00Z\n',
      ),
      'generic',
    );
    expect(rows.format).toBe('generic');
    expect(iso(rows)).toEqual(['2024-01-01T00:00:00.000Z', '2024-01-01T00:01:00.000Z']);
    expect([...rows.open]).toEqual([100, 100.5]);
    expect([...rows.high]).toEqual([101, 102]);
    expect([...rows.low]).toEqual([99, 100]);
    expect([...rows.close]).toEqual([100.5, 101]);
    expect([...rows.volume]).toEqual([10, 12]);
    expect(rows.adjClose).toBeUndefined();
    expect([...rows.lines]).toEqual([2, 3]);
    expect([...rows.badFields]).toEqual([0, 0]);
    expect(rows.problems).toEqual([]);
  });

  it('reads Binance klines with open times in milliseconds', () => {
    const text = [0, 1, 2].map((i) => binanceRow(1704067200000 + i * 60_000, 1, 100 + i));
    const rows = parseBarsCsv('b.csv', bytes(`${text.join('\n')}\n`), 'binance');
    expect(iso(rows)).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-01T00:01:00.000Z',
      '2024-01-01T00:02:00.000Z',
    ]);
    expect([...rows.close]).toEqual([100.5, 101.5, 102.5]);
    expect([...rows.volume]).toEqual([1.5, 1.5, 1.5]);
    expect([...rows.lines]).toEqual([1, 2, 3]);
    expect(rows.notes).toContain('timestamps: milliseconds since the epoch');
  });

  it('reads Binance klines with open times in microseconds (2025 on)', () => {
    const text = [0, 1].map((i) => binanceRow(1735689600000000 + i * 60_000_000, 1000, 90_000));
    const rows = parseBarsCsv('b.csv', bytes(`${text.join('\n')}\n`), 'binance');
    expect([...rows.timestamps]).toEqual([1735689600000, 1735689660000]);
    expect(iso(rows)[0]).toBe('2025-01-01T00:00:00.000Z');
    expect(rows.notes).toContain('timestamps: microseconds since the epoch');
    expect(rows.problems).toEqual([]);
  });

  it("skips Binance's header row when there is one", () => {
    const header =
      'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';
    const rows = parseBarsCsv(
      'b.csv',
      bytes(`${header}\n${binanceRow(1704067200000, 1, 7)}\n`),
      'binance',
    );
    expect([...rows.timestamps]).toEqual([1704067200000]);
    expect([...rows.open]).toEqual([7]);
    expect([...rows.lines]).toEqual([2]);
  });

  it('reads Yahoo files with Adj Close, dates at midnight UTC, and flags the nulls Yahoo writes', () => {
    const rows = parseBarsCsv(
      'SPY.csv',
      bytes(
        'Date,Open,High,Low,Close,Adj Close,Volume\n' +
          '2024-01-02,472.16,473.67,470.49,472.65,465.00,123623700\n' +
          '2024-01-03,null,null,null,null,null,null\n' +
          '2024-01-04,468.30,470.96,467.05,467.28,459.72,84232200\n',
      ),
      'yahoo',
    );
    expect(iso(rows)).toEqual([
      '2024-01-02T00:00:00.000Z',
      '2024-01-03T00:00:00.000Z',
      '2024-01-04T00:00:00.000Z',
    ]);
    expect([...rows.close]).toEqual([472.65, Number.NaN, 467.28]);
    expect([...(rows.adjClose ?? [])]).toEqual([465, Number.NaN, 459.72]);
    expect(rows.badFields[1]).toBe(
      FIELD_BITS.open |
        FIELD_BITS.high |
        FIELD_BITS.low |
        FIELD_BITS.close |
        FIELD_BITS.volume |
        FIELD_BITS.adjClose,
    );
    expect(rows.problemCounts.nan).toBe(6);
    expect(located(rows)).toContain('SPY.csv:3:6 adj close nan "null"');
    expect(located(rows)).toContain('SPY.csv:3:2 open nan "null"');
  });

  it('names the missing columns of a header, with file and line', () => {
    const error = errorOf(() =>
      parseBarsCsv('x.csv', bytes('\ntimestamp,open,high,close\n'), 'generic'),
    );
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toBe(
      'x.csv:2: the header has no low, volume column (found: timestamp, open, high, close)',
    );
  });
});

describe('parseBarsCsv: timestamps', () => {
  const parseTimes = (times: string[], zone?: ReturnType<typeof zoneOffsetFor>): ParsedRows =>
    parseBarsCsv(
      't.csv',
      bytes(`${HEADER}\n${times.map((t) => `${t},1,2,0.5,1.5,3`).join('\n')}\n`),
      'generic',
      zone,
    );

  it('reads ISO-8601 with Z, with an offset, and without a zone (UTC)', () => {
    const rows = parseTimes([
      '2024-01-01T00:00:00Z',
      '2024-01-01T02:01:00+02:00',
      '2024-01-01T00:02:00',
      '2024-01-01 00:03',
      '2024-01-01T00:04:00.250Z',
      '2023-12-31T19:05:00-0500',
    ]);
    expect([...rows.timestamps]).toEqual([
      JAN1,
      JAN1 + 60_000,
      JAN1 + 120_000,
      JAN1 + 180_000,
      JAN1 + 240_250,
      JAN1 + 300_000,
    ]);
    expect(rows.problems).toEqual([]);
    expect(rows.notes).toContain('timestamps: ISO-8601');
  });

  it('reads zone-less times in a given zone across a DST switch (America/New_York)', () => {
    const newYork = zoneOffsetFor('America/New_York');
    const rows = parseTimes(
      [
        '2024-03-10T01:30:00', // EST, UTC-5
        '2024-03-10T03:30:00', // EDT, UTC-4 (02:00–03:00 does not exist that night)
        '2024-11-03T00:30:00', // EDT
        '2024-11-03T02:30:00', // EST again
        '2024-11-03T12:00:00Z', // an explicit zone wins over the zone function
      ],
      newYork,
    );
    expect(iso(rows)).toEqual([
      '2024-03-10T06:30:00.000Z',
      '2024-03-10T07:30:00.000Z',
      '2024-11-03T04:30:00.000Z',
      '2024-11-03T07:30:00.000Z',
      '2024-11-03T12:00:00.000Z',
    ]);
  });

  it('reads epoch seconds and milliseconds, told apart by magnitude', () => {
    const seconds = parseTimes(['1704067200', '1704067260']);
    expect([...seconds.timestamps]).toEqual([JAN1, JAN1 + 60_000]);
    expect(seconds.notes).toContain('timestamps: seconds since the epoch');
    const millis = parseTimes(['1704067200000', '1704067260000']);
    expect([...millis.timestamps]).toEqual([JAN1, JAN1 + 60_000]);
    expect(millis.notes).toContain('timestamps: milliseconds since the epoch');
  });

  it('combines Date and Time columns, in the given zone', () => {
    const text =
      'Date,Time,Open,High,Low,Close,Volume\n' +
      '2024-03-08,15:59,1,2,0.5,1.5,3\n' +
      '2024-03-11,09:30:00,1,2,0.5,1.5,3\n';
    const utc = parseBarsCsv('dt.csv', bytes(text), 'generic');
    expect(iso(utc)).toEqual(['2024-03-08T15:59:00.000Z', '2024-03-11T09:30:00.000Z']);
    const newYork = parseBarsCsv(
      'dt.csv',
      bytes(text),
      'generic',
      zoneOffsetFor('America/New_York'),
    );
    expect(iso(newYork)).toEqual(['2024-03-08T20:59:00.000Z', '2024-03-11T13:30:00.000Z']);
  });
});

describe('parseBarsCsv: line structure', () => {
  it('handles CRLF line endings and a missing final newline', () => {
    const rows = parseBarsCsv(
      'crlf.csv',
      bytes(
        `${HEADER}\r\n1704067200,1,2,0.5,1.5,3\r\n2024-01-01T00:01:00Z,1,2,0.5,1.5,4\r\n1704067320,1,2,0.5,1.5,5`,
      ),
      'generic',
    );
    expect([...rows.timestamps]).toEqual([JAN1, JAN1 + 60_000, JAN1 + 120_000]);
    expect([...rows.volume]).toEqual([3, 4, 5]);
    expect([...rows.lines]).toEqual([2, 3, 4]);
    expect(rows.problems).toEqual([]);
  });

  it('reports a bad last field on a CRLF line without the carriage return in it', () => {
    const rows = parseBarsCsv(
      'crlf.csv',
      bytes(`${HEADER}\r\n1704067200,1,2,0.5,1.5,x\r\n`),
      'generic',
    );
    expect(located(rows)).toEqual(['crlf.csv:2:6 volume unparsable "x"']);
  });

  it('reads quoted fields (header and values), and keeps a quoted comma in its field', () => {
    const rows = parseBarsCsv(
      'q.csv',
      bytes(
        '"timestamp","open","high","low","close","volume"\n' +
          '"2024-01-01 00:00:00",1,"2",0.5,1.5,3\n' +
          '2024-01-01T00:01:00Z,1,2,0.5,"1,5",3\n',
      ),
      'generic',
    );
    expect(iso(rows)[0]).toBe('2024-01-01T00:00:00.000Z');
    expect(rows.high[0]).toBe(2);
    expect(Number.isNaN(rows.close[1])).toBe(true);
    expect(located(rows)).toEqual(['q.csv:3:5 close unparsable "1,5"']);
  });

  it('skips blank lines and keeps counting lines through them', () => {
    const rows = parseBarsCsv(
      'blank.csv',
      bytes(`\n${HEADER}\n\n1704067200,1,2,0.5,1.5,3\n\r\n\n1704067260,1,2,0.5,1.5,x\n\n`),
      'generic',
    );
    expect([...rows.timestamps]).toEqual([JAN1, JAN1 + 60_000]);
    expect([...rows.lines]).toEqual([4, 7]);
    expect(located(rows)).toEqual(['blank.csv:7:6 volume unparsable "x"']);
  });
});

describe('parseBarsCsv: problems, located by file, line, column and name', () => {
  const text = [
    HEADER,
    '2024-01-01T00:00:00Z,100,abc,99,100.5,10', // 2: unparsable high
    '2024-01-01T00:01:00Z,100,101,,100.5,10', // 3: empty low
    '2024-01-01T00:02:00Z,100,101,99,NaN,10', // 4: NaN close
    '2024-01-01T00:03:00Z,100,Inf,99,100.5,-inf', // 5: infinite high and volume
    '2024-01-01T00:0X:00Z,100,101,99,100.5,10', // 6: bad timestamp
    ',100,101,99,100.5,10', // 7: empty timestamp
    '2024-01-01T00:06:00Z,100,101,99,100.5', // 8: missing volume
    '2024-01-01T00:07:00Z,100,101,99,100.5,1e400', // 9: overflows to Infinity
  ].join('\n');
  const rows = parseBarsCsv('bad.csv', bytes(text), 'generic');

  it('records every bad field with its location and kind', () => {
    expect(located(rows)).toEqual([
      'bad.csv:2:3 high unparsable "abc"',
      'bad.csv:3:4 low empty ""',
      'bad.csv:4:5 close nan "NaN"',
      'bad.csv:5:3 high infinite "Inf"',
      'bad.csv:5:6 volume infinite "-inf"',
      'bad.csv:6:1 timestamp timestamp "2024-01-01T00:0X:00Z"',
      'bad.csv:7:1 timestamp empty ""',
      'bad.csv:8:6 volume empty ""',
      'bad.csv:9:6 volume infinite "1e400"',
    ]);
    expect(rows.problemCounts).toEqual({
      timestamp: 1,
      empty: 3,
      unparsable: 1,
      nan: 1,
      infinite: 3,
      'timestamp out of range': 0,
    });
  });

  it('keeps the rows and flags the bad fields, for the policy to decide', () => {
    expect([...rows.lines]).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...rows.badFields]).toEqual([
      FIELD_BITS.high,
      FIELD_BITS.low,
      FIELD_BITS.close,
      FIELD_BITS.high | FIELD_BITS.volume,
      FIELD_BITS.timestamp,
      FIELD_BITS.timestamp,
      FIELD_BITS.volume,
      FIELD_BITS.volume,
    ]);
    expect(Number.isNaN(rows.timestamps[4])).toBe(true);
    expect(rows.open[4]).toBe(100);
    expect(rows.notes).toContain('1 rows had fewer than 6 fields (missing fields read as empty)');
  });

  it('reports the same problems for rows with epoch timestamps', () => {
    // Epoch timestamps take the parser's fast path; bad rows must come out the same.
    const epoch = parseBarsCsv(
      'fast.csv',
      bytes(
        `${HEADER}\n1704067200,100,abc,99,100.5,10\n1704067260,100,101,,100.5,10\n1704067320,100,101,99,nan,10\n1704067380,100,101,99,100.5,+Inf\n`,
      ),
      'generic',
    );
    expect(located(epoch)).toEqual([
      'fast.csv:2:3 high unparsable "abc"',
      'fast.csv:3:4 low empty ""',
      'fast.csv:4:5 close nan "nan"',
      'fast.csv:5:6 volume infinite "+Inf"',
    ]);
  });

  it('treats a lone "." or "-." as unparsable, whatever the timestamp format', () => {
    const iso = parseBarsCsv(
      'dot.csv',
      bytes(
        `${HEADER}\n2024-01-01T00:00:00Z,100,101,99,100.5,.\n2024-01-01T00:01:00Z,100,101,99,-.,10\n`,
      ),
      'generic',
    );
    expect(located(iso)).toEqual([
      'dot.csv:2:6 volume unparsable "."',
      'dot.csv:3:5 close unparsable "-."',
    ]);
    // Epoch timestamps take the fast path, which must agree.
    const epoch = parseBarsCsv(
      'dot.csv',
      bytes(`${HEADER}\n1704067200,100,101,99,100.5,.\n1704067260,100,101,99,-.,10\n`),
      'generic',
    );
    expect(located(epoch)).toEqual([
      'dot.csv:2:6 volume unparsable "."',
      'dot.csv:3:5 close unparsable "-."',
    ]);
  });
});

import { TradelabError } from '../core/index.js';

/** A tick on a time axis: where it sits (ms since the epoch, UTC) and what it says. */
export interface TimeTick {
  readonly time: number;
  readonly label: string;
}

/** The calendar unit ticks are counted in; it also decides the label format. */
type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';

interface TimeInterval {
  readonly unit: TimeUnit;
  readonly count: number;
  /** Typical length, to pick an interval; months and years vary. */
  readonly approxMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
// 1970-01-01 was a Thursday: weekly ticks are shifted four days to fall on Mondays.
const FIRST_MONDAY = 4 * DAY;
const MONTH = 30.44 * DAY;
const YEAR = 365.25 * DAY;

const UNIT_MS: Readonly<Record<'second' | 'minute' | 'hour' | 'day', number>> = {
  second: SECOND,
  minute: MINUTE,
  hour: HOUR,
  day: DAY,
};

// Counts that divide the next unit evenly, so ticks land on round clock and calendar values. No
// interval is more than 2.5 times the one before: the finest that fits at most `maxTicks` (>= 3)
// then always leaves at least one tick inside the range.
const INTERVALS: readonly TimeInterval[] = [
  ...[1, 2, 5, 10, 15, 30].map((count) => ({
    unit: 'second' as const,
    count,
    approxMs: count * SECOND,
  })),
  ...[1, 2, 5, 10, 15, 30].map((count) => ({
    unit: 'minute' as const,
    count,
    approxMs: count * MINUTE,
  })),
  ...[1, 2, 3, 6, 12].map((count) => ({ unit: 'hour' as const, count, approxMs: count * HOUR })),
  ...[1, 2, 3].map((count) => ({ unit: 'day' as const, count, approxMs: count * DAY })),
  ...[1, 2].map((count) => ({ unit: 'week' as const, count, approxMs: count * WEEK })),
  ...[1, 2, 3, 6].map((count) => ({ unit: 'month' as const, count, approxMs: count * MONTH })),
  // 1, 2, 5, 10, … 500000 years: enough for any span a Date can hold.
  ...Array.from({ length: 18 }, (_, i) => {
    const count = [1, 2, 5][i % 3] ?? 1;
    const years = count * 10 ** Math.floor(i / 3);
    return { unit: 'year' as const, count: years, approxMs: years * YEAR };
  }),
];

/**
 * At most `maxTicks` (at least 3) ticks on round UTC times inside [startMs, endMs], labelled for the
 * span: `03-04 12:00` for hours, `2021-03-04` for days and weeks (weeks start on Monday),
 * `2021-03` for months, `2021` for years.
 */
export function timeTicks(startMs: number, endMs: number, maxTicks = 8): TimeTick[] {
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || startMs > endMs) {
    throw new TradelabError('INVALID_ARGUMENT', `no time ticks for [${startMs}, ${endMs}]`, {
      hint: 'pass finite ms-since-epoch bounds with start <= end',
    });
  }
  const limit = Math.max(3, Math.floor(maxTicks));
  const span = endMs - startMs;
  // Skip intervals far too fine by estimate (months and years vary, so leave slack), then take the
  // finest whose actual ticks fit.
  const first = INTERVALS.findIndex((candidate) => span / candidate.approxMs <= 2 * limit);
  for (const interval of INTERVALS.slice(first < 0 ? INTERVALS.length - 1 : first)) {
    const times = tickTimes(startMs, endMs, interval);
    if (times.length <= limit) {
      return times.map((time) => ({ time, label: formatTimeLabel(time, interval.unit) }));
    }
  }
  return [];
}

function tickTimes(startMs: number, endMs: number, { unit, count }: TimeInterval): number[] {
  const times: number[] = [];
  if (unit === 'month' || unit === 'year') {
    const start = new Date(startMs);
    const months = unit === 'month' ? count : 12 * count;
    // Months since year 0, aligned down to a multiple of the interval so ticks are round.
    const startMonth = start.getUTCFullYear() * 12 + start.getUTCMonth();
    for (let m = Math.floor(startMonth / months) * months; ; m += months) {
      const time = utcMonthStart(Math.floor(m / 12), m % 12);
      if (time > endMs || !Number.isFinite(time)) break;
      if (time >= startMs) times.push(time);
    }
    return times;
  }
  const stepMs = unit === 'week' ? count * WEEK : count * UNIT_MS[unit];
  const offset = unit === 'week' ? FIRST_MONDAY : 0;
  for (let t = Math.ceil((startMs - offset) / stepMs) * stepMs + offset; t <= endMs; t += stepMs) {
    times.push(t);
  }
  return times;
}

// Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes them literally.
function utcMonthStart(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 1);
  return date.getTime();
}

function formatTimeLabel(time: number, unit: TimeUnit): string {
  const date = new Date(time);
  const year = String(date.getUTCFullYear());
  const month = pad2(date.getUTCMonth() + 1);
  const day = pad2(date.getUTCDate());
  const clock = `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}`;
  switch (unit) {
    case 'second':
      return `${clock}:${pad2(date.getUTCSeconds())}`;
    case 'minute':
    case 'hour':
      return `${month}-${day} ${clock}`;
    case 'day':
    case 'week':
      return `${year}-${month}-${day}`;
    case 'month':
      return `${year}-${month}`;
    case 'year':
      return year;
  }
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * Timestamps as they appear in market data files, parsed to milliseconds UTC without allocating:
 * ISO-8601 dates and date-times (with `Z`, an offset, or no zone), and epoch numbers in seconds,
 * milliseconds or microseconds (Binance writes microseconds from 2025 on), told apart by magnitude.
 */

/** How a zone-less date-time is turned into UTC: add this offset function's result. */
export type ZoneOffset = (localMs: number) => number;

/** Zone-less timestamps are UTC unless a zone says otherwise. */
export const UTC_OFFSET: ZoneOffset = () => 0;

/** Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm; month 1–12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Epoch seconds below this, milliseconds below the next, else microseconds (years 1973–5138). */
const SECONDS_BELOW = 1e11;
const MILLIS_BELOW = 1e14;
const MICROS_BELOW = 1e17;

/** Epoch number to ms by magnitude; NaN outside the plausible range. */
export function epochToMs(value: number): number {
  const magnitude = Math.abs(value);
  if (magnitude < SECONDS_BELOW) return value * 1000;
  if (magnitude < MILLIS_BELOW) return value;
  if (magnitude < MICROS_BELOW) return Math.floor(value / 1000);
  return Number.NaN;
}

/**
 * The unit an epoch number's magnitude says it is in, as a bit of {@link timestampUnitsNote}'s
 * argument: 1 seconds, 2 milliseconds, 4 microseconds (8 is ISO-8601 text).
 */
export function epochUnitBit(value: number): number {
  const magnitude = Math.abs(value);
  return magnitude < SECONDS_BELOW ? 1 : magnitude < MILLIS_BELOW ? 2 : 4;
}

/** The import summary's note on the timestamps read ("timestamps: seconds since the epoch"). */
export function timestampUnitsNote(bits: number): string | undefined {
  const units = [
    bits & 1 ? 'seconds' : '',
    bits & 2 ? 'milliseconds' : '',
    bits & 4 ? 'microseconds' : '',
    bits & 8 ? 'ISO-8601' : '',
  ].filter(Boolean);
  if (units.length === 0) return undefined;
  return `timestamps: ${units.length > 1 ? 'mixed ' : ''}${units.join(' and ')}${bits & 7 ? ' since the epoch' : ''}`;
}

/** The value of `n` decimal digits at `at`, or -1 if any byte is not a digit. */
function digits(bytes: Uint8Array, at: number, n: number): number {
  let value = 0;
  for (let i = at; i < at + n; i++) {
    const d = (bytes[i] ?? 0) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

// Consecutive rows nearly always share their date: remember the last one's day number.
let lastDateKey = -1;
let lastDays = 0;

/**
 * Parses an ISO-8601 date or date-time in `bytes[start, end)`: `YYYY-MM-DD`, then optionally `T` or
 * a space, `HH:MM`, `:SS`, `.fraction`, and `Z` or `±HH:MM`/`±HHMM`. Returns NaN if it is not one.
 */
export function parseIsoTimestamp(
  bytes: Uint8Array,
  start: number,
  end: number,
  zone: ZoneOffset,
): number {
  if (end - start < 10 || bytes[start + 4] !== 45 || bytes[start + 7] !== 45) return Number.NaN;
  const year = digits(bytes, start, 4);
  const month = digits(bytes, start + 5, 2);
  const day = digits(bytes, start + 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return Number.NaN;
  const dateKey = year * 10_000 + month * 100 + day;
  if (dateKey !== lastDateKey) {
    lastDays = daysFromCivil(year, month, day);
    lastDateKey = dateKey;
  }
  let ms = lastDays * 86_400_000;
  let i = start + 10;
  let zoned = false;
  if (i < end && (bytes[i] === 84 || bytes[i] === 32)) {
    i++;
    const hour = digits(bytes, i, 2);
    if (bytes[i + 2] !== 58) return Number.NaN;
    const minute = digits(bytes, i + 3, 2);
    if (hour < 0 || hour > 24 || minute < 0 || minute > 59) return Number.NaN;
    ms += hour * 3_600_000 + minute * 60_000;
    i += 5;
    if (i < end && bytes[i] === 58) {
      const second = digits(bytes, i + 1, 2);
      if (second < 0 || second > 60) return Number.NaN;
      ms += second * 1000;
      i += 3;
      if (i < end && (bytes[i] === 46 || bytes[i] === 44)) {
        i++;
        let scale = 100;
        for (let d = (bytes[i] ?? 0) - 48; i < end && d >= 0 && d <= 9; d = (bytes[i] ?? 0) - 48) {
          ms += d * scale;
          scale /= 10;
          i++;
        }
        ms = Math.floor(ms);
      }
    }
  }
  if (i < end && (bytes[i] === 90 || bytes[i] === 122)) {
    zoned = true;
    i++;
  } else if (i < end && (bytes[i] === 43 || bytes[i] === 45)) {
    const sign = bytes[i] === 45 ? -1 : 1;
    const oh = digits(bytes, i + 1, 2);
    const colon = bytes[i + 3] === 58 ? 1 : 0;
    const om = i + 3 + colon < end ? digits(bytes, i + 3 + colon, 2) : 0;
    if (oh < 0 || om < 0) return Number.NaN;
    ms -= sign * (oh * 3_600_000 + om * 60_000);
    zoned = true;
    i += 3 + (i + 3 + colon < end ? colon + 2 : 0);
  }
  if (i !== end) return Number.NaN;
  return zoned ? ms : ms - zone(ms);
}

/**
 * A zone offset function for an IANA time zone (`America/New_York`): given a local wall-clock time as
 * if it were UTC, returns the zone's offset in ms, so that UTC = local − offset. Cached per 15
 * minutes of local time, as offsets only change at those boundaries.
 */
export function zoneOffsetFor(timeZone: string): ZoneOffset {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const offsetAt = (utc: number): number => {
    const parts = format.formatToParts(new Date(utc));
    const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const local = Date.UTC(
      get('year'),
      get('month') - 1,
      get('day'),
      get('hour'),
      get('minute'),
      get('second'),
    );
    return local - Math.floor(utc / 1000) * 1000;
  };
  const cache = new Map<number, number>();
  return (localMs) => {
    const key = Math.floor(localMs / 900_000);
    let offset = cache.get(key);
    if (offset === undefined) {
      // Guess with the offset at local-as-UTC, then correct once (DST boundaries).
      const first = offsetAt(localMs);
      const second = offsetAt(localMs - first);
      offset = second;
      cache.set(key, offset);
    }
    return offset;
  };
}

import { outsideDates, outsideDatesText, TradelabError } from '../core/index.js';

/** The bar timeframes tradelab works with. */
export const TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;
/** A bar timeframe. */
export type Timeframe = (typeof TIMEFRAMES)[number];

const MINUTE = 60_000;
const MS: Readonly<Record<Timeframe, number>> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1d': 1440 * MINUTE,
};

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/** The length of one bar, in milliseconds. */
export function timeframeMs(timeframe: Timeframe): number {
  return MS[timeframe];
}

/** Whether a string names a timeframe. */
export function isTimeframe(text: string): text is Timeframe {
  return (TIMEFRAMES as readonly string[]).includes(text);
}

/** Parses a timeframe, or throws a usage error that lists the allowed ones. */
export function parseTimeframe(text: string, what = 'timeframe'): Timeframe {
  const lower = text.trim().toLowerCase();
  if (isTimeframe(lower)) return lower;
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `${what} "${text}" is not allowed: expected one of ${TIMEFRAMES.join(', ')}`,
    {
      hint: 'e.g. --timeframe 1h',
    },
  );
}

/** The timeframe whose bar length is exactly `ms`, if any. */
export function timeframeOfMs(ms: number): Timeframe | undefined {
  return TIMEFRAMES.find((tf) => MS[tf] === ms);
}

/**
 * A bar's time at its timeframe's precision, in UTC: `2000-02-18` for daily bars, `2020-01-03 14:30`
 * for intraday ones; `-` for a missing time.
 */
export function formatBarTime(ms: number, timeframe: Timeframe): string {
  if (!Number.isFinite(ms)) return '-';
  if (outsideDates(ms)) return outsideDatesText(ms);
  const iso = new Date(ms).toISOString();
  return timeframe === '1d' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

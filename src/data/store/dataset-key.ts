import { TradelabError } from '../../core/index.js';
import { parseTimeframe, type Timeframe } from '../timeframe.js';

/** A dataset's identity: one symbol at one timeframe. */
export interface DatasetKey {
  symbol: string;
  timeframe: Timeframe;
}

const SYMBOL = /^[A-Z0-9][A-Z0-9._-]{0,31}$/;

/** Normalizes and checks a symbol: upper case, letters, digits, `.`, `_`, `-`. */
export function parseSymbol(text: string): string {
  const symbol = text.trim().toUpperCase();
  if (!SYMBOL.test(symbol)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `symbol "${text}" is not allowed: use letters, digits, ".", "_" or "-" (at most 32)`,
      {
        hint: 'e.g. --symbol BTCUSDT or --symbol SPY',
      },
    );
  }
  return symbol;
}

/** Parses `SYM:TF` (e.g. `BTCUSDT:1m`). */
export function parseDatasetKey(text: string): DatasetKey {
  const [symbol, timeframe, extra] = text.split(':');
  if (symbol === undefined || timeframe === undefined || extra !== undefined) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `"${text}" is not a dataset: expected SYMBOL:TIMEFRAME`,
      {
        hint: 'e.g. BTCUSDT:1m; `tradelab data list` shows the datasets',
      },
    );
  }
  return {
    symbol: parseSymbol(symbol),
    timeframe: parseTimeframe(timeframe, `timeframe in "${text}"`),
  };
}

/**
 * Parses `SYM[,SYM…]:TF` (several symbols at one timeframe, e.g. `BTCUSDT,ETHUSDT:1h`). A symbol
 * named twice is an error: it would be loaded as two assets that move as one.
 */
export function parseDatasetKeys(text: string): DatasetKey[] {
  const colon = text.lastIndexOf(':');
  if (colon < 0) return [parseDatasetKey(text)];
  const timeframe = text.slice(colon + 1);
  const written = text.slice(0, colon).split(',');
  const keys = written.map((symbol) => parseDatasetKey(`${symbol}:${timeframe}`));
  const seen = new Map<string, number>();
  for (const [i, key] of keys.entries()) {
    const first = seen.get(key.symbol);
    if (first === undefined) {
      seen.set(key.symbol, i);
      continue;
    }
    const unique = [...new Set(keys.map((k) => k.symbol))].join(',');
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `"${text}" names ${key.symbol} twice (symbols ${first + 1} and ${i + 1}: "${written[first] ?? ''}" and "${written[i] ?? ''}"); each symbol is one asset`,
      {
        hint: `name each symbol once, e.g. ${unique}:${timeframe}`,
        details: { spec: text, symbol: key.symbol },
      },
    );
  }
  return keys;
}

/** `SYM:TF`. */
export function formatDatasetKey(key: DatasetKey): string {
  return `${key.symbol}:${key.timeframe}`;
}

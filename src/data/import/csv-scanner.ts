/**
 * A fast, allocation-free CSV scanner over bytes: it finds field boundaries line by line and parses
 * numbers straight from the bytes. Quoted fields are supported (the quotes are excluded from the
 * field; `""` inside stays as is). Lines end with `\n` or `\r\n`.
 */

/** Most fields a row may have; extra fields are ignored (and counted). */
export const MAX_FIELDS = 64;

/** Field boundaries of the current row: `starts[i]` and `ends[i]` index into the bytes. */
export interface CsvRow {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Fields in this row (may exceed MAX_FIELDS; only the first MAX_FIELDS are recorded). */
  count: number;
  /** 1-based line number of the row in the file. */
  line: number;
}

/** Creates a reusable row buffer. */
export function createCsvRow(): CsvRow {
  return {
    starts: new Int32Array(MAX_FIELDS),
    ends: new Int32Array(MAX_FIELDS),
    count: 0,
    line: 0,
  };
}

/**
 * Scans one line starting at `offset` into `row` and returns the offset of the next line
 * (`bytes.length` at the end). Blank lines yield `row.count === 0`.
 */
export function scanLine(bytes: Uint8Array, offset: number, row: CsvRow, delimiter = 44): number {
  const n = bytes.length;
  let i = offset;
  let count = 0;
  let fieldStart = i;
  let quotedEnd = -1;
  if (i < n && bytes[i] === 34) {
    // Quoted first field.
    const close = closingQuote(bytes, i + 1);
    fieldStart = i + 1;
    quotedEnd = close;
    i = close + 1;
  }
  for (;;) {
    const b = i < n ? bytes[i] : 10;
    if (b === delimiter || b === 10) {
      let end = quotedEnd >= 0 ? quotedEnd : i;
      if (b === 10 && quotedEnd < 0 && end > fieldStart && bytes[end - 1] === 13) end--;
      if (count < MAX_FIELDS) {
        row.starts[count] = fieldStart;
        row.ends[count] = end;
      }
      count++;
      if (b === 10) {
        i++;
        break;
      }
      i++;
      quotedEnd = -1;
      fieldStart = i;
      if (i < n && bytes[i] === 34) {
        const close = closingQuote(bytes, i + 1);
        fieldStart = i + 1;
        quotedEnd = close;
        i = close + 1;
      }
      continue;
    }
    i++;
  }
  // A line holding only "\r" or nothing is blank.
  if (count === 1 && (row.ends[0] ?? 0) - (row.starts[0] ?? 0) === 0 && quotedEnd < 0) count = 0;
  row.count = count;
  return Math.min(i, n);
}

function closingQuote(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length) {
    if (bytes[i] === 34) {
      if (bytes[i + 1] === 34) {
        i += 2;
        continue;
      }
      return i;
    }
    i++;
  }
  return bytes.length;
}

/** Powers of ten that are exact doubles. */
export const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
  1e18, 1e19, 1e20, 1e21, 1e22,
];
const decoder = new TextDecoder();

/**
 * Parses a decimal number in `bytes[start, end)` (leading/trailing spaces allowed). Plain decimals of
 * up to 15 significant digits are parsed exactly from the bytes (an integer mantissa divided by a
 * power of ten is correctly rounded); anything else goes through `Number()`. Returns NaN when the
 * text is not a number; `nan`/`inf` literals give NaN/±Infinity.
 */
export function parseNumber(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let j = end;
  while (i < j && bytes[i] === 32) i++;
  while (j > i && bytes[j - 1] === 32) j--;
  if (i === j) return Number.NaN;
  let negative = false;
  if (bytes[i] === 45 || bytes[i] === 43) {
    negative = bytes[i] === 45;
    i++;
  }
  let mantissa = 0;
  let digitsSeen = 0;
  let fraction = 0;
  let dot = false;
  for (; i < j; i++) {
    const b = bytes[i] ?? 0;
    if (b >= 48 && b <= 57) {
      if (mantissa === 0 && b === 48 && !dot) continue;
      mantissa = mantissa * 10 + (b - 48);
      digitsSeen++;
      if (dot) fraction++;
      continue;
    }
    if (b === 46 && !dot) {
      dot = true;
      continue;
    }
    return slowNumber(bytes, start, end);
  }
  if (digitsSeen > 15 || fraction > 22) return slowNumber(bytes, start, end);
  if (j - start === (negative ? 1 : 0) + (dot ? 1 : 0)) return Number.NaN; // "-", ".", "-."
  const value = mantissa / (POW10[fraction] ?? 1);
  return negative ? -value : value;
}

function slowNumber(bytes: Uint8Array, start: number, end: number): number {
  const text = decoder.decode(bytes.subarray(start, end)).trim();
  const lower = text.toLowerCase();
  if (lower === 'nan' || lower === '+nan' || lower === '-nan') return Number.NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity')
    return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number.NaN;
  return Number(text);
}

/** Whether a field literally says NaN (as opposed to being unparsable). */
export function isNanLiteral(bytes: Uint8Array, start: number, end: number): boolean {
  return /^\s*[+-]?nan\s*$/i.test(decoder.decode(bytes.subarray(start, end)));
}

/** Keeps a leading U+FEFF: the default decoder drops it, and a message would then hide it. */
const keepingDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A field's text (for messages and headers), an invisible leading U+FEFF included. */
export function fieldText(bytes: Uint8Array, start: number, end: number): string {
  return keepingDecoder.decode(bytes.subarray(start, end));
}

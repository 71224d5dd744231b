import { basename, dirname, extname, join } from 'node:path';
import { shellQuote, TradelabError } from '../../core/index.js';
import type { SourceFile } from './source-files.js';

/*
 * What a CSV import is handed is not always a CSV: an empty export, a spreadsheet's UTF-16 "Unicode
 * text", a ZIP, a damaged download named .gz, a file separated by semicolons with decimal commas.
 * Parsed as comma-separated UTF-8 they give "cannot tell its format" with raw bytes in the message,
 * or "no open column" for a header that has one. These checks run first and say what the file is
 * and how to convert it; a message never shows a file's bytes except as hex.
 */

/** How many leading bytes are looked at. */
const SAMPLE = 4096;

/** Magic numbers of archives and compressors people download data in. */
const ARCHIVES: readonly { magic: readonly number[]; what: string; hint: string }[] = [
  {
    magic: [0x50, 0x4b, 0x03, 0x04],
    what: 'a ZIP archive',
    hint: 'unzip it and import the CSV inside',
  },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'xz-compressed', hint: 'unxz it first' },
  { magic: [0x28, 0xb5, 0x2f, 0xfd], what: 'zstd-compressed', hint: 'unzstd it first' },
  { magic: [0x42, 0x5a, 0x68], what: 'bzip2-compressed', hint: 'bunzip2 it first' },
  {
    magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
    what: 'a 7-Zip archive',
    hint: 'extract the CSV inside',
  },
];

/**
 * Throws a clear error when `source` cannot be a CSV of bars: empty, UTF-16/32, an archive, binary,
 * or separated by something other than commas. Passes anything else to the CSV parser.
 */
export function checkCsvInput(source: SourceFile): void {
  const { path, bytes } = source;
  const gunzipped = source.gzip ? ' once gunzipped' : '';
  if (bytes.length === 0)
    throw new TradelabError('DATA_INVALID', `${path} is empty${gunzipped} (0 bytes)`, {
      hint: 'the export or download produced nothing; export or fetch it again',
    });
  const sample = bytes.subarray(0, SAMPLE);
  const wide = utf16Or32(sample);
  if (wide !== undefined) {
    const out = sibling(path, '-utf8');
    throw new TradelabError(
      'FORMAT_UNSUPPORTED',
      `${path} is ${wide.name} text; tradelab reads UTF-8`,
      {
        hint: `convert it, e.g. ${source.gzip ? `gunzip -c ${shellQuote(path)} | iconv -f ${wide.iconv} -t UTF-8 > ${shellQuote(out)}` : `iconv -f ${wide.iconv} -t UTF-8 ${shellQuote(path)} > ${shellQuote(out)}`}`,
      },
    );
  }
  if (!source.gzip) {
    const archive = ARCHIVES.find((a) => a.magic.every((b, i) => bytes[i] === b));
    if (archive !== undefined)
      throw new TradelabError('FORMAT_UNSUPPORTED', `${path} is ${archive.what}, not a CSV file`, {
        hint: archive.hint,
      });
  }
  const notText = firstNonText(sample);
  if (notText !== undefined) {
    const named = /\.gz(ip)?$/i.test(path) && !source.gzip;
    const at = `${notText.what} at offset ${notText.offset} (line ${notText.line})`;
    if (notText.latin1 && !named) {
      const out = sibling(path, '-utf8');
      throw new TradelabError(
        'FORMAT_UNSUPPORTED',
        `${path} is not UTF-8 text: ${at} is not valid UTF-8; the file looks like Latin-1 or Windows-1252 text, as older spreadsheets export it`,
        {
          hint: `convert it, e.g. ${source.gzip ? `gunzip -c ${shellQuote(path)} | iconv -f WINDOWS-1252 -t UTF-8 > ${shellQuote(out)}` : `iconv -f WINDOWS-1252 -t UTF-8 ${shellQuote(path)} > ${shellQuote(out)}`}`,
          details: { file: path, offset: notText.offset, byte: notText.byte },
        },
      );
    }
    const what = `not text: ${at}`;
    throw new TradelabError(
      'FORMAT_UNSUPPORTED',
      named
        ? `${path} is named .gz but is not gzip-compressed, and it is ${what}`
        : `${path} is ${what}`,
      {
        hint: named
          ? `the download may be damaged; fetch it again (\`file ${shellQuote(path)}\` says what it holds)`
          : `import a CSV or Parquet file (\`file ${shellQuote(path)}\` says what this one holds)`,
        details: { file: path, offset: notText.offset, byte: notText.byte },
      },
    );
  }
  if (!/[^\s]/.test(new TextDecoder().decode(sample)) && bytes.length <= SAMPLE)
    throw new TradelabError('DATA_INVALID', `${path} is empty${gunzipped} (only blank lines)`, {
      hint: 'the export or download produced nothing; export or fetch it again',
    });
  checkDelimiter(source);
}

/** The delimiters a CSV export uses instead of commas (a locale's, a TSV's). */
const FOREIGN: readonly { char: string; name: string; sed: string }[] = [
  { char: ';', name: 'semicolons (;)', sed: ';' },
  { char: '\t', name: 'tabs', sed: '\\t' },
  { char: '|', name: 'vertical bars (|)', sed: '|' },
];

/**
 * A header without a comma but split by `;`, a tab or `|` is that delimiter's file (the parser
 * would read it as one column and say the columns are missing); with decimal commas in the first
 * data row (`100,5`), as a European locale exports it, the conversion also swaps those.
 */
function checkDelimiter(source: SourceFile): void {
  const text = new TextDecoder().decode(source.bytes.subarray(0, SAMPLE));
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((l) => l.trim() !== '');
  const header = lines[index] ?? '';
  if (header.includes(',')) return;
  const found = FOREIGN.map((d) => ({ ...d, fields: header.split(d.char).length }))
    .filter((d) => d.fields >= 2)
    .sort((a, b) => b.fields - a.fields)[0];
  if (found === undefined) return;
  const firstRow = lines.slice(index + 1).find((l) => l.trim() !== '') ?? '';
  const decimal = firstRow
    .split(found.char)
    .map((f) => f.trim().replace(/^"(.*)"$/, '$1'))
    .find((f) => /^[-+]?\d+,\d+$/.test(f));
  const path = source.path;
  const out = sibling(path, '-comma');
  const input = source.gzip ? `gunzip -c ${shellQuote(path)} | ` : '';
  const file = source.gzip ? '' : ` ${shellQuote(path)}`;
  const command =
    decimal === undefined && found.char !== ';'
      ? `${input}tr '${found.sed}' ,${source.gzip ? '' : ` <${file}`} > ${shellQuote(out)}`
      : `${input}sed ${decimal === undefined ? '' : "-e 's/,/./g' "}-e 's/${found.sed}/,/g'${file} > ${shellQuote(out)}`;
  throw new TradelabError(
    'FORMAT_UNSUPPORTED',
    `${path}:${index + 1}: the columns are separated by ${found.name}${decimal === undefined ? '' : `, and the numbers use decimal commas (${decimal})`}; tradelab reads comma-separated files${decimal === undefined ? '' : ' with decimal points'}`,
    { hint: `convert it, e.g. ${command}` },
  );
}

/** UTF-16 or UTF-32 told by a byte-order mark, or by every other byte being zero (ASCII text). */
function utf16Or32(b: Uint8Array): { name: string; iconv: string } | undefined {
  if (b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0)
    return { name: 'UTF-32 (little-endian)', iconv: 'UTF-32' };
  if (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff)
    return { name: 'UTF-32 (big-endian)', iconv: 'UTF-32' };
  if (b[0] === 0xff && b[1] === 0xfe) return { name: 'UTF-16 (little-endian)', iconv: 'UTF-16' };
  if (b[0] === 0xfe && b[1] === 0xff) return { name: 'UTF-16 (big-endian)', iconv: 'UTF-16' };
  const n = Math.min(b.length, 64) & ~1;
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) evenZero++;
    if (b[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero === pairs && evenZero === 0)
    return { name: 'UTF-16 (little-endian)', iconv: 'UTF-16LE' };
  if (evenZero === pairs && oddZero === 0)
    return { name: 'UTF-16 (big-endian)', iconv: 'UTF-16BE' };
  return undefined;
}

/** Where a sample stops being text, and what is there. */
interface NonText {
  offset: number;
  /** 1-based line of the offset. */
  line: number;
  byte: number;
  /** "NUL byte 0x00", "control byte 0x1b", "byte 0xe9". */
  what: string;
  /** The byte is not UTF-8 but a Latin-1 letter or sign, and the sample has no control bytes. */
  latin1: boolean;
}

/**
 * The first byte that is not UTF-8 text, or a NUL or other control byte than tab, line feed, form
 * feed and return; undefined for text. A character cut at the sample's end is not an error.
 */
function firstNonText(sample: Uint8Array): NonText | undefined {
  const control = sample.findIndex((b) => b < 0x20 && b !== 9 && b !== 10 && b !== 12 && b !== 13);
  const invalid = invalidUtf8At(sample);
  const offset = control < 0 ? invalid : invalid < 0 ? control : Math.min(control, invalid);
  if (offset < 0) return undefined;
  const byte = sample[offset] ?? 0;
  let line = 1;
  for (let i = 0; i < offset; i++) if (sample[i] === 10) line++;
  const hexByte = `0x${byte.toString(16).padStart(2, '0')}`;
  return {
    offset,
    line,
    byte,
    what:
      offset === control
        ? byte === 0
          ? 'NUL byte 0x00'
          : `control byte ${hexByte}`
        : `byte ${hexByte}`,
    latin1: offset !== control && control < 0 && byte >= 0xa0,
  };
}

/** The offset of the first byte that breaks UTF-8 in `b`, or -1; a sequence cut at the end is fine. */
function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const lead = b[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // Continuation bytes after a lead byte, and the range the first of them must fall in
    // (no overlong forms, no surrogates, nothing above U+10FFFF).
    let more: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) more = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      more = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      more = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= more; k++) {
      if (i + k >= b.length) return -1;
      const c = b[i + k] ?? 0;
      if (c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += more + 1;
  }
  return -1;
}

/** `dir/name-suffix.ext` beside `path` (`.gz` dropped: the converted file is plain). */
function sibling(path: string, suffix: string): string {
  const name = basename(path).replace(/\.gz(ip)?$/i, '');
  const ext = extname(name);
  return join(dirname(path), `${name.slice(0, name.length - ext.length)}${suffix}${ext}`);
}

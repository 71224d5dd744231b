/*
 * A field quoted in a message must show what is in it. Some characters show as nothing: a U+FEFF
 * byte-order mark left inside a file by joining exports with `cat`, a zero-width or no-break
 * space from a copy out of a web page. "timestamp "2024-01-02T00:01:00Z" is not a date-time" is a
 * riddle when the invisible character is the reason; these helpers write it out as <U+FEFF>.
 */

/** Control and format characters, odd spaces and the replacement character. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u00a0\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufffd]/gu;

/** What the common ones are, for the message. */
const NAMES: Readonly<Record<string, string>> = {
  '\ufeff': 'a byte-order mark',
  '\u200b': 'a zero-width space',
  '\u00a0': 'a no-break space',
  '\ufffd': 'a byte that is not UTF-8',
  '\u0000': 'a NUL byte',
};

/** `text` in double quotes, each invisible character written as `<U+XXXX>`. */
export function visibleText(text: string): string {
  return JSON.stringify(text.replace(INVISIBLE, codePoint));
}

/**
 * The invisible characters in `text`, described ("U+FEFF (a byte-order mark)"), each once, in
 * order of appearance; empty when there are none.
 */
export function invisibleCharacters(text: string): string[] {
  const found = new Set(text.match(INVISIBLE) ?? []);
  return [...found].map((c) => {
    const name = NAMES[c];
    return name === undefined
      ? codePoint(c).slice(1, -1)
      : `${codePoint(c).slice(1, -1)} (${name})`;
  });
}

function codePoint(c: string): string {
  return `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

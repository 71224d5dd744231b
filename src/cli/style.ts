/*
 * Colors for a terminal: errors red, warnings yellow, headings bold. A few ANSI codes, no
 * dependency (node:util's styleText checks neither the stream nor NO_COLOR before Node 22.13).
 * Only on a terminal, and never when asked not to: what a pipe, a file or a test reads stays plain.
 */

/** Text styles for one stream: each returns the text unchanged when colors are off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

/** What decides whether a stream gets colors. */
export interface ColorInputs {
  /** Whether the stream is a terminal (`process.stderr.isTTY`). */
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** `--color` (true) or `--no-color` (false); undefined when neither was given. */
  flag: boolean | undefined;
}

/**
 * Whether to color, highest first: `--color`/`--no-color`; FORCE_COLOR (any value but `0` or
 * `false` turns colors on, those two off), as Node itself reads it; NO_COLOR with any non-empty
 * value (no-color.org) off; TERM=dumb off; else on for a terminal only.
 */
export function colorWanted({ isTTY, env, flag }: ColorInputs): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

const code =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** The styles, colored or plain. */
export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: code(enabled, 1, 22),
    red: code(enabled, 31, 39),
    yellow: code(enabled, 33, 39),
    dim: code(enabled, 2, 22),
  };
}

/** No colors: the text as it is. */
export const PLAIN: Style = createStyle(false);

/** `--color` / `--no-color` as typed anywhere on the line (the last one wins), else undefined. */
export function colorFlag(argv: readonly string[]): boolean | undefined {
  let flag: boolean | undefined;
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg === '--color') flag = true;
    else if (arg === '--no-color') flag = false;
  }
  return flag;
}

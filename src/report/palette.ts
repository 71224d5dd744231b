import { TradelabError } from '../core/index.js';

/**
 * Series colours in order: distinct hues of similar weight that read on white and on a dark
 * background, and stay apart for the common red-green colour blindness (blue and orange first).
 */
export const CHART_PALETTE: readonly string[] = [
  '#2f6fdf',
  '#e8730c',
  '#2a9d4b',
  '#c43c5c',
  '#8a5cd6',
  '#12a3a3',
  '#b5892a',
  '#8c8c8c',
];

// Hex, a bare name, or rgb()/hsl() with plain numbers: nothing that could reach outside the page.
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]+|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\))$/i;
const SAFE_DASH = /^[0-9.,\s]+$/;

/** The colour for the series at `index`: the requested one when it is a plain CSS colour, else the palette's. */
export function seriesColor(index: number, requested?: string): string {
  if (requested === undefined) return CHART_PALETTE[index % CHART_PALETTE.length] ?? '#2f6fdf';
  if (!SAFE_COLOR.test(requested.trim())) {
    throw new TradelabError('INVALID_ARGUMENT', `unsupported series color "${requested}"`, {
      hint: 'use a hex colour (#2f6fdf), a CSS colour name (teal) or rgb()/hsl() with numbers',
    });
  }
  return requested.trim();
}

/** A validated SVG `stroke-dasharray` value, such as `6 4`. */
export function seriesDash(requested: string): string {
  if (!SAFE_DASH.test(requested.trim())) {
    throw new TradelabError('INVALID_ARGUMENT', `unsupported series dash "${requested}"`, {
      hint: 'use dash and gap lengths in pixels, such as "6 4"',
    });
  }
  return requested.trim();
}

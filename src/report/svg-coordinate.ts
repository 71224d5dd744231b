import { TradelabError } from '../core/index.js';

/**
 * A coordinate as the bar chart and heatmap write it: one decimal (a tenth of a pixel is finer than
 * any screen shows), no `-0`. A non-finite one means the caller mapped data through an empty range:
 * that is a bug in the chart, so it throws instead of writing `NaN` into the SVG.
 */
export function svgCoordinate(value: number): string {
  if (!Number.isFinite(value)) {
    throw new TradelabError('INTERNAL', `chart computed a non-finite coordinate (${value})`, {
      hint: 'report this with the data the chart was drawn from',
    });
  }
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

import { TradelabError } from '../core/index.js';
import { escapeHtml } from './escape-html.js';
import type { SvgMarkup } from './line-chart.js';
import { niceTicks } from './nice-ticks.js';
import { seriesColor } from './palette.js';
import { svgCoordinate as num } from './svg-coordinate.js';
import { formatTickNumber } from './tick-number-format.js';

/** One bar: a labelled, non-negative quantity such as a count or a share. */
export interface Bar {
  /** Text left of the bar (long ones are shortened; the tooltip keeps them whole). */
  readonly label: string;
  /** The bar's length: finite and >= 0. */
  readonly value: number;
  /** A CSS colour; default the palette's first (every bar alike: one quantity, one colour). */
  readonly color?: string;
}

/** Options for {@link renderBarChart}. */
export interface BarChartOptions {
  /** The bars, drawn top to bottom in this order. */
  readonly bars: readonly Bar[];
  /** Heading inside the chart; default none. */
  readonly title?: string;
  /** Appended to tick labels and to the value at each bar's end, such as `'%'`; default none. */
  readonly unit?: string;
  /** Decimals of the value at each bar's end; default 0 (counts). */
  readonly decimals?: number;
  /** ViewBox width; the SVG itself is 100 % wide. Default 900. */
  readonly width?: number;
  /** Height of one bar. Default 20. */
  readonly barHeight?: number;
  /** Shown instead of bars when there are none. Default `'no data'`. */
  readonly emptyMessage?: string;
}

const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
// Rough width of one 12px character, as in line-chart.ts: margins are sized from text length.
const CHAR_WIDTH = 7;
const PAD = 8;
const TITLE_HEIGHT = 22;
const BAR_GAP = 6;
const AXIS_HEIGHT = 24;
// Labels past this many characters are cut with an ellipsis, so one long name cannot squeeze the bars.
const MAX_LABEL_CHARS = 28;

/**
 * An inline `<svg>` horizontal bar chart from zero: a label left of each bar, the value at its end,
 * round ticks along the bottom. Each bar is a `<rect class="bar">` carrying `data-label` and
 * `data-value`, so a test or a script can read the chart back. A chart without bars says so.
 */
export function renderBarChart(options: BarChartOptions): SvgMarkup {
  const width = options.width ?? 900;
  const barHeight = options.barHeight ?? 20;
  if (!(width >= 200 && barHeight >= 4 && Number.isFinite(width) && Number.isFinite(barHeight))) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `bar chart size ${width}×${barHeight} is too small`,
      {
        hint: 'use a width of at least 200 and a bar height of at least 4',
      },
    );
  }
  options.bars.forEach((bar, i) => {
    if (!(Number.isFinite(bar.value) && bar.value >= 0)) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `bar ${i} ("${bar.label}") has the value ${bar.value}; bars start at zero and need a finite value >= 0`,
        { hint: 'leave the bar out, or draw signed values with renderLineChart or renderHeatmap' },
      );
    }
  });
  const unit = options.unit ?? '';
  const decimals = options.decimals ?? 0;
  let top = PAD;
  const head: string[] = [];
  if (options.title !== undefined && options.title !== '') {
    head.push(
      `<text x="${PAD}" y="${PAD + 14}" font-size="14" font-weight="600" fill="currentColor">${escapeHtml(options.title)}</text>`,
    );
    top += TITLE_HEIGHT;
  }
  const rows = options.bars.length;
  const height = top + Math.max(1, rows) * (barHeight + BAR_GAP) + AXIS_HEIGHT + PAD;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${num(height)}" width="100%" role="img" font-family="${escapeHtml(FONT_FAMILY)}" font-size="12" class="tradelab-chart tradelab-bar-chart">`,
    `<title>${escapeHtml(options.title ?? options.bars.map((b) => b.label).join(', '))}</title>`,
    ...head,
  ];
  if (rows === 0) {
    const frameHeight = height - top - PAD;
    parts.push(
      `<rect x="${PAD}" y="${num(top)}" width="${num(width - 2 * PAD)}" height="${num(frameHeight)}" fill="none" stroke="currentColor" stroke-opacity="0.25" stroke-dasharray="4 4"/>`,
      `<text x="${num(width / 2)}" y="${num(top + frameHeight / 2)}" dy="0.32em" text-anchor="middle" fill="currentColor" fill-opacity="0.6">${escapeHtml(options.emptyMessage ?? 'no data')}</text>`,
      '</svg>',
    );
    return parts.join('\n') as SvgMarkup;
  }

  const labels = options.bars.map((b) => shorten(b.label));
  const values = options.bars.map((b) => formatValue(b.value, decimals) + unit);
  const left = PAD + Math.max(...labels.map((l) => l.length)) * CHAR_WIDTH + 10;
  const right = width - PAD - Math.max(...values.map((v) => v.length)) * CHAR_WIDTH - 8;
  const plotWidth = Math.max(40, right - left);
  const largest = Math.max(...options.bars.map((b) => b.value));
  // All zero still needs a scale: a unit one, so the zero bars sit on a readable axis.
  // Bars of whole numbers (counts, decimals 0) get whole-number ticks: no 0.5 trials.
  const ticks = niceTicks(
    0,
    largest > 0 ? largest : 1,
    Math.max(3, Math.floor(plotWidth / 90)),
    decimals === 0,
  );
  const xPixel = (value: number): number => left + (value / ticks.max) * plotWidth;
  const bottom = top + rows * (barHeight + BAR_GAP);

  const grid = ticks.values.map((t) => `M${num(xPixel(t))} ${num(top)}V${num(bottom)}`).join('');
  parts.push(
    `<path d="${grid}" fill="none" stroke="currentColor" stroke-opacity="0.12"/>`,
    `<path d="M${num(left)} ${num(top)}V${num(bottom)}" stroke="currentColor" stroke-opacity="0.4"/>`,
  );
  const tickLabels = ticks.values.map(
    (t) =>
      `<text x="${num(xPixel(t))}" y="${num(bottom + 16)}" text-anchor="middle">${escapeHtml(formatTickNumber(t, ticks.step, ticks.max) + unit)}</text>`,
  );
  parts.push(`<g fill="currentColor" fill-opacity="0.75">\n${tickLabels.join('\n')}\n</g>`);

  const bars = options.bars.map((bar, i) => {
    const y = top + i * (barHeight + BAR_GAP) + BAR_GAP / 2;
    const middle = y + barHeight / 2;
    const end = xPixel(bar.value);
    const label = escapeHtml(bar.label);
    const value = escapeHtml(values[i] ?? '');
    return [
      `<text x="${num(left - 8)}" y="${num(middle)}" dy="0.32em" text-anchor="end" fill="currentColor">${escapeHtml(labels[i] ?? '')}</text>`,
      `<rect class="bar" x="${num(left)}" y="${num(y)}" width="${num(end - left)}" height="${num(barHeight)}" fill="${seriesColor(0, bar.color)}" data-label="${label}" data-value="${bar.value}"><title>${label}: ${value}</title></rect>`,
      `<text x="${num(end + 6)}" y="${num(middle)}" dy="0.32em" fill="currentColor" fill-opacity="0.85">${value}</text>`,
    ].join('\n');
  });
  parts.push(`<g class="bars">\n${bars.join('\n')}\n</g>`, '</svg>');
  return parts.join('\n') as SvgMarkup;
}

function shorten(label: string): string {
  return label.length <= MAX_LABEL_CHARS ? label : `${label.slice(0, MAX_LABEL_CHARS - 1)}…`;
}

function formatValue(value: number, decimals: number): string {
  return formatTickNumber(value, 10 ** -Math.max(0, Math.min(12, Math.floor(decimals))));
}

import { TradelabError } from '../core/index.js';
import { escapeHtml } from './escape-html.js';
import type { SvgMarkup } from './line-chart.js';
import { CHART_PALETTE } from './palette.js';
import { svgCoordinate as num } from './svg-coordinate.js';
import { formatTickNumber } from './tick-number-format.js';

/** How values map to colours. */
export type HeatmapScale =
  /** Signed values around `center`: blue above, orange below, pale at the centre. */
  | 'diverging'
  /** Magnitudes: pale at the smallest value, blue at the largest. */
  | 'sequential';

/** Options for {@link renderHeatmap}. */
export interface HeatmapOptions {
  /** One label per row, such as `#12` for trial 12. */
  readonly rowLabels: readonly string[];
  /** One label per column, such as `split 1`. */
  readonly columnLabels: readonly string[];
  /** `values[row][column]`; null, a non-finite number or a missing cell is drawn empty. */
  readonly values: readonly (readonly (number | null)[])[];
  /** Heading inside the chart; default none. */
  readonly title?: string;
  /** Default `'diverging'`. */
  readonly scale?: HeatmapScale;
  /** The value drawn palest on a diverging scale. Default 0. */
  readonly center?: number;
  /** Decimals of the values in tooltips and the legend. Default 2. */
  readonly decimals?: number;
  /** Tooltip of a cell; default `"ROW, COLUMN: VALUE"` (`no value` for an empty cell). */
  readonly cellTitle?: (row: number, column: number, value: number | null) => string;
  /** ViewBox width; the SVG itself is 100 % wide. Default 900. */
  readonly width?: number;
  /** Shown when no cell has a value. Default `'no data'`. */
  readonly emptyMessage?: string;
}

const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const CHAR_WIDTH = 7;
const PAD = 8;
const TITLE_HEIGHT = 22;
const COLUMN_LABEL_HEIGHT = 20;
const LEGEND_HEIGHT = 40;
// Rows get this much height in all, within the bounds below: a tall study stays on a page or two.
const ROWS_HEIGHT = 540;
const MIN_ROW_HEIGHT = 2;
const MAX_ROW_HEIGHT = 18;
// A row label needs about this much height; thinner rows label every n-th row only.
const LABEL_HEIGHT = 11;
const LEGEND_STEPS = 11;

// The palette's blue and orange (apart for red-green colour blindness) and a pale neutral between.
const HIGH = hexToRgb(CHART_PALETTE[0] ?? '#2f6fdf');
const LOW = hexToRgb(CHART_PALETTE[1] ?? '#e8730c');
const NEUTRAL: Rgb = [238, 240, 243];

type Rgb = readonly [number, number, number];

/**
 * An inline `<svg>` heatmap: a grid of cells coloured by value, with row and column labels and a
 * stepped colour legend (no gradients: an SVG id would clash between charts of one page). Each cell
 * is a `<rect class="cell">` with `data-row`, `data-column` and, when it has a value,
 * `data-value`; an empty cell is `class="cell empty"`, outlined and unfilled, so a missing result
 * never reads as a zero.
 */
export function renderHeatmap(options: HeatmapOptions): SvgMarkup {
  const width = options.width ?? 900;
  const rows = options.rowLabels.length;
  const columns = options.columnLabels.length;
  if (!(width >= 200 && Number.isFinite(width))) {
    throw new TradelabError('INVALID_ARGUMENT', `heatmap width ${width} is too small`, {
      hint: 'use a width of at least 200',
    });
  }
  if (options.values.length > rows) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `the heatmap has ${options.values.length} rows of values but ${rows} row labels`,
      { hint: 'give every row of values a label' },
    );
  }
  const decimals = options.decimals ?? 2;
  const format = (v: number): string => formatTickNumber(v, 10 ** -decimals);
  const valueAt = (row: number, column: number): number | null => {
    const v = options.values[row]?.[column];
    return v === undefined || v === null || !Number.isFinite(v) ? null : v;
  };
  const present: number[] = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < columns; c++) {
      const v = valueAt(r, c);
      if (v !== null) present.push(v);
    }

  let top = PAD;
  const parts: string[] = [
    '', // the <svg> tag, once the height is known
    `<title>${escapeHtml(options.title ?? 'heatmap')}</title>`,
  ];
  if (options.title !== undefined && options.title !== '') {
    parts.push(
      `<text x="${PAD}" y="${PAD + 14}" font-size="14" font-weight="600" fill="currentColor">${escapeHtml(options.title)}</text>`,
    );
    top += TITLE_HEIGHT;
  }
  if (present.length === 0) {
    const height = top + 80 + PAD;
    parts[0] = svgTag(width, height);
    parts.push(
      `<rect x="${PAD}" y="${num(top)}" width="${num(width - 2 * PAD)}" height="80" fill="none" stroke="currentColor" stroke-opacity="0.25" stroke-dasharray="4 4"/>`,
      `<text x="${num(width / 2)}" y="${num(top + 40)}" dy="0.32em" text-anchor="middle" fill="currentColor" fill-opacity="0.6">${escapeHtml(options.emptyMessage ?? 'no data')}</text>`,
      '</svg>',
    );
    return parts.join('\n') as SvgMarkup;
  }

  const scale = options.scale ?? 'diverging';
  const center = options.center ?? 0;
  const low = Math.min(...present);
  const high = Math.max(...present);
  // A diverging scale is symmetric, so equal distances from the centre get equal strength.
  const reach = Math.max(Math.abs(high - center), Math.abs(low - center)) || 1;
  const color = (v: number): string =>
    scale === 'diverging'
      ? mix(NEUTRAL, v >= center ? HIGH : LOW, Math.min(1, Math.abs(v - center) / reach))
      : mix(NEUTRAL, HIGH, high > low ? (v - low) / (high - low) : 1);

  const rowHeight = Math.max(
    MIN_ROW_HEIGHT,
    Math.min(MAX_ROW_HEIGHT, Math.floor(ROWS_HEIGHT / Math.max(1, rows))),
  );
  const labelEvery = Math.max(1, Math.ceil(LABEL_HEIGHT / rowHeight));
  const left = PAD + Math.max(1, ...options.rowLabels.map((l) => l.length)) * CHAR_WIDTH + 8;
  const cellWidth = (width - PAD - left) / Math.max(1, columns);
  top += COLUMN_LABEL_HEIGHT;
  const gridBottom = top + rows * rowHeight;
  const height = gridBottom + LEGEND_HEIGHT + PAD;
  parts[0] = svgTag(width, height);

  const columnLabels = options.columnLabels.map(
    (label, c) =>
      `<text x="${num(left + (c + 0.5) * cellWidth)}" y="${num(top - 6)}" text-anchor="middle">${escapeHtml(label)}</text>`,
  );
  parts.push(`<g fill="currentColor" fill-opacity="0.75">\n${columnLabels.join('\n')}\n</g>`);
  const rowLabels: string[] = [];
  for (let r = 0; r < rows; r += labelEvery)
    rowLabels.push(
      `<text x="${num(left - 6)}" y="${num(top + (r + 0.5) * rowHeight)}" dy="0.32em" text-anchor="end">${escapeHtml(options.rowLabels[r] ?? '')}</text>`,
    );
  parts.push(`<g fill="currentColor" fill-opacity="0.75">\n${rowLabels.join('\n')}\n</g>`);

  // A hairline between cells while they are tall enough to spare it.
  const gap = rowHeight >= 6 && cellWidth >= 6 ? 1 : 0;
  const cells: string[] = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < columns; c++) {
      const v = valueAt(r, c);
      const title =
        options.cellTitle?.(r, c, v) ??
        `${options.rowLabels[r] ?? ''}, ${options.columnLabels[c] ?? ''}: ${v === null ? 'no value' : format(v)}`;
      const box = `x="${num(left + c * cellWidth + gap / 2)}" y="${num(top + r * rowHeight + gap / 2)}" width="${num(cellWidth - gap)}" height="${num(rowHeight - gap)}"`;
      cells.push(
        v === null
          ? `<rect class="cell empty" ${box} data-row="${r}" data-column="${c}" fill="none" stroke="currentColor" stroke-opacity="0.25" stroke-dasharray="2 2"><title>${escapeHtml(title)}</title></rect>`
          : `<rect class="cell" ${box} data-row="${r}" data-column="${c}" data-value="${v}" fill="${color(v)}"><title>${escapeHtml(title)}</title></rect>`,
      );
    }
  parts.push(`<g class="cells">\n${cells.join('\n')}\n</g>`);
  parts.push(renderLegend(scale, center, reach, low, high, color, format, left, gridBottom + 12));
  parts.push('</svg>');
  return parts.join('\n') as SvgMarkup;
}

function svgTag(width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${num(height)}" width="100%" role="img" font-family="${escapeHtml(FONT_FAMILY)}" font-size="12" class="tradelab-chart tradelab-heatmap">`;
}

/** A row of colour steps from the lowest to the highest value shown, labelled at both ends. */
function renderLegend(
  scale: HeatmapScale,
  center: number,
  reach: number,
  low: number,
  high: number,
  color: (v: number) => string,
  format: (v: number) => string,
  left: number,
  top: number,
): string {
  const from = scale === 'diverging' ? center - reach : low;
  const to = scale === 'diverging' ? center + reach : high;
  const stepWidth = 16;
  const steps: string[] = [];
  for (let i = 0; i < LEGEND_STEPS; i++) {
    const v = from + ((to - from) * i) / (LEGEND_STEPS - 1);
    steps.push(
      `<rect x="${num(left + i * stepWidth)}" y="${num(top)}" width="${stepWidth}" height="10" fill="${color(v)}"/>`,
    );
  }
  const end = left + LEGEND_STEPS * stepWidth;
  return [
    `<g class="legend">`,
    ...steps,
    `<g fill="currentColor" fill-opacity="0.75">`,
    `<text x="${num(left)}" y="${num(top + 24)}">${escapeHtml(format(from))}</text>`,
    `<text x="${num(end)}" y="${num(top + 24)}" text-anchor="end">${escapeHtml(format(to))}</text>`,
    ...(scale === 'diverging'
      ? [
          `<text x="${num((left + end) / 2)}" y="${num(top + 24)}" text-anchor="middle">${escapeHtml(format(center))}</text>`,
        ]
      : []),
    `</g>`,
    `</g>`,
  ].join('\n');
}

function hexToRgb(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The colour `t` (0..1) of the way from `a` to `b`, as `rgb(…)`. */
function mix(a: Rgb, b: Rgb, t: number): string {
  const channel = (i: 0 | 1 | 2): number => Math.round(a[i] + (b[i] - a[i]) * t);
  return `rgb(${channel(0)},${channel(1)},${channel(2)})`;
}

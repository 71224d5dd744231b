import { TradelabError } from '../core/index.js';
import { decimateToPixelColumns } from './decimate.js';
import { escapeHtml } from './escape-html.js';
import { logTicks, niceTicks } from './nice-ticks.js';
import { seriesColor, seriesDash } from './palette.js';
import { formatTickNumber } from './tick-number-format.js';
import { timeTicks } from './time-ticks.js';

declare const svgMarkupBrand: unique symbol;

/** SVG markup made by this module's renderers, every text in it escaped: safe to embed as is. */
export type SvgMarkup = string & { readonly [svgMarkupBrand]: true };

/**
 * What x values are: plain numbers, whole numbers (trial numbers: ticks at whole numbers only), or
 * ms since the epoch shown as UTC dates.
 */
export type XKind = 'number' | 'integer' | 'time';

/** How the y axis maps values: evenly, or by ratio (for equity over many years). */
export type YScale = 'linear' | 'log';

/** One line on a chart. */
export interface LineSeries {
  /** Name in the legend. */
  readonly name: string;
  /** X values, as long as `y`; default the indices 0, 1, 2, … A non-finite x is a gap. */
  readonly x?: ArrayLike<number>;
  /** Y values; null, NaN and ±Infinity (and values <= 0 on a log axis) are gaps in the line. */
  readonly y: ArrayLike<number | null>;
  /** A CSS colour (hex, name, rgb()/hsl()); default the next colour of `CHART_PALETTE`. */
  readonly color?: string;
  /** An SVG dash pattern such as `"6 4"`; default a solid line. */
  readonly dash?: string;
  /** Shade the area between the line and zero (or the y-range edge nearest zero); default false. */
  readonly fill?: boolean;
}

/** A horizontal line across the plot, such as the initial equity. */
export interface ReferenceLine {
  /** Where the line sits on the y axis; the y range always includes it. */
  readonly y: number;
  /** Text at the right end of the line; default none. */
  readonly label?: string;
}

/** A span of x shaded behind the lines, such as the bars a model trained on. */
export interface ShadedSpan {
  /** Where the span starts and ends, in x units (clipped to the plot). */
  readonly from: number;
  readonly to: number;
  /** What it marks: its tooltip, and a caption at its top when it fits. */
  readonly label: string;
}

/** Options for {@link renderLineChart}. */
export interface LineChartOptions {
  /** The lines, drawn in order (later ones on top). */
  readonly series: readonly LineSeries[];
  /** Heading inside the chart; default none. */
  readonly title?: string;
  /** Caption under the x axis; default none. */
  readonly xLabel?: string;
  /** Caption beside the y axis; default none. */
  readonly yLabel?: string;
  /** Default `'number'`. */
  readonly xKind?: XKind;
  /** Default `'linear'`. */
  readonly yScale?: YScale;
  /** Default none. */
  readonly referenceLine?: ReferenceLine;
  /** Spans of x shaded behind the lines; default none. */
  readonly shade?: readonly ShadedSpan[];
  /** Fixed bottom of the y axis; default a round value at or below the data. */
  readonly yMin?: number;
  /** Fixed top of the y axis; default a round value at or above the data. */
  readonly yMax?: number;
  /** Appended to every y tick label, such as `'%'`; default none. */
  readonly yUnit?: string;
  /** ViewBox width; the SVG itself is 100 % wide. Default 900. */
  readonly width?: number;
  /** ViewBox height. Default 320. */
  readonly height?: number;
  /** Shown when no series has a drawable point. Default `'no data'`. */
  readonly emptyMessage?: string;
}

const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
// Rough width of one 12px character: margins and legend wrapping are sized from text length.
const CHAR_WIDTH = 7;
const PAD = 8;
const TITLE_HEIGHT = 22;
const LEGEND_ROW_HEIGHT = 18;
const RIGHT_MARGIN = 16;
const DAY_MS = 86_400_000;

interface PreparedSeries {
  readonly name: string;
  readonly color: string;
  readonly dash: string | undefined;
  readonly fill: boolean;
  readonly x: Float64Array;
  /** NaN marks a gap. */
  readonly y: Float64Array;
}

interface Tick {
  readonly value: number;
  readonly label: string;
}

interface Axis {
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly Tick[];
}

interface Extent {
  readonly xMin: number;
  readonly xMax: number;
  readonly yMin: number;
  readonly yMax: number;
}

/**
 * An inline `<svg>` line chart: series on a shared x axis with round ticks, gridlines, legend and
 * title. Long series are thinned per pixel column (spikes kept), gaps break lines, a lone point
 * is drawn as a dot, and a chart without data says so instead of throwing.
 */
export function renderLineChart(options: LineChartOptions): SvgMarkup {
  const width = options.width ?? 900;
  const height = options.height ?? 320;
  if (!(width >= 100 && height >= 80 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new TradelabError('INVALID_ARGUMENT', `chart size ${width}×${height} is too small`, {
      hint: 'use a width of at least 100 and a height of at least 80',
    });
  }
  const yScale = options.yScale ?? 'linear';
  const xKind = options.xKind ?? 'number';
  const series = options.series.map((s, i) => prepareSeries(s, i, yScale));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" font-family="${escapeHtml(FONT_FAMILY)}" font-size="12" class="tradelab-chart">`,
    `<title>${escapeHtml(options.title ?? series.map((s) => s.name).join(', '))}</title>`,
  ];
  let top = PAD;
  if (options.title !== undefined && options.title !== '') {
    parts.push(
      `<text x="${PAD}" y="${PAD + 14}" font-size="14" font-weight="600" fill="currentColor">${escapeHtml(options.title)}</text>`,
    );
    top += TITLE_HEIGHT;
  }

  const extent = dataExtent(series, options.referenceLine, yScale);
  if (extent === undefined) {
    parts.push(emptyMessage(options.emptyMessage ?? 'no data', width, height, top));
    parts.push('</svg>');
    return parts.join('\n') as SvgMarkup;
  }

  const legend = renderLegend(series, top, width);
  parts.push(legend.markup);
  top = legend.bottom + PAD;
  const bottom = height - (24 + (options.xLabel === undefined ? 0 : 18));
  const plotHeight = Math.max(20, bottom - top);
  const yAxis = buildYAxis(extent, options, yScale, Math.floor(plotHeight / 40) + 1);
  const widestYLabel = Math.max(1, ...yAxis.ticks.map((t) => t.label.length));
  const left = PAD + widestYLabel * CHAR_WIDTH + 8 + (options.yLabel === undefined ? 0 : 18);
  const right = width - RIGHT_MARGIN;
  const plotWidth = Math.max(20, right - left);
  const xAxis = buildXAxis(extent, xKind, plotWidth);

  const xPixel = (x: number): number =>
    left + ((x - xAxis.min) / (xAxis.max - xAxis.min)) * plotWidth;
  const toUnit = yScale === 'log' ? Math.log10 : (y: number): number => y;
  const yUnitMin = toUnit(yAxis.min);
  const yUnitSpan = toUnit(yAxis.max) - yUnitMin;
  // Values past a fixed yMin/yMax are pinned just outside the plot rather than drawn off the chart.
  const yPixel = (y: number): number =>
    clamp(
      top + plotHeight * (1 - (toUnit(y) - yUnitMin) / yUnitSpan),
      top - 2,
      top + plotHeight + 2,
    );

  parts.push(renderGrid(xAxis, yAxis, xPixel, yPixel, left, right, top, top + plotHeight));
  for (const span of options.shade ?? [])
    parts.push(renderShade(span, xAxis, xPixel, top, plotHeight));
  parts.push(renderYTickLabels(yAxis, yPixel, left));
  parts.push(renderXTickLabels(xAxis, xPixel, top + plotHeight, width));
  parts.push(renderAxisLabels(options, left, top, plotWidth, plotHeight, height));
  const reference = options.referenceLine;
  if (reference !== undefined && (yScale === 'linear' || reference.y > 0)) {
    parts.push(renderReferenceLine(reference, yPixel(reference.y), left, right));
  }
  const baseline = yScale === 'log' ? top + plotHeight : yPixel(clamp(0, yAxis.min, yAxis.max));
  for (const s of series) parts.push(renderSeries(s, xPixel, yPixel, baseline));
  parts.push('</svg>');
  return parts.join('\n') as SvgMarkup;
}

function prepareSeries(series: LineSeries, index: number, yScale: YScale): PreparedSeries {
  const length = series.y.length;
  if (series.x !== undefined && series.x.length !== length) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `series "${series.name}" has ${series.x.length} x values but ${length} y values`,
      { hint: 'pass one x value per y value, or leave x out to use the indices' },
    );
  }
  const x = new Float64Array(length);
  const y = new Float64Array(length);
  for (let i = 0; i < length; i++) {
    x[i] = series.x === undefined ? i : (series.x[i] ?? Number.NaN);
    const value = series.y[i] ?? Number.NaN;
    y[i] = Number.isFinite(value) && (yScale === 'linear' || value > 0) ? value : Number.NaN;
  }
  return {
    name: series.name,
    color: seriesColor(index, series.color),
    dash: series.dash === undefined ? undefined : seriesDash(series.dash),
    fill: series.fill ?? false,
    x,
    y,
  };
}

/** The range of the drawable points (and the reference line), or undefined when there are none. */
function dataExtent(
  series: readonly PreparedSeries[],
  reference: ReferenceLine | undefined,
  yScale: YScale,
): Extent | undefined {
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (const s of series) {
    for (let i = 0; i < s.y.length; i++) {
      const x = s.x[i] ?? Number.NaN;
      const y = s.y[i] ?? Number.NaN;
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      if (x < xMin) xMin = x;
      if (x > xMax) xMax = x;
      if (y < yMin) yMin = y;
      if (y > yMax) yMax = y;
    }
  }
  if (xMin > xMax) return undefined;
  const ref = reference?.y;
  if (ref !== undefined && Number.isFinite(ref) && (yScale === 'linear' || ref > 0)) {
    yMin = Math.min(yMin, ref);
    yMax = Math.max(yMax, ref);
  }
  return { xMin, xMax, yMin, yMax };
}

function buildYAxis(
  extent: Extent,
  options: LineChartOptions,
  yScale: YScale,
  maxTicks: number,
): Axis {
  const unit = options.yUnit ?? '';
  const fixedMin = options.yMin;
  const fixedMax = options.yMax;
  let low = fixedMin ?? extent.yMin;
  let high = fixedMax ?? extent.yMax;
  if (yScale === 'log') {
    if (
      (fixedMin !== undefined && !(fixedMin > 0)) ||
      (fixedMax !== undefined && !(fixedMax > 0))
    ) {
      throw new TradelabError('INVALID_ARGUMENT', `log axis bounds must be > 0`, {
        hint: 'drop yMin/yMax or pass positive values',
        details: { yMin: fixedMin, yMax: fixedMax },
      });
    }
    // A little room in log space so the extremes do not sit on the frame.
    const pad = low === high ? Math.log10(1.25) : 0.02 * Math.log10(high / low);
    if (fixedMin === undefined) low = low / 10 ** pad;
    if (fixedMax === undefined) high = high * 10 ** pad;
    checkBounds(low, high);
    const ticks = logTicks(low, high, maxTicks);
    return {
      min: low,
      max: high,
      ticks: ticks.values.map((value) => ({
        value,
        label:
          formatTickNumber(value, ticks.step || 10 ** Math.floor(Math.log10(value)), high) + unit,
      })),
    };
  }
  if (low >= high) {
    const pad = Math.abs(high) * 0.05 || 1;
    if (fixedMin === undefined) low = high - pad;
    if (fixedMax === undefined) high = Math.max(high, low) + pad;
  }
  checkBounds(low, high);
  const ticks = niceTicks(low, high, maxTicks);
  const min = fixedMin ?? ticks.min;
  const max = fixedMax ?? ticks.max;
  const maxAbs = Math.max(Math.abs(min), Math.abs(max));
  return {
    min,
    max,
    ticks: ticks.values
      .filter((value) => value >= min && value <= max)
      .map((value) => ({ value, label: formatTickNumber(value, ticks.step, maxAbs) + unit })),
  };
}

function checkBounds(low: number, high: number): void {
  if (!(low < high) || !Number.isFinite(low) || !Number.isFinite(high)) {
    throw new TradelabError('INVALID_ARGUMENT', `y axis range [${low}, ${high}] is empty`, {
      hint: 'pass yMin below yMax, or leave one of them out',
    });
  }
}

function buildXAxis(extent: Extent, xKind: XKind, plotWidth: number): Axis {
  let min = extent.xMin;
  let max = extent.xMax;
  if (min === max) {
    // A lone x still needs a range: a day around a timestamp, 5 % (or 1) around a number.
    const pad = xKind === 'time' ? DAY_MS : Math.abs(min) * 0.05 || 1;
    min -= pad;
    max += pad;
  }
  if (xKind === 'time') {
    const ticks = timeTicks(min, max, Math.floor(plotWidth / 110));
    return { min, max, ticks: ticks.map((t) => ({ value: t.time, label: t.label })) };
  }
  const ticks = niceTicks(min, max, Math.floor(plotWidth / 90), xKind === 'integer');
  const maxAbs = Math.max(Math.abs(min), Math.abs(max));
  return {
    min,
    max,
    ticks: ticks.values
      .filter((value) => value >= min && value <= max)
      .map((value) => ({ value, label: formatTickNumber(value, ticks.step, maxAbs) })),
  };
}

function renderLegend(
  series: readonly PreparedSeries[],
  top: number,
  width: number,
): { markup: string; bottom: number } {
  const named = series.filter((s) => s.name !== '');
  if (named.length === 0) return { markup: '', bottom: top - PAD };
  const items: string[] = [];
  let x = PAD;
  let rowTop = top;
  for (const s of named) {
    const itemWidth = 22 + s.name.length * CHAR_WIDTH;
    if (x > PAD && x + itemWidth > width - PAD) {
      x = PAD;
      rowTop += LEGEND_ROW_HEIGHT;
    }
    const middle = rowTop + LEGEND_ROW_HEIGHT / 2;
    items.push(
      `<line x1="${num(x)}" y1="${num(middle)}" x2="${num(x + 16)}" y2="${num(middle)}" stroke="${s.color}" stroke-width="2.5"${dashAttribute(s.dash)}/>`,
      `<text x="${num(x + 22)}" y="${num(middle)}" dy="0.32em">${escapeHtml(s.name)}</text>`,
    );
    x += itemWidth + 16;
  }
  return {
    markup: `<g class="legend" fill="currentColor">\n${items.join('\n')}\n</g>`,
    bottom: rowTop + LEGEND_ROW_HEIGHT,
  };
}

function renderGrid(
  xAxis: Axis,
  yAxis: Axis,
  xPixel: (x: number) => number,
  yPixel: (y: number) => number,
  left: number,
  right: number,
  top: number,
  bottom: number,
): string {
  const horizontal = yAxis.ticks.map((t) => `M${num(left)} ${num(yPixel(t.value))}H${num(right)}`);
  const vertical = xAxis.ticks.map((t) => `M${num(xPixel(t.value))} ${num(top)}V${num(bottom)}`);
  return [
    `<path d="${[...horizontal, ...vertical].join('')}" fill="none" stroke="currentColor" stroke-opacity="0.12"/>`,
    `<path d="M${num(left)} ${num(bottom)}H${num(right)}" stroke="currentColor" stroke-opacity="0.4"/>`,
  ].join('\n');
}

function renderYTickLabels(axis: Axis, yPixel: (y: number) => number, left: number): string {
  const labels = axis.ticks.map(
    (t) =>
      `<text x="${num(left - 6)}" y="${num(yPixel(t.value))}" dy="0.32em">${escapeHtml(t.label)}</text>`,
  );
  return `<g fill="currentColor" fill-opacity="0.75" text-anchor="end">\n${labels.join('\n')}\n</g>`;
}

function renderXTickLabels(
  axis: Axis,
  xPixel: (x: number) => number,
  bottom: number,
  width: number,
): string {
  const labels = axis.ticks.map((t) => {
    const x = xPixel(t.value);
    const half = (t.label.length * CHAR_WIDTH) / 2;
    // Slide labels near the edges just inside the viewBox, as little as needed.
    const center = clamp(x, half + 2, width - half - 2);
    return `<text x="${num(center)}" y="${num(bottom + 16)}" text-anchor="middle">${escapeHtml(t.label)}</text>`;
  });
  return `<g fill="currentColor" fill-opacity="0.75">\n${labels.join('\n')}\n</g>`;
}

function renderAxisLabels(
  options: LineChartOptions,
  left: number,
  top: number,
  plotWidth: number,
  plotHeight: number,
  height: number,
): string {
  const labels: string[] = [];
  if (options.xLabel !== undefined) {
    labels.push(
      `<text x="${num(left + plotWidth / 2)}" y="${num(height - 6)}" text-anchor="middle">${escapeHtml(options.xLabel)}</text>`,
    );
  }
  if (options.yLabel !== undefined) {
    const x = PAD + 6;
    const y = top + plotHeight / 2;
    labels.push(
      `<text x="${num(x)}" y="${num(y)}" transform="rotate(-90 ${num(x)} ${num(y)})" text-anchor="middle" dy="0.32em">${escapeHtml(options.yLabel)}</text>`,
    );
  }
  return labels.length === 0 ? '' : `<g fill="currentColor">\n${labels.join('\n')}\n</g>`;
}

/** A shaded span of the plot, clipped to the x axis; nothing when it misses the plot. */
function renderShade(
  span: ShadedSpan,
  xAxis: Axis,
  xPixel: (x: number) => number,
  top: number,
  plotHeight: number,
): string {
  const from = Math.max(span.from, xAxis.min);
  const to = Math.min(span.to, xAxis.max);
  if (!(from < to)) return '';
  const x = xPixel(from);
  const width = xPixel(to) - x;
  const rect = `<rect class="tradelab-shade" x="${num(x)}" y="${num(top)}" width="${num(width)}" height="${num(plotHeight)}" fill="currentColor" fill-opacity="0.08"><title>${escapeHtml(span.label)}</title></rect>`;
  if (span.label.length * CHAR_WIDTH * (11 / 12) > width - 8) return rect;
  return `${rect}\n<text x="${num(x + 4)}" y="${num(top + 12)}" font-size="11" fill="currentColor" fill-opacity="0.6">${escapeHtml(span.label)}</text>`;
}

function renderReferenceLine(
  reference: ReferenceLine,
  y: number,
  left: number,
  right: number,
): string {
  const line = `<path d="M${num(left)} ${num(y)}H${num(right)}" stroke="currentColor" stroke-opacity="0.55" stroke-dasharray="4 4"/>`;
  if (reference.label === undefined || reference.label === '') return line;
  return `${line}\n<text x="${num(right - 4)}" y="${num(y - 4)}" text-anchor="end" font-size="11" fill="currentColor" fill-opacity="0.7">${escapeHtml(reference.label)}</text>`;
}

function renderSeries(
  series: PreparedSeries,
  xPixel: (x: number) => number,
  yPixel: (y: number) => number,
  baseline: number,
): string {
  const px = new Float64Array(series.x.length);
  const py = new Float64Array(series.y.length);
  for (let i = 0; i < px.length; i++) {
    const y = series.y[i] ?? Number.NaN;
    px[i] = xPixel(series.x[i] ?? Number.NaN);
    py[i] = Number.isNaN(y) ? Number.NaN : yPixel(y);
  }
  const lines: string[] = [];
  const areas: string[] = [];
  const dots: string[] = [];
  for (const polyline of decimateToPixelColumns(px, py)) {
    const points = distinctPoints(polyline.x, polyline.y);
    const [firstPoint] = points;
    const lastPoint = points.at(-1);
    if (firstPoint === undefined || lastPoint === undefined) continue;
    if (points.length === 1) {
      dots.push(`<circle cx="${firstPoint[0]}" cy="${firstPoint[1]}" r="2.5"/>`);
      continue;
    }
    const path = points.map(([x, y]) => `${x} ${y}`).join(' ');
    lines.push(`M${path}`);
    if (series.fill) {
      const base = num(baseline);
      areas.push(`M${firstPoint[0]} ${base}L${path} ${lastPoint[0]} ${base}Z`);
    }
  }
  const parts: string[] = [];
  const name = escapeHtml(series.name);
  if (areas.length > 0) {
    parts.push(
      `<path d="${areas.join('')}" fill="${series.color}" fill-opacity="0.2" stroke="none"/>`,
    );
  }
  if (lines.length > 0) {
    parts.push(
      `<path d="${lines.join('')}" fill="none" stroke="${series.color}" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round"${dashAttribute(series.dash)}/>`,
    );
  }
  if (dots.length > 0) parts.push(`<g fill="${series.color}">${dots.join('')}</g>`);
  return `<g class="series" data-name="${name}">\n${parts.join('\n')}\n</g>`;
}

/** Coordinates as written (one decimal), with repeats that would add nothing to the path dropped. */
function distinctPoints(x: readonly number[], y: readonly number[]): [string, string][] {
  const points: [string, string][] = [];
  let previous = '';
  for (let i = 0; i < x.length; i++) {
    const point: [string, string] = [num(x[i] ?? 0), num(y[i] ?? 0)];
    const key = `${point[0]} ${point[1]}`;
    if (key === previous) continue;
    previous = key;
    points.push(point);
  }
  return points;
}

function emptyMessage(message: string, width: number, height: number, top: number): string {
  const frameHeight = Math.max(20, height - top - PAD);
  return [
    `<rect x="${PAD}" y="${num(top)}" width="${num(width - 2 * PAD)}" height="${num(frameHeight)}" fill="none" stroke="currentColor" stroke-opacity="0.25" stroke-dasharray="4 4"/>`,
    `<text x="${num(width / 2)}" y="${num(top + frameHeight / 2)}" dy="0.32em" text-anchor="middle" fill="currentColor" fill-opacity="0.6">${escapeHtml(message)}</text>`,
  ].join('\n');
}

function dashAttribute(dash: string | undefined): string {
  return dash === undefined ? '' : ` stroke-dasharray="${dash}"`;
}

/** A coordinate with one decimal: a tenth of a pixel is finer than any screen shows. */
function num(value: number): string {
  // Every caller maps finite data through a non-empty range; anything else is a bug here.
  if (!Number.isFinite(value)) {
    throw new TradelabError('INTERNAL', `line chart computed a non-finite coordinate (${value})`);
  }
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

import type UPlotType from 'uplot';
import { h } from './dom.js';
import { UPlot } from './uplot.js';

/** Series colors, in order. */
export const COLORS = [
  '#2563eb',
  '#f79009',
  '#12805c',
  '#c4320a',
  '#7a5af8',
  '#0e9384',
  '#dd2590',
  '#667085',
];

/** A series of {@link lineChart}. */
export interface LineSeries {
  label: string;
  values: (number | null)[];
  color?: string;
  /** Dots at the points (an optimization history's trials). */
  points?: boolean;
  /** No line between the points. */
  lineless?: boolean;
  dash?: number[];
}

/** Options of {@link lineChart}. */
export interface LineChartOptions {
  x: number[];
  series: LineSeries[];
  /** x holds times in ms (shown as dates). */
  time?: boolean;
  /** x holds whole numbers (trials, splits): ticks only at whole numbers. */
  integerX?: boolean;
  xLabel: string;
  yLabel: string;
  height?: number;
}

/**
 * Draws a uPlot chart into `container` (replacing what was there) and records how many points it
 * drew in `data-points`, which the browser tests read.
 */
export function lineChart(container: HTMLElement, options: LineChartOptions): void {
  container.replaceChildren();
  const drawn = options.series.reduce(
    (n, s) => n + s.values.filter((v) => v !== null && Number.isFinite(v)).length,
    0,
  );
  container.dataset.points = String(drawn);
  if (options.x.length === 0 || drawn === 0) {
    container.append(h('div', { class: 'empty' }, 'No data yet.'));
    return;
  }
  const time = options.time === true;
  // uPlot takes seconds for time scales.
  const x = time ? options.x.map((t) => t / 1000) : options.x;
  const series: UPlotType.Series[] = [
    { label: options.xLabel },
    ...options.series.map((s, i): UPlotType.Series => {
      const color = s.color ?? COLORS[i % COLORS.length] ?? '#2563eb';
      return {
        label: s.label,
        stroke: color,
        width: s.lineless === true ? 0 : 1.5,
        spanGaps: true,
        ...(s.dash === undefined ? {} : { dash: s.dash }),
        points: { show: s.points === true, size: 6, fill: color, stroke: color },
        ...(s.lineless === true ? { paths: () => null } : {}),
      };
    }),
  ];
  const width = Math.max(320, container.clientWidth || 600);
  new UPlot(
    {
      width,
      height: options.height ?? 260,
      scales: { x: { time } },
      series,
      axes: [
        {
          label: options.xLabel,
          ...(options.integerX === true
            ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }
            : {}),
        },
        { label: options.yLabel, size: 60 },
      ],
      legend: { show: true },
      cursor: { drag: { x: true, y: false } },
    },
    [x, ...options.series.map((s) => s.values)] as UPlotType.AlignedData,
    container,
  );
}

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Horizontal bars (parameter importance), largest first as given. */
export function barChart(
  container: HTMLElement,
  items: { label: string; value: number; note?: string }[],
): void {
  container.replaceChildren();
  container.dataset.points = String(items.length);
  if (items.length === 0) {
    container.append(h('div', { class: 'empty' }, 'No data yet.'));
    return;
  }
  const width = Math.max(320, container.clientWidth || 600);
  const row = 24;
  const labelW = 170;
  const max = Math.max(...items.map((i) => i.value), 1e-12);
  const root = svg('svg', { width, height: items.length * row + 10, role: 'img' });
  items.forEach((item, i) => {
    const y = i * row + 4;
    const w = ((width - labelW - 70) * item.value) / max;
    root.append(svg('text', { x: labelW - 8, y: y + 14, 'text-anchor': 'end' }, item.label));
    root.append(
      svg('rect', {
        x: labelW,
        y,
        width: Math.max(1, w),
        height: row - 8,
        fill: COLORS[0] ?? '#2563eb',
        rx: 2,
      }),
    );
    root.append(svg('text', { x: labelW + w + 6, y: y + 14 }, item.note ?? String(item.value)));
  });
  container.append(root);
}

/** One axis of {@link parallelCoordinates}. */
export interface Dimension {
  name: string;
  values: (number | string | boolean | null)[];
  /** Spread the axis by ratio (a parameter searched on a log scale). Default false. */
  log?: boolean;
}

/**
 * A value as an axis label: whole numbers exactly (a netDim of 2048 is 2048, not "2050"), others to
 * four significant digits, tiny and huge ones in exponent form.
 */
export function axisLabel(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
    return v.toExponential(2).replace(/\.?0+e/, 'e');
  }
  return String(Number(v.toPrecision(4)));
}

/** A text cut to `chars` characters with an ellipsis, so neighbouring axes' labels never meet. */
function fit(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;
}

/**
 * Parallel coordinates: one vertical axis per dimension, one polyline per trial, colored from low
 * (grey) to high (blue) by `color` (the objective value). Categorical axes space their choices
 * evenly, log axes by ratio. Each axis's name sits above it and its top and bottom values at its
 * ends, all centred and cut to the space between axes, so no label runs into the next axis's.
 */
export function parallelCoordinates(
  container: HTMLElement,
  dimensions: Dimension[],
  color: (number | null)[],
): void {
  container.replaceChildren();
  const n = color.length;
  container.dataset.points = String(n);
  if (n === 0 || dimensions.length < 2) {
    container.append(h('div', { class: 'empty' }, 'Needs complete trials with parameters.'));
    return;
  }
  const width = Math.max(360, container.clientWidth || 700);
  const height = 300;
  const top = 40;
  const bottom = 30;
  const left = 44;
  const gap = (width - 2 * left) / Math.max(1, dimensions.length - 1);
  // About 6.5 px a character at 11 px: what fits between two axes.
  const chars = Math.max(4, Math.floor((gap - 6) / 6.5));
  const scales = dimensions.map((d) => {
    const numeric = d.values.every((v) => v === null || typeof v === 'number');
    if (numeric) {
      const vs = d.values.filter((v): v is number => typeof v === 'number');
      const log = d.log === true && vs.every((v) => v > 0);
      const t = (v: number): number => (log ? Math.log10(v) : v);
      const lo = Math.min(...vs);
      const hi = Math.max(...vs);
      return {
        at: (v: unknown) =>
          typeof v === 'number' ? (hi === lo ? 0.5 : (t(v) - t(lo)) / (t(hi) - t(lo))) : null,
        ticks: [
          [1, axisLabel(hi)],
          [0, axisLabel(lo)],
        ] as [number, string][],
        log,
      };
    }
    const choices = [...new Set(d.values.filter((v) => v !== null).map(String))].sort();
    return {
      at: (v: unknown) =>
        v === null
          ? null
          : choices.length === 1
            ? 0.5
            : choices.indexOf(typeof v === 'string' ? v : JSON.stringify(v)) / (choices.length - 1),
      ticks: choices.map(
        (c, i) => [choices.length === 1 ? 0.5 : i / (choices.length - 1), c] as [number, string],
      ),
      log: false,
    };
  });
  const finite = color.filter((c): c is number => c !== null && Number.isFinite(c));
  const cLo = Math.min(...finite);
  const cHi = Math.max(...finite);
  const y = (f: number): number => top + (1 - f) * (height - top - bottom);
  const root = svg('svg', { width, height, role: 'img', 'font-size': 11 });
  for (let t = 0; t < n; t++) {
    const points: string[] = [];
    dimensions.forEach((d, i) => {
      const f = scales[i]?.at(d.values[t] ?? null);
      if (f !== null && f !== undefined) points.push(`${left + i * gap},${y(f)}`);
    });
    const c = color[t];
    const f = c === null || c === undefined || cHi === cLo ? 0.5 : (c - cLo) / (cHi - cLo);
    const rgb = `rgb(${Math.round(180 - 143 * f)},${Math.round(190 - 91 * f)},${Math.round(200 + 35 * f)})`;
    root.append(
      svg('polyline', {
        points: points.join(' '),
        fill: 'none',
        stroke: rgb,
        'stroke-width': 1.2,
        'stroke-opacity': 0.4 + 0.6 * f,
      }),
    );
  }
  dimensions.forEach((d, i) => {
    const x = left + i * gap;
    const scale = scales[i];
    root.append(svg('line', { x1: x, x2: x, y1: top, y2: height - bottom, stroke: '#98a2b3' }));
    const name = `${d.name}${scale?.log === true ? ' (log)' : ''}`;
    // The whole name in a tooltip, when it had to be cut.
    const heading = svg('g', {});
    heading.append(
      svg('title', {}, name),
      svg('text', { x, y: 13, 'text-anchor': 'middle', 'font-weight': 600 }, fit(name, chars)),
    );
    root.append(heading);
    for (const [f, label] of scale?.ticks ?? []) {
      // The ends above and below the axis; a categorical axis's inner choices beside it.
      const end = f === 1 || f === 0;
      const text = svg(
        'text',
        end
          ? { x, y: f === 1 ? top - 6 : height - bottom + 14, 'text-anchor': 'middle' }
          : { x: x + 4, y: y(f) + 4 },
        fit(label, end ? chars : Math.max(4, chars - 2)),
      );
      text.setAttribute('data-value', label);
      root.append(text);
    }
  });
  container.append(root);
}

import { renderLineChart, type ShadedSpan, type SvgMarkup, type XKind } from './line-chart.js';

/** An equity curve to draw under water. */
export interface DrawdownSeries {
  /** Name in the legend. */
  readonly name: string;
  /** X values, as long as `equity`; default the indices 0, 1, 2, … */
  readonly x?: ArrayLike<number>;
  /** Equity values (> 0); null, non-finite and non-positive values are gaps. */
  readonly equity: ArrayLike<number | null>;
  /** A CSS colour; default the palette's. */
  readonly color?: string;
}

/** Options for {@link renderDrawdownChart}. */
export interface DrawdownChartOptions {
  /** The equity curves, usually the policy's and buy-and-hold's. */
  readonly series: readonly DrawdownSeries[];
  /** Default `'Drawdown'`. */
  readonly title?: string;
  /** Default `'number'`. */
  readonly xKind?: XKind;
  /** Caption under the x axis; default none. */
  readonly xLabel?: string;
  /** ViewBox width. Default 900. */
  readonly width?: number;
  /** ViewBox height; shorter than a line chart as it sits under one. Default 200. */
  readonly height?: number;
  /** Spans of x shaded behind the curves; default none. */
  readonly shade?: readonly ShadedSpan[];
}

/**
 * The underwater curve of an equity series: at each point, how far (in percent, <= 0) the equity is
 * below its highest value so far. Gaps in the equity stay gaps and do not reset the peak.
 */
export function underwaterPercent(equity: ArrayLike<number | null>): Float64Array {
  const underwater = new Float64Array(equity.length);
  let peak = 0;
  for (let i = 0; i < equity.length; i++) {
    const value = equity[i] ?? Number.NaN;
    if (!(value > 0) || !Number.isFinite(value)) {
      underwater[i] = Number.NaN;
      continue;
    }
    peak = Math.max(peak, value);
    underwater[i] = (value / peak - 1) * 100;
  }
  return underwater;
}

/** An inline `<svg>` area chart of each equity curve's drawdown in percent, zero at the top. */
export function renderDrawdownChart(options: DrawdownChartOptions): SvgMarkup {
  return renderLineChart({
    series: options.series.map((s) => ({
      name: s.name,
      ...(s.x === undefined ? {} : { x: s.x }),
      y: underwaterPercent(s.equity),
      ...(s.color === undefined ? {} : { color: s.color }),
      fill: true,
    })),
    title: options.title ?? 'Drawdown',
    xKind: options.xKind ?? 'number',
    ...(options.xLabel === undefined ? {} : { xLabel: options.xLabel }),
    yMax: 0,
    yUnit: '%',
    ...(options.shade === undefined ? {} : { shade: options.shade }),
    width: options.width ?? 900,
    height: options.height ?? 200,
  });
}

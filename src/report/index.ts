export {
  renderLineChart,
  type LineChartOptions,
  type LineSeries,
  type ReferenceLine,
  type ShadedSpan,
  type SvgMarkup,
  type XKind,
  type YScale,
} from './line-chart.js';
export {
  renderDrawdownChart,
  underwaterPercent,
  type DrawdownChartOptions,
  type DrawdownSeries,
} from './drawdown-chart.js';
export {
  renderHtmlReport,
  type HtmlReport,
  type ReportFact,
  type ReportSection,
  type ReportTable,
} from './html-report.js';
export { CHART_PALETTE } from './palette.js';
export { escapeHtml } from './escape-html.js';
export { niceTicks, logTicks, type NiceTicks } from './nice-ticks.js';
export { timeTicks, type TimeTick } from './time-ticks.js';
export { decimateToPixelColumns, type Polyline } from './decimate.js';

/*
 * What a page's charts drew, measured inside the page (playwright's evaluate): the campaign's HTML
 * report tests check every figure.chart has marks with extent, not empty axes.
 */

/** What one chart shows in the browser, measured on the rendered page. */
export interface DrawnChart {
  chart: string;
  study: string | null;
  /** The figure's rendered height (px). */
  height: number;
  /** Series lines with at least two points and a rendered extent. */
  lines: number;
  /** Lone points (dots). */
  dots: number;
  /** Bars with a rendered width. */
  bars: number;
  /** Heatmap cells with a fill. */
  filledCells: number;
  emptyCells: number;
}

/** The little of the DOM the check runs in the page reads; the project compiles without DOM types. */
export interface PageElement {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getBoundingClientRect(): { width: number; height: number };
  textContent: string | null;
}

/** Runs in the page: each figure.chart's drawn marks. */
export function measureCharts(): DrawnChart[] {
  const doc = (globalThis as unknown as { document: PageElement }).document;
  const all = (root: PageElement, selector: string): PageElement[] =>
    Array.from(root.querySelectorAll(selector));
  return all(doc, 'figure.chart').map((figure) => ({
    chart: figure.getAttribute('data-chart') ?? '',
    study: figure.getAttribute('data-study'),
    height: figure.getBoundingClientRect().height,
    lines: all(figure, 'g.series path').filter((path) => {
      const points = (path.getAttribute('d') ?? '').match(/-?\d+(\.\d+)? -?\d+(\.\d+)?/g) ?? [];
      const box = path.getBoundingClientRect();
      return points.length >= 2 && box.width + box.height > 2;
    }).length,
    dots: all(figure, 'g.series circle').filter((c) => c.getBoundingClientRect().width > 0).length,
    bars: all(figure, 'rect.bar').filter((bar) => bar.getBoundingClientRect().width > 0.5).length,
    filledCells: all(figure, 'rect.cell').filter((cell) => {
      const fill = cell.getAttribute('fill') ?? 'none';
      return !cell.getAttribute('class')?.includes('empty') && fill !== 'none';
    }).length,
    emptyCells: all(figure, 'rect.cell.empty').length,
  }));
}

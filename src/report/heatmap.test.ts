import { describe, expect, it } from 'vitest';
import { renderHeatmap } from './heatmap.js';

/** The cells of a heatmap as drawn. */
function cells(svg: string): { row: number; column: number; fill: string; empty: boolean }[] {
  return [
    ...svg.matchAll(
      /<rect class="cell( empty)?"[^>]*data-row="(\d+)" data-column="(\d+)"[^>]*fill="([^"]*)"/g,
    ),
  ].map((m) => ({
    empty: m[1] !== undefined,
    row: Number(m[2]),
    column: Number(m[3]),
    fill: m[4] ?? '',
  }));
}

describe('renderHeatmap', () => {
  const svg = renderHeatmap({
    title: 'Sharpe by split',
    rowLabels: ['#0', '#1', '#2'],
    columnLabels: ['split 1', 'split 2', 'split 3'],
    values: [
      [1.5, 0.2, -0.4],
      [-1.5, null], // pruned after split 2: the third cell is missing
      [0, Number.NaN, 0.75],
    ],
  });

  it('draws every cell, leaving missing values empty rather than zero', () => {
    const drawn = cells(svg);
    expect(drawn).toHaveLength(9);
    expect(drawn.filter((c) => c.empty).map((c) => [c.row, c.column])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    expect(drawn.filter((c) => c.empty).every((c) => c.fill === 'none')).toBe(true);
  });

  it('colours a diverging scale blue above the centre, orange below, pale at it', () => {
    const fill = (row: number, column: number): string =>
      cells(svg).find((c) => c.row === row && c.column === column)?.fill ?? '';
    expect(fill(0, 0)).toBe('rgb(47,111,223)'); // +1.5, the largest distance: the palette's blue
    expect(fill(1, 0)).toBe('rgb(232,115,12)'); // -1.5: the palette's orange
    expect(fill(2, 0)).toBe('rgb(238,240,243)'); // 0: neutral
  });

  it('labels rows, columns and the legend, and gives each cell a tooltip', () => {
    expect(svg).toContain('>split 2</text>');
    expect(svg).toContain('>#1</text>');
    expect(svg).toContain('<title>#0, split 1: 1.50</title>');
    expect(svg).toContain('<title>#1, split 3: no value</title>');
    expect(svg).toContain('>-1.50</text>');
    expect(svg).toContain('>1.50</text>');
    expect(svg).toContain('text-anchor="middle">0.00</text>'); // the centre of the scale
  });

  it('labels only every n-th row when rows are too thin for a label each', () => {
    const many = renderHeatmap({
      rowLabels: Array.from({ length: 200 }, (_, i) => `#${i}`),
      columnLabels: ['a'],
      values: Array.from({ length: 200 }, (_, i) => [i]),
      scale: 'sequential',
    });
    expect(cells(many)).toHaveLength(200);
    expect(many).toContain('>#0</text>');
    expect(many).not.toContain('>#1</text>');
    expect(many).not.toMatch(/NaN|Infinity/);
  });

  it('says so when no cell has a value, and escapes every text', () => {
    const empty = renderHeatmap({
      title: '<script>',
      rowLabels: ['<r>'],
      columnLabels: ['c'],
      values: [[null]],
      emptyMessage: 'no split results yet',
    });
    expect(empty).toContain('no split results yet');
    expect(empty).not.toContain('class="cell');
    expect(empty).not.toContain('<script>');
  });

  it('refuses more rows of values than row labels', () => {
    expect(() => renderHeatmap({ rowLabels: [], columnLabels: ['a'], values: [[1]] })).toThrow(
      /1 rows of values but 0 row labels/,
    );
  });
});

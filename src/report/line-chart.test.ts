import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../core/index.js';
import { renderLineChart } from './line-chart.js';

/** The y coordinates of every point in the `d` attributes of the series paths. */
function seriesYs(svg: string): number[] {
  const ys: number[] = [];
  for (const group of svg.split('<g class="series"').slice(1)) {
    const d = /<path d="([^"]*)" fill="none"/.exec(group)?.[1] ?? '';
    for (const subpath of d.split('M').slice(1)) {
      const numbers = subpath.trim().split(/\s+/).map(Number);
      for (let i = 1; i < numbers.length; i += 2) ys.push(numbers[i] ?? Number.NaN);
    }
  }
  return ys;
}

/** The y coordinates of the horizontal gridlines: the top and bottom ones bound the y axis. */
function gridYs(svg: string): number[] {
  const d = /<path d="([^"]*)" fill="none" stroke="currentColor" stroke-opacity="0.12"/.exec(svg);
  return [...(d?.[1] ?? '').matchAll(/M[\d.]+ ([\d.]+)H/g)].map((m) => Number(m[1]));
}

function tickLabels(svg: string): string[] {
  return [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
}

describe('renderLineChart', () => {
  it('is a responsive inline SVG of the default size', () => {
    const svg = renderLineChart({ series: [{ name: 'equity', y: [1, 2, 3] }] });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 900 320"')).toBe(
      true,
    );
    expect(svg).toContain('width="100%"');
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  });

  it('escapes series names, titles and axis labels', () => {
    const svg = renderLineChart({
      title: 'A & B',
      xLabel: '"x"',
      yLabel: "y's",
      series: [{ name: '<script>alert(1)</script>', y: [1, 2] }],
    });
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('A &amp; B');
    expect(svg).toContain('&quot;x&quot;');
    expect(svg).toContain('y&#39;s');
  });

  it('gives the y axis round ticks that cover the data', () => {
    const svg = renderLineChart({ series: [{ name: 'e', y: [9_432, 10_100, 12_871] }] });
    const labels = tickLabels(svg);
    expect(labels).toContain('9,000');
    expect(labels).toContain('13,000');
  });

  it('keeps a spike and a dip of a 100,000-point series while staying small', () => {
    const n = 100_000;
    const policy = Float64Array.from({ length: n }, (_, i) => 0.5 + 0.4 * Math.sin(i / 500));
    const benchmark = Float64Array.from({ length: n }, (_, i) => 0.5 + 0.3 * Math.cos(i / 700));
    policy[43_210] = 10;
    policy[87_654] = -10;
    const svg = renderLineChart({
      series: [
        { name: 'policy', y: policy },
        { name: 'buy-and-hold', y: benchmark },
      ],
    });
    expect(svg.length).toBeLessThan(200_000);
    // The axis runs from -10 to 10, so the spike touches the top gridline and the dip the bottom.
    const grid = gridYs(svg);
    const ys = seriesYs(svg);
    expect(Math.min(...ys)).toBe(Math.min(...grid));
    expect(Math.max(...ys)).toBe(Math.max(...grid));
  });

  it('breaks the line at null, NaN and infinite values', () => {
    const svg = renderLineChart({
      series: [{ name: 'gappy', y: [1, 2, null, 3, 4, Number.NaN, 5, 6, Infinity, 7, 8] }],
    });
    const d = /<path d="([^"]*)" fill="none" stroke="#/.exec(svg)?.[1] ?? '';
    expect(d.match(/M/g)).toHaveLength(4);
  });

  it('draws a lone point as a dot', () => {
    const svg = renderLineChart({ series: [{ name: 'one', x: [5], y: [42] }] });
    expect(svg).toMatch(/<circle cx="[\d.]+" cy="[\d.]+" r="2.5"\/>/);
    expect(tickLabels(svg)).toContain('42');
  });

  it('pads the y range of a constant series', () => {
    const svg = renderLineChart({ series: [{ name: 'flat', y: [100, 100, 100] }] });
    const grid = gridYs(svg);
    const ys = seriesYs(svg);
    expect(grid.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ys).size).toBe(1);
    expect(ys[0]).toBeGreaterThan(Math.min(...grid));
    expect(ys[0]).toBeLessThan(Math.max(...grid));
  });

  it('says "no data" for empty series or none at all', () => {
    for (const series of [[], [{ name: 'empty', y: [] }], [{ name: 'gaps', y: [null, NaN] }]]) {
      const svg = renderLineChart({ title: 'Equity', series });
      expect(svg).toContain('>no data</text>');
      expect(svg).not.toContain('class="series"');
    }
    expect(renderLineChart({ series: [], emptyMessage: 'not trained yet' })).toContain(
      'not trained yet',
    );
  });

  it('labels a time axis with UTC dates', () => {
    const day = 86_400_000;
    const start = Date.UTC(2021, 0, 4);
    const x = Array.from({ length: 400 }, (_, i) => start + i * day);
    const svg = renderLineChart({ xKind: 'time', series: [{ name: 'e', x, y: x.map(Math.sqrt) }] });
    const labels = tickLabels(svg);
    expect(labels).toContain('2021-07');
    expect(labels).toContain('2022-01');
  });

  it('spaces a log axis by ratio and treats values <= 0 as gaps', () => {
    const y = [0, 1, 10, 100, 1_000, -5, 10_000, 100_000];
    const svg = renderLineChart({ yScale: 'log', series: [{ name: 'e', y }] });
    const labels = tickLabels(svg);
    for (const label of ['1', '10', '100', '1,000', '10,000', '100,000']) {
      expect(labels).toContain(label);
    }
    const grid = gridYs(svg).sort((a, b) => a - b);
    const gaps = grid.slice(1).map((v, i) => v - (grid[i] ?? 0));
    for (const gap of gaps) expect(gap).toBeCloseTo(gaps[0] ?? 0, 0);
  });

  it('draws a labelled reference line and widens the y range to include it', () => {
    const svg = renderLineChart({
      series: [{ name: 'e', y: [10_500, 11_200, 11_900] }],
      referenceLine: { y: 10_000, label: 'initial cash' },
    });
    expect(svg).toContain('stroke-dasharray="4 4"');
    expect(svg).toContain('>initial cash</text>');
    expect(tickLabels(svg)).toContain('10,000');
  });

  it('uses the palette by default and honours a colour and dash per series', () => {
    const svg = renderLineChart({
      series: [
        { name: 'a', y: [1, 2] },
        { name: 'b', y: [2, 1], color: 'rgb(10, 20, 30)', dash: '6 4' },
      ],
    });
    expect(svg).toContain('stroke="#2f6fdf"');
    expect(svg).toContain('stroke="rgb(10, 20, 30)"');
    expect(svg).toContain('stroke-dasharray="6 4"');
  });

  it('rejects colours and dashes that are not plain values', () => {
    const bad = [
      { name: 'a', y: [1], color: 'url(https://example.com/x)' },
      { name: 'a', y: [1], color: '"/><script>' },
      { name: 'a', y: [1], dash: '1;x' },
    ];
    for (const series of bad) {
      let caught: unknown;
      try {
        renderLineChart({ series: [series] });
      } catch (error) {
        caught = error;
      }
      expect(isTradelabError(caught, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('rejects x and y of different lengths', () => {
    expect(() => renderLineChart({ series: [{ name: 'e', x: [1, 2], y: [1] }] })).toThrow(
      /2 x values but 1 y values/,
    );
  });

  it('pins values beyond a fixed y range to the plot edge', () => {
    const svg = renderLineChart({ series: [{ name: 'e', y: [0, 50, 200] }], yMin: 0, yMax: 100 });
    const grid = gridYs(svg);
    expect(Math.min(...seriesYs(svg))).toBeGreaterThanOrEqual(Math.min(...grid) - 2);
    expect(tickLabels(svg)).toContain('100');
  });
});

describe('renderLineChart shaded spans', () => {
  const series = [{ name: 'equity', x: [0, 10, 20, 30, 40], y: [1, 2, 3, 2, 1] }];
  const rects = (svg: string): { x: number; width: number; label: string }[] =>
    [
      ...svg.matchAll(
        /<rect class="tradelab-shade" x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+"[^>]*><title>([^<]*)<\/title>/g,
      ),
    ].map((m) => ({ x: Number(m[1]), width: Number(m[2]), label: m[3] ?? '' }));

  it('shades a span of x behind the lines, clipped to the plot, with its label', () => {
    const whole = rects(renderLineChart({ series, shade: [{ from: -5, to: 45, label: 'all' }] }));
    const half = rects(renderLineChart({ series, shade: [{ from: 20, to: 99, label: 'a & b' }] }));
    expect(whole).toHaveLength(1);
    expect(half).toEqual([
      { x: expect.any(Number) as number, width: expect.any(Number) as number, label: 'a &amp; b' },
    ]);
    const [w] = whole;
    const [h] = half;
    // The right half of the plot: it starts in the middle and ends where the whole one ends.
    expect(h?.x).toBeCloseTo((w?.x ?? 0) + (w?.width ?? 0) / 2, 0);
    expect((h?.x ?? 0) + (h?.width ?? 0)).toBeCloseTo((w?.x ?? 0) + (w?.width ?? 0), 6);
  });

  it('draws nothing for a span outside the data or empty, and nothing without spans', () => {
    expect(rects(renderLineChart({ series, shade: [{ from: 50, to: 60, label: 'x' }] }))).toEqual(
      [],
    );
    expect(rects(renderLineChart({ series, shade: [{ from: 20, to: 20, label: 'x' }] }))).toEqual(
      [],
    );
    expect(renderLineChart({ series })).not.toContain('tradelab-shade');
  });
});

import { describe, expect, it } from 'vitest';
import { renderBarChart } from './bar-chart.js';

/** The bars of a chart as drawn: label, value and pixel width. */
function bars(svg: string): { label: string; value: number; width: number }[] {
  return [
    ...svg.matchAll(
      /<rect class="bar"[^>]*width="([\d.]+)"[^>]*data-label="([^"]*)" data-value="([^"]*)"/g,
    ),
  ].map((m) => ({ width: Number(m[1]), label: m[2] ?? '', value: Number(m[3]) }));
}

describe('renderBarChart', () => {
  it('draws one bar per value, in order, with lengths in proportion', () => {
    const svg = renderBarChart({
      title: 'Trials by state',
      bars: [
        { label: 'complete', value: 30 },
        { label: 'pruned', value: 15 },
        { label: 'failed', value: 0 },
      ],
    });
    const drawn = bars(svg);
    expect(drawn.map((b) => b.label)).toEqual(['complete', 'pruned', 'failed']);
    expect(drawn.map((b) => b.value)).toEqual([30, 15, 0]);
    const [complete, pruned, failed] = drawn;
    expect(complete?.width).toBeGreaterThan(0);
    expect((pruned?.width ?? 0) / (complete?.width ?? 1)).toBeCloseTo(0.5, 2);
    expect(failed?.width).toBe(0);
    expect(svg).toContain('>Trials by state</text>');
    expect(svg).toContain('<title>complete: 30</title>');
  });

  it('writes the unit and the asked decimals on ticks and values', () => {
    const svg = renderBarChart({
      unit: '%',
      decimals: 1,
      bars: [
        { label: 'netDim', value: 72.44 },
        { label: 'gamma', value: 27.56 },
      ],
    });
    expect(svg).toContain('>72.4%</text>');
    expect(svg).toContain('>0%</text>');
  });

  it('escapes labels and shortens long ones, keeping them whole in the tooltip', () => {
    const long = `<b>${'x'.repeat(40)}</b>`;
    const svg = renderBarChart({ bars: [{ label: long, value: 1 }] });
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('&lt;b&gt;xxx');
    expect(svg).toContain('…</text>');
    expect(svg).toContain(`<title>&lt;b&gt;${'x'.repeat(40)}&lt;/b&gt;: 1</title>`);
  });

  it('gives all-zero bars an axis instead of dividing by zero', () => {
    const svg = renderBarChart({ bars: [{ label: 'a', value: 0 }] });
    expect(bars(svg)[0]?.width).toBe(0);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('says so when there are no bars', () => {
    const svg = renderBarChart({ bars: [], emptyMessage: 'no trials yet' });
    expect(svg).toContain('no trials yet');
    expect(svg).not.toContain('class="bar"');
  });

  it('refuses a negative or non-finite value, naming the bar', () => {
    expect(() => renderBarChart({ bars: [{ label: 'loss', value: -1 }] })).toThrow(
      /bar 0 \("loss"\) has the value -1/,
    );
    expect(() => renderBarChart({ bars: [{ label: 'x', value: Number.NaN }] })).toThrow(/NaN/);
  });
});

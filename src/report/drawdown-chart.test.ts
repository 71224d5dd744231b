import { describe, expect, it } from 'vitest';
import { renderDrawdownChart, underwaterPercent } from './drawdown-chart.js';

describe('underwaterPercent', () => {
  it('is the percent below the running peak, with gaps kept and the peak remembered', () => {
    const underwater = underwaterPercent([100, 110, 99, 121, null, 60.5, Number.NaN, 0, 121]);
    const expected = [0, 0, -10, 0, Number.NaN, -50, Number.NaN, Number.NaN, 0];
    expect(underwater).toHaveLength(expected.length);
    expected.forEach((value, i) => {
      if (Number.isNaN(value)) expect(underwater[i]).toBeNaN();
      else expect(underwater[i]).toBeCloseTo(value, 10);
    });
  });
});

describe('renderDrawdownChart', () => {
  it('shades each curve below a zero top edge, in percent', () => {
    const svg = renderDrawdownChart({
      series: [
        { name: 'policy', equity: [100, 120, 90, 130, 117] },
        { name: 'buy-and-hold', equity: [100, 95, 80, 85, 100] },
      ],
    });
    expect(svg).toContain('>Drawdown</text>');
    expect(svg).toContain('>0%</text>');
    expect(svg).toContain('>-20%</text>');
    expect(svg.match(/fill-opacity="0.2"/g)).toHaveLength(2);
    expect(svg).toContain('viewBox="0 0 900 200"');
  });
  it('renders a curve that never falls', () => {
    const svg = renderDrawdownChart({ series: [{ name: 'up', equity: [1, 2, 3] }] });
    expect(svg).toMatch(/>0(\.0)?%<\/text>/);
    expect(svg).toMatch(/>-1(\.0)?%<\/text>/);
    expect(svg).toContain('class="series"');
  });
});

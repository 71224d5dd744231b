import { describe, expect, it } from 'vitest';
import { renderHtmlReport, type HtmlReport } from './html-report.js';
import { renderLineChart } from './line-chart.js';

const report: HtmlReport = {
  title: 'PPO on <BTC> & ETH',
  subtitle: "test range 2023-01-01 to 2023-12-31, 'held out'",
  facts: [
    { label: 'model', value: 'ppo-mlp-64x64' },
    { label: 'seed', value: '42' },
  ],
  sections: [
    {
      heading: 'Equity',
      paragraph: 'The policy beside buy-and-hold.',
      charts: [renderLineChart({ series: [{ name: 'policy', y: [1, 2, 3] }] })],
    },
    {
      heading: 'Metrics',
      table: {
        headers: ['metric', 'policy', 'buy-and-hold'],
        rows: [
          ['total return', '12.50 %', '-3.10 %'],
          ['Sharpe (annualized)', '1.42', '-'],
          ['bars', '8,760', '8,760'],
        ],
      },
    },
  ],
  footer: 'written by tradelab 0.1.0 at 2025-01-02T03:04:05.000Z',
};

describe('renderHtmlReport', () => {
  it('is a complete document with an inline stylesheet', () => {
    const html = renderHtmlReport(report);
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<style>[\s\S]*prefers-color-scheme: dark[\s\S]*<\/style>/);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('escapes every text it is given', () => {
    const html = renderHtmlReport({
      title: '<script>alert("x")</script>',
      subtitle: "a & b's",
      facts: [{ label: '<b>', value: '"quoted"' }],
      sections: [
        {
          heading: '<h1>',
          paragraph: '</p><script>',
          table: { headers: ['<th>'], rows: [['<td> & more']] },
        },
      ],
      footer: '</footer>',
    });
    expect(html).not.toContain('<script');
    expect(html).toContain('<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</title>');
    expect(html).toContain('a &amp; b&#39;s');
    expect(html).toContain('<dt>&lt;b&gt;</dt><dd>&quot;quoted&quot;</dd>');
    expect(html).toContain('<h2>&lt;h1&gt;</h2>');
    expect(html).toContain('&lt;td&gt; &amp; more');
    expect(html).toContain('<footer>&lt;/footer&gt;</footer>');
  });

  it('shows the title, subtitle, facts, sections and footer in order', () => {
    const html = renderHtmlReport(report);
    const order = [
      '<h1>PPO on &lt;BTC&gt; &amp; ETH</h1>',
      '<p class="subtitle">',
      '<dt>model</dt><dd>ppo-mlp-64x64</dd>',
      '<h2>Equity</h2>',
      '<p>The policy beside buy-and-hold.</p>',
      '<figure>\n<svg',
      '<h2>Metrics</h2>',
      '<footer>written by tradelab 0.1.0 at 2025-01-02T03:04:05.000Z</footer>',
    ].map((fragment) => html.indexOf(fragment));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('right-aligns numeric columns and leaves text columns left', () => {
    const html = renderHtmlReport(report);
    expect(html).toContain(
      '<tr><th scope="col">metric</th><th scope="col" class="num">policy</th><th scope="col" class="num">buy-and-hold</th></tr>',
    );
    expect(html).toContain(
      '<tr><td>total return</td><td class="num">12.50 %</td><td class="num">-3.10 %</td></tr>',
    );
  });

  it('follows an explicit alignment and pads short rows', () => {
    const html = renderHtmlReport({
      title: 't',
      sections: [
        {
          heading: 'h',
          table: { headers: ['id', 'name'], rows: [['1', 'a'], ['2']], align: ['left', 'right'] },
        },
      ],
    });
    expect(html).toContain('<tr><td>1</td><td class="num">a</td></tr>');
    expect(html).toContain('<tr><td>2</td><td class="num"></td></tr>');
  });

  it('rejects a row with more cells than headers', () => {
    expect(() =>
      renderHtmlReport({
        title: 't',
        sections: [{ heading: 'Metrics', table: { headers: ['a'], rows: [['1', '2']] } }],
      }),
    ).toThrow(/row 0 of the table in "Metrics" has 2 cells but only 1 headers/);
  });

  it('leaves out what was not given', () => {
    const html = renderHtmlReport({ title: 'bare', sections: [] });
    expect(html).not.toContain('class="subtitle"');
    expect(html).not.toContain('<dl');
    expect(html).not.toContain('<footer');
    expect(html).not.toContain('<section');
  });
});

import { describe, expect, it } from 'vitest';
import { scriptedMarket } from '../env/synthetic-market.js';
import { equityCsv } from '../eval/equity-csv.js';
import { evaluate } from '../eval/evaluate.js';
import { evaluationReportHtml, metricRows } from './evaluation-report.js';

// Two assets, the first rising, the second flat; buy everything of the first at the start.
const closes = Array.from({ length: 30 }, (_, t) => [100 + t, 50]);
const data = scriptedMarket(closes);
const script = new Float32Array(29 * 2);
script[0] = 1;
const [evaluation] = await evaluate(data, undefined, [script], [[0, 30]], {
  buyFeeBps: 0,
  sellFeeBps: 0,
});

describe('evaluation output', () => {
  it('writes one CSV row per equity point, with the bar time', () => {
    if (evaluation === undefined) throw new Error('no evaluation');
    const lines = equityCsv(evaluation, data.timestamps).trim().split('\n');
    expect(lines[0]).toBe('bar,time,equity,benchmark');
    expect(lines).toHaveLength(31);
    expect(lines[1]).toBe('0,1970-01-01T00:00:00.000Z,1000000,1000000');
    const last = lines[30]?.split(',') ?? [];
    expect(Number(last[0])).toBe(29);
    expect(Number(last[2])).toBeCloseTo(evaluation.equity[29] ?? 0, 6);
  });

  it('lists the metrics of both sides, formatted', () => {
    if (evaluation === undefined) throw new Error('no evaluation');
    const rows = metricRows(evaluation.metrics, evaluation.benchmarkMetrics, evaluation.fees, 1e6);
    const total = rows.find((r) => r[0] === 'total return');
    expect(total?.[1]).toBe(`${(evaluation.metrics.totalReturn * 100).toFixed(2)} %`);
    expect(rows.find((r) => r[0].startsWith('fees paid'))?.[1]).toBe(
      '0.00 (0.00 % of initial cash)',
    );
  });

  it('gives fees with their unit and beside the initial cash they are a share of', () => {
    if (evaluation === undefined) throw new Error('no evaluation');
    const rows = metricRows(evaluation.metrics, evaluation.benchmarkMetrics, 410_564.2249, 1e6);
    expect(rows.find((r) => r[0].startsWith('initial cash'))).toEqual([
      'initial cash (quote currency)',
      '1,000,000.00',
      '1,000,000.00',
    ]);
    expect(rows.find((r) => r[0].startsWith('fees paid'))).toEqual([
      'fees paid (quote currency)',
      '410,564.22 (41.06 % of initial cash)',
      '0.00',
    ]);
  });

  it('renders a self-contained page with both curves', () => {
    if (evaluation === undefined) throw new Error('no evaluation');
    const html = evaluationReportHtml({
      title: 'Backtest <A0>',
      facts: [{ label: 'model', value: 'runs/x' }],
      evaluation,
      timestamps: data.timestamps,
      footer: 'written by a test',
    });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('Backtest &lt;A0&gt;');
    expect(html.match(/<svg/g)?.length).toBe(2);
    expect(html).toContain('buy-and-hold');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});

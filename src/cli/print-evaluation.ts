import type { RangeEvaluation } from '../eval/index.js';
import { metricRows } from '../agents/index.js';
import type { Output } from './output.js';
import { renderTable } from './output.js';

/** Prints an evaluated range's metrics beside buy-and-hold's. */
export function printEvaluation(out: Output, evaluation: RangeEvaluation, label = 'POLICY'): void {
  const rows = metricRows(
    evaluation.metrics,
    evaluation.benchmarkMetrics,
    evaluation.fees,
    evaluation.equity[0] ?? Number.NaN,
  );
  for (const line of renderTable(rows, [
    { header: 'METRIC', value: (r) => r[0] },
    { header: label, value: (r) => r[1], right: true },
    { header: 'BUY-AND-HOLD', value: (r) => r[2], right: true },
  ]))
    out.line(line);
  if (evaluation.ended === 'terminated')
    out.line('The episode was terminated: the portfolio fell below the termination threshold.');
  out.line();
}

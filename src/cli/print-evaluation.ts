import { rangeVerdict, type RangeEvaluation, type VerdictContext } from '../eval/index.js';
import { metricRows } from '../agents/index.js';
import type { Output } from './output.js';
import { renderTable } from './output.js';

/** Prints an evaluated range's metrics beside buy-and-hold's, then its verdict. */
export function printEvaluation(
  out: Output,
  evaluation: RangeEvaluation,
  label = 'POLICY',
  context: VerdictContext = {},
): void {
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
  out.line();
  printVerdict(out, evaluation, context);
  out.line();
}

/** Prints an evaluated range's verdict: a line per finding, with what to try. */
export function printVerdict(
  out: Output,
  evaluation: RangeEvaluation,
  context: VerdictContext = {},
): void {
  for (const finding of rangeVerdict(evaluation, context).findings) {
    out.line(`${finding.severity === 'warning' ? 'warning' : 'note'}: ${finding.text}`);
    if (finding.advice !== undefined) out.line(`  try: ${finding.advice}`);
  }
}

import { h } from './dom.js';
import type { Finding } from './types.js';

/*
 * A verdict's findings (src/eval/range-verdict.ts) as the CLI prints them under an evaluation and
 * the reports list them: warnings marked, each finding's advice below it.
 */

/** The findings as a list; empty when there are none. */
export function findingsList(findings: readonly Finding[]): HTMLElement {
  return h(
    'ul',
    { class: 'findings', 'data-testid': 'findings' },
    findings.map((f) =>
      h(
        'li',
        { class: `finding-${f.severity}`, 'data-kind': f.kind },
        f.severity === 'warning' ? h('b', { class: 'warn' }, 'Warning: ') : null,
        f.text,
        f.advice === undefined ? null : h('div', { class: 'advice' }, `Try: ${f.advice}.`),
      ),
    ),
  );
}

import { TradelabError } from '../core/index.js';
import { escapeHtml } from './escape-html.js';
import type { SvgMarkup } from './line-chart.js';
import { REPORT_CSS } from './report-style.js';

/** One line of the report's facts list, such as `seed: 42`. */
export interface ReportFact {
  readonly label: string;
  readonly value: string;
}

/** A table of preformatted cells. */
export interface ReportTable {
  /** Column headings; every row has at most this many cells (shorter rows are padded). */
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Per-column alignment; default right for columns whose cells all read as numbers, else left. */
  readonly align?: readonly ('left' | 'right')[];
}

/** One titled part of the report. */
export interface ReportSection {
  readonly heading: string;
  /** Text under the heading; default none. */
  readonly paragraph?: string;
  /** Charts from `renderLineChart` / `renderDrawdownChart`, stacked; default none. */
  readonly charts?: readonly SvgMarkup[];
  /** Default none. */
  readonly table?: ReportTable;
}

/** Everything a report page shows. */
export interface HtmlReport {
  /** Page heading and window title. */
  readonly title: string;
  /** A line under the title; default none. */
  readonly subtitle?: string;
  /** Label/value pairs under the title (model, data, ranges, seed, backend); default none. */
  readonly facts?: readonly ReportFact[];
  readonly sections: readonly ReportSection[];
  /** The closing line, such as `written by tradelab 0.1.0 at 2025-01-02T03:04:05Z`; default none. */
  readonly footer?: string;
}

// A number as a table cell may show it: sign, currency, grouping, exponent, unit (12.5 %, 1.2M, 3x).
const NUMERIC_CELL =
  /^[+\-\u2212]?[$€£]?(\d[\d,_\s]*)?(\.\d+)?(e[+-]?\d+)?\s*(%|x|×|bp|k|M|B|T)?$/i;
// Cells that say "no value" and should not stop a column from counting as numeric.
const BLANK_CELL = /^(|-|\u2013|\u2014|n\/a|na|nan|none|null)$/i;

/**
 * A complete, self-contained `<!doctype html>` page: title, facts, sections with text, charts and
 * tables, and a footer. All text is escaped; the charts are trusted markup from this module; the
 * page loads nothing from elsewhere and runs no scripts.
 */
export function renderHtmlReport(report: HtmlReport): string {
  const body: string[] = [`<header>`, `<h1>${escapeHtml(report.title)}</h1>`];
  if (report.subtitle !== undefined && report.subtitle !== '') {
    body.push(`<p class="subtitle">${escapeHtml(report.subtitle)}</p>`);
  }
  if (report.facts !== undefined && report.facts.length > 0) body.push(renderFacts(report.facts));
  body.push(`</header>`);
  for (const section of report.sections) body.push(renderSection(section));
  if (report.footer !== undefined && report.footer !== '') {
    body.push(`<footer>${escapeHtml(report.footer)}</footer>`);
  }
  return htmlPage(report.title, REPORT_CSS, body);
}

/**
 * A self-contained HTML page: `title`, `css` inline, `body` lines as they are (markup the caller
 * escaped). Every tradelab report is one.
 */
export function htmlPage(title: string, css: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>\n${css}\n</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function renderFacts(facts: readonly ReportFact[]): string {
  const items = facts.map(
    (fact) => `<dt>${escapeHtml(fact.label)}</dt><dd>${escapeHtml(fact.value)}</dd>`,
  );
  return `<dl class="facts">\n${items.join('\n')}\n</dl>`;
}

function renderSection(section: ReportSection): string {
  const parts = [`<section>`, `<h2>${escapeHtml(section.heading)}</h2>`];
  if (section.paragraph !== undefined && section.paragraph !== '') {
    parts.push(`<p>${escapeHtml(section.paragraph)}</p>`);
  }
  for (const chart of section.charts ?? []) parts.push(`<figure>\n${chart}\n</figure>`);
  if (section.table !== undefined) parts.push(renderTable(section.table, section.heading));
  parts.push(`</section>`);
  return parts.join('\n');
}

function renderTable(table: ReportTable, heading: string): string {
  const columns = table.headers.length;
  table.rows.forEach((row, index) => {
    if (row.length > columns) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `row ${index} of the table in "${heading}" has ${row.length} cells but only ${columns} headers`,
        { hint: 'give every column a header, or drop the extra cells' },
      );
    }
  });
  const alignments = table.headers.map(
    (_, column) =>
      table.align?.[column] ?? (isNumericColumn(table.rows, column) ? 'right' : 'left'),
  );
  const cellClass = (column: number): string =>
    alignments[column] === 'right' ? ' class="num"' : '';
  const head = table.headers
    .map((header, column) => `<th scope="col"${cellClass(column)}>${escapeHtml(header)}</th>`)
    .join('');
  const rows = table.rows.map((row) => {
    const cells = table.headers.map(
      (_, column) => `<td${cellClass(column)}>${escapeHtml(row[column] ?? '')}</td>`,
    );
    return `<tr>${cells.join('')}</tr>`;
  });
  return [
    '<div class="table-wrap"><table>',
    `<thead><tr>${head}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
  ].join('\n');
}

/** Whether every cell of the column reads as a number or a blank, and at least one as a number. */
function isNumericColumn(rows: readonly (readonly string[])[], column: number): boolean {
  let numbers = 0;
  for (const row of rows) {
    const cell = (row[column] ?? '').trim();
    if (BLANK_CELL.test(cell)) continue;
    if (!NUMERIC_CELL.test(cell) || !/\d/.test(cell)) return false;
    numbers++;
  }
  return numbers > 0;
}

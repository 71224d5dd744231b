/**
 * The report's whole stylesheet, inlined so the page works offline: system fonts, a readable
 * column, tables with tabular digits, a dark variant, and page breaks that keep charts whole.
 * Charts draw text and axes in `currentColor`, so they follow the light/dark text colour.
 */
export const REPORT_CSS = `
:root { color-scheme: light dark; --fg: #1d2126; --muted: #5d6570; --rule: #d9dde3; --band: #f4f6f8; --bg: #ffffff; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e3e6ea; --muted: #9aa3ad; --rule: #3a4048; --band: #22262c; --bg: #16191d; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1000px; padding: 24px 20px 40px; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); }
.subtitle { color: var(--muted); margin: 0 0 16px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 16px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
figure { margin: 12px 0; }
figure svg { display: block; height: auto; }
table { border-collapse: collapse; margin: 12px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 12px; text-align: left; border-bottom: 1px solid var(--rule); }
th { font-weight: 600; }
tbody tr:nth-child(even) { background: var(--band); }
.num { text-align: right; }
.table-wrap { overflow-x: auto; }
footer { margin-top: 40px; color: var(--muted); font-size: 0.85rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  section, figure, table { break-inside: avoid; }
  tbody tr:nth-child(even) { background: none; }
}
`.trim();

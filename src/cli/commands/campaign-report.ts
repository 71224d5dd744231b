import { dirname, join } from 'node:path';
import { describeRun } from '../../campaign/index.js';
import { renderCampaignHtml, type CampaignReport, type ReportStudy } from '../../campaign/index.js';
import { TradelabError, writeFileAtomic, makeDirectory } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { campaignReport } from '../../app/index.js';
import { readStudyStorage } from '../open-study-storage.js';
import { projectPath } from '../project-path.js';
import { renderTable } from '../output.js';
import { formatDuration } from '../progress.js';
import { formatNumber } from '../study-format.js';

/** The formats `campaign report` writes. */
const FORMATS = ['table', 'md', 'json', 'html'] as const;
type Format = (typeof FORMATS)[number];

/** `tradelab campaign report NAME [--format table|md|json|html] [--out FILE] [--no-holdout]`. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = context.positionals[0] ?? '';
  const format = formatOption(options.format, out.json);
  const report = await readStudyStorage(context, (storage) =>
    campaignReport(context.project(), storage, name, { holdout: options['no-holdout'] !== true }),
  );
  const outFile = typeof options.out === 'string' ? options.out : undefined;
  if (format === 'html' || outFile !== undefined) {
    // Every format goes to --out when it is given; the HTML report always goes to a file.
    const path = projectPath(context, outFile ?? join('reports', `campaign-${report.name}.html`));
    makeDirectory(dirname(path));
    writeFileAtomic(
      path,
      format === 'html'
        ? renderCampaignHtml(report)
        : `${reportLines(report, format).join('\n')}\n`,
    );
    if (out.json) out.record({ type: 'campaign-report', format, path });
    else out.line(`Report: ${path}`);
    return;
  }
  // --format json prints the object whether or not --json is given (record() only writes with it).
  if (format === 'json' && out.json) out.record(jsonReport(report));
  else for (const line of reportLines(report, format)) out.line(line);
}

/** The JSON report as one record. */
function jsonReport(report: CampaignReport): Record<string, unknown> {
  return { type: 'campaign-report', ...withoutEquity(report) };
}

/** The report's lines in one of the text formats. */
function reportLines(report: CampaignReport, format: Exclude<Format, 'html'>): string[] {
  if (format === 'json') return [JSON.stringify(jsonReport(report))];
  return format === 'md' ? markdownLines(report) : tableLines(report);
}

function formatOption(raw: unknown, json: boolean): Format {
  if (raw === undefined) return json ? 'json' : 'table';
  if (typeof raw === 'string' && (FORMATS as readonly string[]).includes(raw)) return raw as Format;
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `--format: ${JSON.stringify(raw)} is not allowed: expected ${FORMATS.join(', ')}`,
    { hint: 'e.g. --format md' },
  );
}

/** The JSON report without the equity curves' points (the HTML report draws those). */
function withoutEquity(report: CampaignReport): Record<string, unknown> {
  return {
    ...report,
    studies: report.studies.map((s) => ({
      ...s,
      holdout:
        s.holdout === undefined
          ? null
          : { ...s.holdout, equity: undefined, points: s.holdout.equity.times.length },
    })),
  };
}

const ratio = (n: number, d: number): string => (d === 0 ? '-' : `${Math.round((n / d) * 100)}%`);
const num = (x: number | null | undefined): string =>
  x === null || x === undefined ? '-' : formatNumber(x);

/** The table's rows: one per study and the TOTAL, as cells. */
function rows(report: CampaignReport): { header: string[]; cells: string[][] } {
  const header = [
    'STUDY',
    'TRIALS',
    'COMPLETE',
    'PRUNED',
    'FAILED',
    'RATE/H',
    'BEST (MEAN CV SHARPE)',
    'HOLDOUT SHARPE',
    'BUY & HOLD',
  ];
  const line = (
    s: Pick<ReportStudy, 'counts' | 'target'> & { key: string; holdout?: ReportStudy['holdout'] },
  ): string[] => [
    s.key,
    `${s.counts.done}/${s.target}`,
    String(s.counts.complete),
    String(s.counts.pruned),
    String(s.counts.failed),
    s.counts.perHour === null ? '-' : s.counts.perHour.toFixed(1),
    s.counts.best === undefined ? '-' : `${num(s.counts.best.value)} (#${s.counts.best.number})`,
    s.holdout === undefined ? '-' : num(s.holdout.sharpe),
    s.holdout === undefined ? '-' : num(s.holdout.benchmarkSharpe),
  ];
  return {
    header,
    cells: [...report.studies.map(line), line({ key: 'TOTAL', ...report.total })],
  };
}

/** Lines under the table: rates, durations, the phase split, the diagnosis. */
function factLines(report: CampaignReport): string[] {
  const c = report.total.counts;
  const ended = c.complete + c.pruned + c.failed;
  const time = report.phases.rollout + report.phases.update + report.phases.other;
  const lines = [
    `completion ${ratio(c.complete, ended)}, pruned ${ratio(c.pruned, ended)}, failed ${ratio(c.failed, ended)} of ${ended} ended trials`,
    `mean trial ${c.meanDurationMs === null ? '-' : formatDuration(c.meanDurationMs / 1000)}; ${c.perHour === null ? 'no rate yet' : `${c.perHour.toFixed(1)} trials/hour over the campaign`}`,
  ];
  if (report.phases.trials > 0 && time > 0)
    lines.push(
      `trial time: rollout ${ratio(report.phases.rollout, time)}, update ${ratio(report.phases.update, time)}, evaluation and setup ${ratio(report.phases.other, time)} (${plural(report.phases.trials, 'trial')})`,
    );
  if (report.plan.run !== undefined) lines.push(`last run: ${describeRun(report.plan.run)}`);
  return lines;
}

function tableLines(report: CampaignReport): string[] {
  const { header, cells } = rows(report);
  const table = renderTable(
    cells,
    header.map((h, i) => ({ header: h, value: (r: string[]) => r[i] ?? '', right: i > 0 })),
  );
  return [
    `Campaign ${report.name} (${report.storage})`,
    ...table,
    '',
    ...factLines(report),
    '',
    'Diagnosis:',
    ...report.diagnosis.map((d) => `  - ${d}`),
  ];
}

function markdownLines(report: CampaignReport): string[] {
  const { header, cells } = rows(report);
  const escape = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `# Campaign ${report.name}`,
    '',
    `| ${header.map(escape).join(' | ')} |`,
    `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...cells.map((r) => `| ${r.map(escape).join(' | ')} |`),
    '',
    ...factLines(report).map((l) => `- ${l}`),
    '',
    '## Diagnosis',
    '',
    ...report.diagnosis.map((d) => `- ${d}`),
  ];
}

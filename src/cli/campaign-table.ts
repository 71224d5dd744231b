import { etaHours, totalOf, type CampaignRow } from '../campaign/index.js';
import type { ProgressRecord } from '../jobs/index.js';
import type { StudySummary } from '../tune/index.js';
import { renderTable } from './output.js';
import { formatDuration, formatRate } from './progress.js';
import { formatNumber } from './study-format.js';

/*
 * A campaign's progress as text, one row per study (campaign/'s campaignRows, read from the storage
 * alone) and a total: `campaign run` redraws it, `campaign status` prints it from any machine, and
 * both say the same.
 */

/** ETA as text: "done", "-" when unknown, else a duration. */
function eta(counts: StudySummary, target: number, state: CampaignRow['state'] | 'total'): string {
  if (state === 'done' || counts.done >= target) return 'done';
  if (state === 'pending') return 'waits';
  const hours = etaHours(counts, target);
  return hours === null ? '-' : formatDuration(hours * 3600);
}

/** The table's lines: one per study and a TOTAL row. */
export function campaignTableLines(rows: readonly CampaignRow[]): string[] {
  const total = totalOf(rows);
  type Line = {
    name: string;
    target: number;
    counts: StudySummary;
    state: CampaignRow['state'] | 'total';
  };
  const lines: Line[] = [
    ...rows.map((r) => ({ name: r.key, target: r.target, counts: r.counts, state: r.state })),
    { name: 'TOTAL', target: total.target, counts: total.counts, state: 'total' },
  ];
  return renderTable(lines, [
    { header: 'STUDY', value: (l) => l.name },
    { header: 'DONE', value: (l) => `${l.counts.done}/${l.target}`, right: true },
    { header: 'COMPLETE', value: (l) => String(l.counts.complete), right: true },
    { header: 'PRUNED', value: (l) => String(l.counts.pruned), right: true },
    { header: 'FAILED', value: (l) => String(l.counts.failed), right: true },
    { header: 'RUNNING', value: (l) => String(l.counts.running), right: true },
    {
      header: 'RATE/H',
      value: (l) => (l.counts.perHour === null ? '-' : l.counts.perHour.toFixed(1)),
      right: true,
    },
    {
      header: 'BEST',
      value: (l) =>
        l.counts.best === undefined ? '-' : formatNumber(l.counts.best.value as number),
      right: true,
    },
    { header: 'ETA', value: (l) => eta(l.counts, l.target, l.state), right: true },
  ]);
}

/**
 * The table's TOTAL row as one line, for logs and a service's job progress: `progress: 43% (6/14
 * trials), 1 min 10 s/trial, ETA 9 min 20 s` (`done` at the end). Its rate and ETA are the row's:
 * where the row says `-` (no trial ended yet), the line names neither, not `ETA ?` beside ETAs.
 */
export function campaignProgressLine(rows: readonly CampaignRow[]): string {
  const done = rows.reduce((n, r) => n + Math.min(r.counts.done, r.target), 0);
  const target = rows.reduce((n, r) => n + r.target, 0);
  const { counts } = totalOf(rows);
  const left = eta(counts, target, 'total');
  const figures =
    counts.perHour === null || left === '-'
      ? ''
      : `, ${formatRate(counts.perHour / 3600, 'trials', 'trial')}, ${left === 'done' ? left : `ETA ${left}`}`;
  return `progress: ${target > 0 ? Math.round((100 * done) / target) : 0}% (${done}/${target} trials)${figures}`;
}

/** The TOTAL row as a progress record (`--json`): what a service's job shows as its progress. */
export function campaignProgressRecord(rows: readonly CampaignRow[]): ProgressRecord {
  const done = rows.reduce((n, r) => n + Math.min(r.counts.done, r.target), 0);
  const target = rows.reduce((n, r) => n + r.target, 0);
  const { counts } = totalOf(rows);
  const hours = etaHours(counts, target);
  return {
    type: 'progress',
    percent: target > 0 ? Math.round((100 * done) / target) : null,
    done,
    total: target,
    unit: 'trials',
    perSecond: counts.perHour === null ? null : counts.perHour / 3600,
    etaS: hours === null ? null : hours * 3600,
    text: campaignProgressLine(rows).slice('progress: '.length),
  };
}

/** A row as JSON (`--json`). */
export function campaignRowRecord(row: CampaignRow): Record<string, unknown> {
  const c = row.counts;
  return {
    study: row.key,
    storedAs: row.study,
    state: row.state,
    target: row.target,
    done: c.done,
    complete: c.complete,
    pruned: c.pruned,
    failed: c.failed,
    running: c.running,
    waiting: c.waiting,
    perHour: c.perHour,
    best: c.best === undefined ? null : { number: c.best.number, value: c.best.value },
    meanDurationMs: c.meanDurationMs,
    etaHours: row.state === 'pending' ? null : etaHours(c, row.target),
  };
}

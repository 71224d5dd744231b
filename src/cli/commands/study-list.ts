import type { StudyRecord } from '../../storage/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, shortTime } from '../format.js';
import { readStudyStorage } from '../open-study-storage.js';
import { renderTable } from '../output.js';
import {
  studyFigures,
  describeComponents,
  summarizeStudy,
  type StudySummary,
} from '../../tune/index.js';
import { formatNumber } from '../study-format.js';

interface Row {
  study: StudyRecord;
  summary: StudySummary;
  sampler: string;
}

/** `tradelab study list`: every study in the storage, with its trials by state and best value. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  await readStudyStorage(context, async (storage) => {
    const rows: Row[] = [];
    for (const study of await storage.listStudies()) {
      const trials = await storage.getTrials(study.id);
      const summary = summarizeStudy(study.direction, trials);
      rows.push({
        study,
        summary,
        sampler: describeComponents(study.systemAttrs).sampler,
      });
    }
    if (out.json) {
      for (const { study, summary, sampler } of rows)
        out.record({
          name: study.name,
          direction: study.direction,
          ...studyFigures(summary),
          sampler,
          createdAt: study.createdAt,
        });
      return;
    }
    if (rows.length === 0) {
      out.line(`No studies in ${storage.url}.`);
      out.line('Create one: tradelab study create NAME --direction max');
      return;
    }
    const n = (x: number): string => (x === 0 ? '-' : count(x));
    for (const line of renderTable<Row>(rows, [
      { header: 'NAME', value: (r) => r.study.name },
      { header: 'DIRECTION', value: (r) => r.study.direction },
      { header: 'TRIALS', value: (r) => count(r.summary.total), right: true },
      { header: 'COMPLETE', value: (r) => n(r.summary.complete), right: true },
      { header: 'PRUNED', value: (r) => n(r.summary.pruned), right: true },
      { header: 'FAIL', value: (r) => n(r.summary.failed), right: true },
      { header: 'RETRIED', value: (r) => n(r.summary.retried), right: true },
      { header: 'RUNNING', value: (r) => n(r.summary.running), right: true },
      { header: 'WAITING', value: (r) => n(r.summary.waiting), right: true },
      {
        header: 'RATE/H',
        value: (r) => (r.summary.perHour === null ? '-' : r.summary.perHour.toFixed(1)),
        right: true,
      },
      { header: 'BEST', value: (r) => formatNumber(r.summary.best?.value ?? null), right: true },
      { header: 'SAMPLER', value: (r) => r.sampler },
      { header: 'CREATED', value: (r) => shortTime(r.study.createdAt, true) },
    ]))
      out.line(line);
    out.line();
    out.line(`Storage: ${storage.url}`);
  });
}

import { countTrials } from '../../campaign/index.js';
import type { StudyRecord } from '../../storage/index.js';
import type { CommandContext } from '../command-spec.js';
import { count, shortTime } from '../format.js';
import { readStudyStorage } from '../open-study-storage.js';
import { renderTable } from '../output.js';
import {
  describeComponents,
  formatNumber,
  summarizeStudy,
  type StudySummary,
} from '../study-summary.js';

interface Row {
  study: StudyRecord;
  summary: StudySummary;
  /** Trials ended per hour of the study's running time (first start to last end). */
  perHour: number | null;
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
        perHour: countTrials(trials, study.direction).perHour,
        sampler: describeComponents(study.systemAttrs).sampler,
      });
    }
    if (out.json) {
      for (const { study, summary, perHour, sampler } of rows)
        out.record({
          name: study.name,
          direction: study.direction,
          trials: summary.total,
          states: summary.states,
          perHour,
          bestValue: summary.best?.value ?? null,
          bestTrial: summary.best?.number ?? null,
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
      { header: 'COMPLETE', value: (r) => n(r.summary.states.complete), right: true },
      { header: 'PRUNED', value: (r) => n(r.summary.states.pruned), right: true },
      { header: 'FAIL', value: (r) => n(r.summary.states.fail), right: true },
      { header: 'RUNNING', value: (r) => n(r.summary.states.running), right: true },
      { header: 'WAITING', value: (r) => n(r.summary.states.waiting), right: true },
      {
        header: 'RATE/H',
        value: (r) => (r.perHour === null ? '-' : r.perHour.toFixed(1)),
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

import { TradelabError } from '../../core/index.js';
import type { TrialRecord } from '../../storage/index.js';
import type { CommandContext } from '../command-spec.js';
import { readStudyStorage } from '../open-study-storage.js';
import { suggestCommand } from '../suggest-command.js';
import { renderTable, type Column } from '../output.js';
import { trialDurationMs } from '../../tune/index.js';
import {
  csvLine,
  formatDuration,
  formatParamValue,
  formatTrialValue,
  paramNames,
  prunedValueNote,
} from '../study-format.js';

/** `tradelab study trials NAME [--csv]`: every trial, its parameters as columns. */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = context.positionals[0] ?? '';
  const csv = options.csv === true;
  if (csv && out.json)
    throw new TradelabError('USAGE', '--csv and --json exclude each other', {
      hint: 'pick one: --csv for spreadsheets and pandas, --json for one object per trial',
    });
  await readStudyStorage(context, async (storage) => {
    const study = await storage.getStudy(name);
    const trials = await storage.getTrials(study.id);
    const params = paramNames(trials);
    if (out.json) {
      for (const trial of trials) out.record({ ...trial, durationMs: trialDurationMs(trial) });
      return;
    }
    if (csv) {
      // Raw values (full precision, ms, ISO times): the CSV is for programs, not for reading.
      out.line(
        csvLine([
          'number',
          'state',
          'value',
          ...params.map((p) => `params_${p}`),
          'datetime_start',
          'datetime_complete',
          'duration_ms',
          'retry_of',
          'fail_reason',
        ]),
      );
      const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString());
      for (const t of trials)
        out.line(
          csvLine([
            String(t.number),
            t.state,
            t.value === null ? '' : String(t.value),
            ...params.map((p) => {
              const value = t.params[p];
              return value === undefined || value === null ? '' : String(value);
            }),
            iso(t.startedAt),
            iso(t.finishedAt),
            String(trialDurationMs(t) ?? ''),
            t.retryOf === null ? '' : String(t.retryOf),
            t.failReason ?? '',
          ]),
        );
      return;
    }
    if (trials.length === 0) {
      out.line(`Study "${study.name}" has no trials yet.`);
      out.line(
        `Run some: ${suggestCommand(context, ['study', 'run', study.name, '--objective', 'objective.mjs', '--trials', '100'])}`,
      );
      return;
    }
    const columns: Column<TrialRecord>[] = [
      { header: 'NUMBER', value: (t) => String(t.number), right: true },
      { header: 'STATE', value: (t) => t.state },
      {
        header: 'VALUE',
        value: (t) => formatTrialValue(t, study.systemAttrs.drl !== undefined),
        right: true,
      },
      ...params.map((p): Column<TrialRecord> => ({
        header: p,
        value: (t) => {
          const value = t.params[p];
          return value === undefined ? '-' : formatParamValue(value);
        },
        right: trials.some((t) => typeof t.params[p] === 'number'),
      })),
      {
        header: 'DURATION',
        value: (t) => {
          const ms = trialDurationMs(t);
          return ms === null ? '-' : formatDuration(ms);
        },
        right: true,
      },
      {
        header: 'RETRY OF',
        value: (t) => (t.retryOf === null ? '-' : String(t.retryOf)),
        right: true,
      },
      // One line per trial: a multi-line error message is joined.
      { header: 'FAIL REASON', value: (t) => (t.failReason ?? '').replace(/\s*\n\s*/g, ' ⏎ ') },
    ];
    for (const line of renderTable(trials, columns)) out.line(line);
    const note = prunedValueNote(trials);
    if (note !== undefined) out.line(`\n${note}`);
  });
}

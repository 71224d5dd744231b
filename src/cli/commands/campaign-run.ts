import { oversubscription, runCampaign, type CampaignOutcome } from '../../app/index.js';
import { totalOf, type CampaignRow } from '../../campaign/index.js';
import {
  campaignProgressLine,
  campaignProgressRecord,
  campaignRowRecord,
  campaignTableLines,
} from '../campaign-table.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import type { Output } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';
import { progressIntervalOption } from '../progress.js';
import { projectPath } from '../project-path.js';
import { handleInterrupts, setExitCode } from '../run-interrupts.js';
import { suggestCommand } from '../suggest-command.js';
import { formatParams } from '../study-format.js';

/** How often the table is redrawn on a terminal. */
const REDRAW_MS = 1000;

/**
 * `tradelab campaign run FILE [--workers auto|N]`. The rules are app/'s runCampaign; this file
 * reads the flags, draws the table and prints.
 */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  let display: CampaignDisplay | undefined;
  const interrupt = handleInterrupts(out, () => {
    display?.erase();
  });
  let outcome: CampaignOutcome;
  try {
    outcome = await runCampaign(
      context.project(),
      {
        file: projectPath(context, context.positionals[0] ?? ''),
        workers: typeof options.workers === 'string' ? options.workers : undefined,
        insideProject: options['inside-project'] === true,
        signal: interrupt.stop,
        killSignal: interrupt.kill,
      },
      {
        onNote: (note) => {
          out.note(`note: within the profile's limits: ${note}`);
        },
        onStart: async (start) => {
          const { plan, workers, trialsPerWorker, why, left } = start;
          await logProfileBanner({ ...context, project: () => start.project }, workers);
          out.record({
            type: 'start',
            campaign: plan.name,
            storage: start.storage,
            left,
            workers,
            trialsPerWorker,
            why,
          });
          out.line(
            `Campaign ${plan.name} in ${start.storage}: ${plural(plan.studies.length, 'study', 'studies')}, ${plural(left, 'trial')} to go, ${plural(workers, 'worker process', 'worker processes')}${trialsPerWorker > 1 ? ` of ${trialsPerWorker} trials at once` : ''} (${why})`,
          );
          const crowded = oversubscription(workers);
          if (crowded !== undefined) out.note(`warning: ${crowded}`);
          if (left > 0)
            display = new CampaignDisplay(out, start.rows, progressIntervalOption(options));
        },
        onTrialEnd: (trial, key) => {
          out.record({
            type: 'trial',
            study: key,
            number: trial.number,
            state: trial.state,
            value: trial.value,
            params: trial.params,
            failReason: trial.failReason,
          });
          if (trial.state === 'fail' && !out.json) {
            display?.erase();
            out.note(
              `${key}: trial ${trial.number} failed: ${trial.failReason ?? 'no reason recorded'} (${formatParams(trial.params)})`,
            );
          }
          display?.changed();
        },
      },
    );
  } finally {
    interrupt.dispose();
    display?.stop();
  }
  const { plan, rows, summary } = outcome;
  if (summary === undefined) {
    out.line('Every study has reached its target: nothing to run.');
    printTable(out, rows);
    return;
  }
  out.progress(campaignProgressRecord(rows));
  const total = totalOf(rows);
  for (const { study, why } of outcome.blocked) out.note(`warning: ${study} did not start: ${why}`);
  if (out.json)
    out.record({
      type: 'summary',
      campaign: plan.name,
      storage: outcome.storage,
      workers: outcome.workers,
      trialsPerWorker: outcome.trialsPerWorker,
      seconds: summary.seconds,
      trials: summary.trials.length,
      lost: summary.lost,
      interrupted: interrupt.signalName() ?? null,
      studies: rows.map(campaignRowRecord),
      total: { target: total.target, done: total.counts.done, perHour: total.counts.perHour },
    });
  else {
    out.line();
    out.line(
      `${interrupt.signalName() === undefined ? 'Finished' : 'Interrupted after'} ${plural(summary.trials.length, 'trial')} in ${summary.seconds.toFixed(1)} s: ${summary.complete} complete, ${summary.pruned} pruned, ${summary.failed} failed, ${summary.lost} lost.`,
    );
    printTable(out, rows);
    // A campaign file's `storage:` is no project setting: the report has to be told it.
    const where = { storage: outcome.storage };
    if (!outcome.finished)
      out.line(
        `To continue: ${suggestCommand(context, ['campaign', 'run', context.positionals[0] ?? ''])}`,
      );
    out.line(`Report: ${suggestCommand(context, ['campaign', 'report', plan.name], where)}`);
  }
  const code = interrupt.exitCode();
  if (code !== undefined) setExitCode(code);
}

function printTable(out: Output, rows: readonly CampaignRow[]): void {
  for (const line of campaignTableLines(rows)) out.line(line);
}

/**
 * The live table: redrawn in place on a terminal (stderr), a plain copy every `intervalS` seconds
 * otherwise (CI logs), each copy after a `progress:` line (done of target, rate, ETA). With --json
 * (each trial is a record there) only that line, and with --progress-records a progress record on
 * stdout every `intervalS` seconds, which is how a service's job shows progress.
 */
class CampaignDisplay {
  private readonly tty = process.stderr.isTTY;
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private drawing = false;
  private stopped = false;

  constructor(
    private readonly out: Output,
    private readonly readRows: () => Promise<CampaignRow[]>,
    private readonly intervalS: number,
  ) {
    this.schedule();
  }

  /** A trial ended: redraw now on a terminal; a plain line at every change with interval 0. */
  changed(): void {
    if (this.redraws() || this.intervalS === 0) void this.draw();
  }

  /** Erases the drawn table before a note; the next draw puts it back below the note. */
  erase(): void {
    if (this.tty && this.drawn > 0) process.stderr.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  /** Erases the table and draws no more (the run is over). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.erase();
  }

  /** The table redrawn in place: on a terminal, unless stdout carries JSON records. */
  private redraws(): boolean {
    return this.tty && !this.out.json;
  }

  /** Drawn at all: with --json on a terminal, only for progress records. */
  private draws(): boolean {
    return !(this.tty && this.out.json) || this.out.progressRecords;
  }

  private schedule(): void {
    if (this.stopped || !this.draws()) return;
    const ms = this.redraws() ? REDRAW_MS : this.intervalS * 1000;
    if (ms <= 0) return;
    this.timer = setTimeout(() => {
      void this.draw().then(() => {
        this.schedule();
      });
    }, ms);
    this.timer.unref();
  }

  private async draw(): Promise<void> {
    if (this.drawing || this.stopped || !this.draws()) return;
    this.drawing = true;
    try {
      const rows = await this.readRows();
      const lines = campaignTableLines(rows);
      // stop() may have run while the rows were read.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (this.stopped) return;
      if (this.redraws()) {
        const up = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[J` : '';
        process.stderr.write(`${up}${lines.join('\n')}\n`);
        this.drawn = lines.length;
      } else {
        if (!this.tty) this.out.note(campaignProgressLine(rows));
        this.out.progress(campaignProgressRecord(rows));
        if (this.out.json) return;
        for (const line of lines) this.out.note(`  ${line}`);
      }
    } catch {
      // A read that failed (the storage busy or closing) is skipped: the next draw tries again.
    } finally {
      this.drawing = false;
    }
  }
}

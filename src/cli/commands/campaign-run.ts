import { availableParallelism } from 'node:os';
import {
  campaignWorkers,
  oversubscription,
  parseWorkersRequest,
  workerSettings,
  type Project,
} from '../../app/index.js';
import {
  CampaignScheduler,
  openCampaignStudies,
  readCampaignFile,
  writeCampaignPlan,
  type CampaignPlan,
  totalOf,
} from '../../campaign/index.js';
import { isTradelabError, TradelabError } from '../../core/index.js';
import type { GpuProfile } from '../../profiles/index.js';
import { drlLimitsOf } from '../../trading/index.js';
import type { StudyStorage } from '../../storage/index.js';
import { resolveObjective, runStudyPool, type WorkerPoolSummary } from '../../tune/index.js';
import {
  campaignProgressLine,
  campaignProgressRecord,
  campaignRowRecord,
  campaignRows,
  campaignTableLines,
} from '../campaign-table.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { openStorageAt, storageUrl } from '../open-study-storage.js';
import { openStore } from '../open-store.js';
import type { Output } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';
import { progressIntervalOption } from '../progress.js';
import { projectPath } from '../project-path.js';
import { handleInterrupts, setExitCode } from '../run-interrupts.js';
import { suggestCommand } from '../suggest-command.js';
import { formatParams } from '../study-format.js';

/** How often the table is redrawn on a terminal. */
const REDRAW_MS = 1000;

/** `tradelab campaign run FILE [--workers auto|N]`. */
export async function run(given: CommandContext): Promise<void> {
  const { options, out } = given;
  const { file, content, plan } = readCampaignFile(
    projectPath(given, given.positionals[0] ?? ''),
    options['inside-project'] === true ? { within: given.project().config.projectRoot } : {},
  );
  const context = withCampaignProfile(given, content.profile, () => file.locate(['profile']));
  const storage = await openStorageAt(context, content.storage ?? storageUrl(context));
  try {
    const project = context.project();
    const choice = await project.chooseProfile();
    const { entries, studies, notes, specs } = await openCampaignStudies(
      storage,
      openStore(context),
      content,
      plan,
      drlLimitsOf(choice.profile),
    );
    for (const note of notes) out.note(`note: within the profile's limits: ${note}`);
    const scheduler = new CampaignScheduler(entries, studies);
    const left = entries.reduce((s, e) => s + Math.max(0, e.plan.trials - e.done), 0);
    const fromFile = options.workers === undefined;
    const { workers, trialsPerWorker, why, limitedBy } = await campaignWorkers(
      project,
      plan,
      specs,
      left,
      parseWorkersRequest(
        options.workers ?? plan.workers,
        fromFile ? "the campaign file's workers" : '--workers',
      ),
      fromFile ? 'the campaign file' : '--workers',
    );
    plan.run = {
      workers,
      ...(trialsPerWorker > 1 ? { trialsPerWorker } : {}),
      why,
      ...(limitedBy === undefined ? {} : { limitedBy }),
      cores: availableParallelism(),
      profile: choice.profile.name,
    };
    await logProfileBanner(context, workers);
    out.record({
      type: 'start',
      campaign: plan.name,
      storage: storage.url,
      left,
      workers,
      trialsPerWorker,
      why,
    });
    out.line(
      `Campaign ${plan.name} in ${storage.url}: ${plural(plan.studies.length, 'study', 'studies')}, ${plural(left, 'trial')} to go, ${plural(workers, 'worker process', 'worker processes')}${trialsPerWorker > 1 ? ` of ${trialsPerWorker} trials at once` : ''} (${why})`,
    );
    const crowded = oversubscription(workers);
    if (crowded !== undefined) out.note(`warning: ${crowded}`);
    if (left === 0) {
      out.line('Every study has reached its target: nothing to run.');
      printTable(out, await campaignRows(storage, plan));
      return;
    }
    // Kept with the plan for the report's diagnosis and for projections: how this run was sized.
    await writeCampaignPlan(storage, plan);

    const display = new CampaignDisplay(out, storage, plan, progressIntervalOption(options));
    const interrupt = handleInterrupts(out, () => {
      display.erase();
    });
    let summary: WorkerPoolSummary;
    try {
      summary = await runStudyPool(storage, scheduler, {
        workers,
        trialsPerWorker,
        objective: resolveObjective('drl', context.cwd),
        objectiveOptions: { ...(await workerSettings(project)) },
        signal: interrupt.stop,
        killSignal: interrupt.kill,
        storageOptions: {
          baseDir: project.config.projectRoot,
          artifactDir: project.config.settings.artifactDir,
        },
        onTrialEnd: (trial, study) => {
          const key = plan.studies.find((s) => s.study === study)?.key ?? study;
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
            display.erase();
            out.note(
              `${key}: trial ${trial.number} failed: ${trial.failReason ?? 'no reason recorded'} (${formatParams(trial.params)})`,
            );
          }
          display.changed();
        },
      });
    } finally {
      interrupt.dispose();
      display.stop();
    }
    const rows = await campaignRows(storage, plan);
    out.progress(campaignProgressRecord(rows));
    const total = totalOf(rows);
    for (const entry of scheduler.state())
      if (entry.blocked !== undefined)
        out.note(`warning: ${entry.plan.key} did not start: ${entry.blocked}`);
    if (out.json)
      out.record({
        type: 'summary',
        campaign: plan.name,
        storage: storage.url,
        workers,
        trialsPerWorker,
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
      const where = { storage: storage.url };
      if (!scheduler.finished())
        out.line(
          `To continue: ${suggestCommand(context, ['campaign', 'run', context.positionals[0] ?? ''])}`,
        );
      out.line(`Report: ${suggestCommand(context, ['campaign', 'report', plan.name], where)}`);
    }
    const code = interrupt.exitCode();
    if (code !== undefined) setExitCode(code);
  } finally {
    await storage.close();
  }
}

function printTable(out: Output, rows: Awaited<ReturnType<typeof campaignRows>>): void {
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
    private readonly storage: StudyStorage,
    private readonly plan: CampaignPlan,
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
      const rows = await campaignRows(this.storage, this.plan);
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

/**
 * The context with the campaign file's `profile:`, unless a flag or the environment named one
 * (they win over files, as over the config file).
 */
function withCampaignProfile(
  context: CommandContext,
  name: string | undefined,
  where: () => string,
): CommandContext {
  if (name === undefined) return context;
  const project = context.project();
  const source = project.config.sources.profile.kind;
  if (source === 'flag' || source === 'env') return context;
  let profile: GpuProfile;
  try {
    profile = project.profiles.resolve(name);
  } catch (error) {
    if (!isTradelabError(error)) throw error;
    throw new TradelabError(error.code, `${where()}: ${error.message}`, {
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      cause: error,
    });
  }
  const campaignProject: Project = {
    ...project,
    async chooseProfile() {
      const base = await project.chooseProfile();
      const same = base.profile.name === profile.name;
      return {
        ...base,
        profile,
        source: 'file',
        origin: where(),
        reason: `the campaign file names ${profile.name} at ${where()}`,
        // The detected card's figures hold only when the file names its profile.
        gpu: same ? base.gpu : undefined,
        freeBytes: same ? base.freeBytes : undefined,
        mismatch:
          same || base.source !== 'detected'
            ? base.mismatch
            : `the campaign file names ${profile.name}, and this machine's GPU maps to ${base.profile.name}`,
      };
    },
  };
  return { ...context, project: () => campaignProject };
}

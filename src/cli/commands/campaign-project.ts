import { availableParallelism, totalmem } from 'node:os';
import { projectCampaign, type CampaignProjection } from '../../campaign/index.js';
import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { count } from '../format.js';
import { campaignReport } from '../../app/index.js';
import { intOption, numberOption } from '../option-values.js';
import { openStorageAt, readStudyStorage } from '../open-study-storage.js';
import { renderTable } from '../output.js';
import { formatDuration } from '../progress.js';

/**
 * `tradelab campaign project NAME --to PROFILE [--trials-per-study N] [--cores N] [--ram-gb G]
 * [--core-speed X] [--validate NAME2]`: what the campaign would do on another machine.
 */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const name = context.positionals[0] ?? '';
  if (typeof options.to !== 'string')
    throw new TradelabError('USAGE', '--to PROFILE is required', {
      hint: `e.g. tradelab campaign project ${name} --to h100 (profiles: tradelab profiles list)`,
    });
  const profiles = context.project().profiles;
  const target = profiles.resolve(options.to);
  const cores = intOption(options, 'cores', 1);
  const ramGb = numberOption(options, 'ram-gb', 0.5, 1e6, '256');
  const coreSpeed = numberOption(options, 'core-speed', 0.01, 100, '1.3') ?? 1;
  const trialsPerStudy = intOption(options, 'trials-per-study', 1);
  const validate = typeof options.validate === 'string' ? options.validate : undefined;
  const validateStorage =
    typeof options['validate-storage'] === 'string' ? options['validate-storage'] : undefined;
  const { report, actual } = await readStudyStorage(context, async (storage) => ({
    report: await campaignReport(context.project(), storage, name, { holdout: false }),
    actual:
      validate === undefined || validateStorage !== undefined
        ? undefined
        : await campaignReport(context.project(), storage, validate, { holdout: false }),
  }));
  let measured = actual;
  if (validate !== undefined && validateStorage !== undefined) {
    // A campaign run on the target and brought back as its storage file (same name or not).
    const other = await openStorageAt(context, validateStorage, { readOnly: true });
    try {
      measured = await campaignReport(context.project(), other, validate, { holdout: false });
    } finally {
      await other.close();
    }
  }
  const source = profiles.get(report.plan.run?.profile ?? 'cpu') ?? profiles.resolve('cpu');
  let projection: CampaignProjection;
  try {
    projection = projectCampaign({
      report,
      source,
      target,
      host: {
        cores: cores ?? availableParallelism(),
        ramBytes: ramGb === undefined ? totalmem() : ramGb * 2 ** 30,
        given: cores !== undefined && ramGb !== undefined,
        coreSpeed,
      },
      ...(trialsPerStudy === undefined ? {} : { trialsPerStudy }),
      safetyFactor: context.project().config.settings.safetyFactor,
    });
  } catch (error) {
    throw new TradelabError('NOT_ENOUGH_TRIALS', (error as Error).message, {
      hint: `run some trials first: tradelab campaign run ${report.plan.file}`,
    });
  }
  const errors =
    measured === undefined
      ? undefined
      : validation(projection, {
          workers: measured.plan.run?.workers ?? null,
          trialSeconds:
            measured.total.counts.meanDurationMs === null
              ? null
              : measured.total.counts.meanDurationMs / 1000,
          perHour: measured.total.counts.perHour,
        });
  if (out.json) {
    out.record({
      type: 'projection',
      ...projection,
      ...(errors === undefined ? {} : { validation: errors }),
    });
    return;
  }
  out.line(
    `Campaign ${projection.campaign}, measured on profile ${projection.from.profile}${projection.from.workers === null ? '' : ` (${projection.from.workers} workers, ${projection.from.cores ?? '?'} cores)`}, projected onto ${projection.to.displayName} (${projection.to.profile}):`,
  );
  out.line();
  for (const line of renderTable(projection.factors, [
    { header: 'FACTOR', value: (f) => f.name },
    {
      header: 'VALUE',
      value: (f) =>
        f.unit === '' && f.value < 1 && f.name === 'prune rate'
          ? `${Math.round(f.value * 100)}%`
          : f.unit === '×'
            ? `${f.value.toFixed(2)}×`
            : `${Number.isInteger(f.value) ? f.value : f.value.toFixed(2)}${f.unit === '' ? '' : ` ${f.unit}`}`,
      right: true,
    },
    { header: 'SOURCE', value: (f) => f.source },
    { header: 'DETAIL', value: (f) => f.detail },
  ]))
    out.line(line);
  out.line();
  out.line(
    `${projection.to.workers} workers (limited by ${projection.to.limitedBy}) × ${projection.trialSeconds.toFixed(1)} s a trial: ${projection.trialsPerHour.toFixed(1)} trials/hour, ${count(Math.round(projection.trialsPerDay))} trials/day`,
  );
  out.line(
    `${count(projection.trials)} trials: ${formatDuration(projection.hours * 3600)} (${(projection.hours / 24).toFixed(2)} days)${projection.hoursHere === null ? '' : `, against ${formatDuration(projection.hoursHere * 3600)} at the rate measured here (${(projection.hoursHere / projection.hours).toFixed(2)}×)`}${projection.costUsd === null ? '; no price in the profile (set hourlyUsd in a custom profile)' : projection.costUsd === 0 ? '' : `; $${projection.costUsd.toFixed(2)} at $${(projection.costUsd / projection.hours).toFixed(2)}/h`}`,
  );
  for (const note of projection.notes) out.line(`  ${note}`);
  if (errors !== undefined) {
    out.line();
    out.line(
      `Against campaign ${validate ?? ''}${validateStorage === undefined ? '' : ` in ${validateStorage}`}, run on the target:`,
    );
    for (const e of errors)
      out.line(
        `  ${e.factor.padEnd(12)} projected ${fmt(e.projected)}, measured ${fmt(e.measured)}${e.error === null ? '' : `: error ${e.error >= 0 ? '+' : ''}${Math.round(e.error * 100)}%`}`,
      );
  }
}

function fmt(x: number | null): string {
  return x === null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(2);
}

/** The projection against a campaign run on the target: the error of each factor. */
function validation(
  projection: CampaignProjection,
  measured: { workers: number | null; trialSeconds: number | null; perHour: number | null },
): { factor: string; projected: number; measured: number | null; error: number | null }[] {
  const row = (factor: string, projected: number, value: number | null) => ({
    factor,
    projected,
    measured: value,
    error: value === null || value === 0 ? null : projected / value - 1,
  });
  return [
    row('workers', projection.to.workers, measured.workers),
    row('trial s', projection.trialSeconds, measured.trialSeconds),
    row('trials/h', projection.trialsPerHour, measured.perHour),
  ];
}

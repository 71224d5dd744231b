import { studyDeflatedSharpe, type DrlStudySpec } from '../../trading/index.js';
import type { CommandContext } from '../command-spec.js';
import {
  budgetOf,
  describeBudget,
  holdoutOfBest,
  printDeflatedSharpe,
  printHoldout,
  printSplits,
  tradingStudyRows,
} from '../print-trading-study.js';
import { rangeVerdict } from '../../eval/index.js';
import { isoTime, plural } from '../format.js';
import { readStudyStorage } from '../open-study-storage.js';
import {
  describeComponents,
  formatDuration,
  formatNumber,
  formatParams,
  formatRate,
  summarizeStudy,
  TRIAL_STATES,
} from '../study-summary.js';
import { suggestCommand } from '../suggest-command.js';

/** `tradelab study show NAME`: states, best trial, throughput and rates, sampler and pruner. */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const name = context.positionals[0] ?? '';
  await readStudyStorage(context, async (storage) => {
    const study = await storage.getStudy(name);
    const trials = await storage.getTrials(study.id);
    const summary = summarizeStudy(study.direction, trials);
    const components = describeComponents(study.systemAttrs);
    const { best } = summary;
    const drl = study.systemAttrs.drl as DrlStudySpec | undefined;
    const holdout =
      drl === undefined || best === undefined || options['no-holdout'] === true
        ? undefined
        : await holdoutOfBest(context.project(), storage, study.name, drl, best);
    const deflated =
      drl === undefined || best === undefined
        ? undefined
        : await studyDeflatedSharpe(storage, study, best);
    if (out.json) {
      out.record({
        name: study.name,
        storage: storage.url,
        direction: study.direction,
        createdAt: study.createdAt,
        sampler: components.sampler,
        pruner: components.pruner,
        ...summary,
        best:
          best === undefined
            ? null
            : {
                number: best.number,
                value: best.value,
                params: best.params,
                ...(drl === undefined ? {} : { budget: budgetOf(drl, best) }),
                userAttrs: best.userAttrs,
              },
        userAttrs: study.userAttrs,
        drl: drl ?? null,
        holdout:
          holdout === undefined
            ? null
            : {
                trial: best?.number,
                range: holdout.evaluation.range,
                metrics: holdout.evaluation.metrics,
                benchmarkMetrics: holdout.evaluation.benchmarkMetrics,
                verdict: rangeVerdict(holdout.evaluation),
              },
        deflatedSharpe: deflated ?? null,
      });
      return;
    }
    const rows: [string, string][] = [
      ['storage', storage.url],
      ['direction', study.direction],
      ['created', isoTime(study.createdAt)],
      ['sampler', components.sampler],
      ['pruner', components.pruner],
      [
        'trials',
        `${summary.total}${
          summary.total === 0
            ? ''
            : ` (${TRIAL_STATES.filter((s) => summary.states[s] > 0)
                .map((s) => `${summary.states[s]} ${s}`)
                .join(', ')})`
        }`,
      ],
      [
        'best',
        best === undefined
          ? '- (no complete trial)'
          : `trial ${best.number}: ${formatNumber(best.value)}`,
      ],
      ...(best === undefined
        ? []
        : [['best params', formatParams(best.params)] as [string, string]]),
      ...(best === undefined || drl === undefined
        ? []
        : [['best budget', describeBudget(budgetOf(drl, best))] as [string, string]]),
      ['completion rate', `${formatRate(summary.completionRate)} of finished trials complete`],
      ['prune rate', `${formatRate(summary.pruneRate)} of finished trials pruned`],
      [
        'mean duration',
        summary.meanDurationMs === null
          ? '-'
          : `${formatDuration(summary.meanDurationMs)} per finished trial`,
      ],
      [
        'throughput',
        summary.trialsPerHour === null
          ? '-'
          : `${formatNumber(summary.trialsPerHour, 3)} trials/hour (${plural(summary.finished, 'finished trial')} between ${isoTime(summary.firstStartedAt ?? Number.NaN)} and ${isoTime(summary.lastFinishedAt ?? Number.NaN)})`,
      ],
      ...(drl === undefined ? [] : tradingStudyRows(drl, trials)),
    ];
    out.line(`Study "${study.name}"`);
    const width = Math.max(...rows.map(([label]) => label.length));
    for (const [label, value] of rows) out.line(`  ${label.padEnd(width)}  ${value}`);
    if (summary.states.running > 0)
      out.line(
        `\n${plural(summary.states.running, 'trial')} running. If no run is going on, fail them with \`${suggestCommand(context, ['study', 'fail-stale', '--study', study.name])}\`.`,
      );
    if (drl !== undefined && best !== undefined) {
      out.line();
      printSplits(out, best, holdout);
      if (deflated !== undefined) printDeflatedSharpe(out, deflated);
      if (holdout !== undefined) printHoldout(out, best, holdout);
    }
  });
}

import { holdoutOfBest } from '../../app/index.js';
import { studyDeflatedSharpe, type DrlStudySpec } from '../../trading/index.js';
import type { CommandContext } from '../command-spec.js';
import {
  budgetOf,
  describeBudget,
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
  studyFigures,
  summarizeStudy,
  TRIAL_STATES,
  type StudySummary,
} from '../../tune/index.js';
import { formatDuration, formatNumber, formatParams, formatRate } from '../study-format.js';
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
        ...studyFigures(summary),
        states: summary.states,
        firstStart: summary.firstStart,
        lastEnd: summary.lastEnd,
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
      ['trials', `${summary.total}${summary.total === 0 ? '' : ` (${describeStates(summary)})`}`],
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
      ['completion rate', `${formatRate(summary.completionRate)} of trials done complete`],
      ['prune rate', `${formatRate(summary.pruneRate)} of trials done pruned`],
      [
        'mean duration',
        summary.meanDurationMs === null
          ? '-'
          : `${formatDuration(summary.meanDurationMs)} per trial that ended`,
      ],
      [
        'throughput',
        summary.perHour === null
          ? '-'
          : `${formatNumber(summary.perHour, 3)} trials/hour (${plural(summary.done, 'trial')} done between ${isoTime(summary.firstStart ?? Number.NaN)} and ${isoTime(summary.lastEnd ?? Number.NaN)})`,
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

/** The trials by state, `fail` less the retried ones, which are named apart (their retries count). */
function describeStates(summary: StudySummary): string {
  const counts: [number, string][] = [
    ...TRIAL_STATES.map((s): [number, string] => [
      s === 'fail' ? summary.failed : summary.states[s],
      s,
    ]),
    [summary.retried, 'failed and retried'],
  ];
  return counts
    .filter(([n]) => n > 0)
    .map(([n, s]) => `${n} ${s}`)
    .join(', ');
}

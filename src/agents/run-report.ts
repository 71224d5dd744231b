import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/index.js';
import type { RangeEvaluation } from '../eval/evaluate.js';
import type { VerdictContext } from '../eval/range-verdict.js';
import { evaluationSections } from './evaluation-report.js';
import { renderHtmlReport, renderLineChart, type ReportSection } from '../report/index.js';
import type { PpoUpdateReport } from './ppo.js';
import { RUN_FILES, type RunManifest } from './run-manifest.js';

/*
 * A training run's report.html: what was trained on what, the training curve and phase timings,
 * and the test-range evaluation beside buy-and-hold. Self-contained (inline SVG, no scripts).
 */

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * What training tells a verdict: the critic's explained variance, the mean of the last 5 updates
 * (one update's figure is noisy). Empty without updates.
 */
export function trainingVerdictContext(
  updates: readonly Pick<PpoUpdateReport, 'explainedVariance'>[],
): VerdictContext {
  const last = updates.slice(-5).map((u) => u.explainedVariance);
  if (last.length === 0) return {};
  return { explainedVariance: last.reduce((a, b) => a + b, 0) / last.length };
}

/**
 * The verdict context of the run a model directory belongs to (`path` is the run directory or its
 * `model/`): from its `updates.jsonl`, when there is one; empty otherwise (a trial's model).
 */
export function runVerdictContext(path: string): VerdictContext {
  const file = [join(path, RUN_FILES.updates), join(dirname(path), RUN_FILES.updates)].find((f) =>
    existsSync(f),
  );
  if (file === undefined) return {};
  const updates: Pick<PpoUpdateReport, 'explainedVariance'>[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const row = JSON.parse(line) as { explainedVariance?: unknown };
      if (typeof row.explainedVariance === 'number')
        updates.push({ explainedVariance: row.explainedVariance });
    } catch {
      // A line cut short by a kill is not the run's history; the rest is.
    }
  }
  return trainingVerdictContext(updates);
}

function trainingSection(updates: readonly PpoUpdateReport[]): ReportSection {
  const x = updates.map((u) => u.envSteps);
  const returns = updates.map((u) => u.meanEpisodeReturn);
  const timing = (pick: (u: PpoUpdateReport) => number, digits: number): string =>
    updates.length === 0 ? '-' : median(updates.map(pick)).toFixed(digits);
  return {
    heading: 'Training',
    paragraph:
      'Mean return of the training episodes that ended in each update (rewards are value changes over initial cash), and the median timing of an update.',
    charts: [
      renderLineChart({
        title: 'Mean training episode return',
        xLabel: 'env steps',
        series: [{ name: 'episode return', x, y: returns }],
        emptyMessage: 'no episode ended during training',
      }),
      renderLineChart({
        title: 'Policy standard deviation and approximate KL per update',
        xLabel: 'env steps',
        series: [
          { name: 'action std', x, y: updates.map((u) => u.actionStd) },
          { name: 'approx KL × 100', x, y: updates.map((u) => u.approxKl * 100) },
        ],
      }),
    ],
    table: {
      headers: ['per update (median)', 'value'],
      rows: [
        ['rollout seconds', timing((u) => u.rolloutSeconds, 3)],
        ['  of which env stepping', timing((u) => u.envSeconds, 3)],
        ['  of which policy forward', timing((u) => u.policySeconds, 3)],
        ['update seconds', timing((u) => u.updateSeconds, 3)],
        ['env steps/s (rollout)', timing((u) => u.envStepsPerSecond, 0)],
        ['samples/s (update)', timing((u) => u.samplesPerSecond, 0)],
        ['explained variance', timing((u) => u.explainedVariance, 3)],
      ],
    },
  };
}

/** Writes `report.html` into the run directory; returns its path. */
export function writeRunReport(
  dir: string,
  manifest: RunManifest,
  updates: readonly PpoUpdateReport[],
  evaluation: RangeEvaluation | undefined,
  timestamps: Float64Array,
): string {
  const { data, ranges, ppo } = manifest;
  const sections: ReportSection[] = [trainingSection(updates)];
  if (evaluation !== undefined) {
    const parts = evaluationSections(
      evaluation,
      timestamps,
      'PPO policy',
      [],
      trainingVerdictContext(updates),
    );
    sections.push(...parts.map((s) => ({ ...s, heading: `${s.heading} on the test range` })));
  }
  const html = renderHtmlReport({
    title: `PPO on ${data.symbols.join(', ')} ${data.timeframe}`,
    subtitle: `${manifest.progress.envSteps.toLocaleString('en-US')} env steps in ${manifest.progress.updatesDone} updates, ${manifest.progress.seconds.toFixed(1)} s`,
    facts: [
      {
        label: 'data',
        value: `${data.spec}: ${data.bars} bars × ${data.featureNames.length} features`,
      },
      {
        label: 'train',
        value: `bars ${ranges.train.bars.join('..')} (${ranges.train.from} → ${ranges.train.to})`,
      },
      {
        label: 'test',
        value:
          ranges.test === null
            ? 'none'
            : `bars ${ranges.test.bars.join('..')} (${ranges.test.from} → ${ranges.test.to})`,
      },
      {
        label: 'PPO',
        value: `netDim ${ppo.netDim} × ${ppo.layers}, nEnvs ${ppo.nEnvs}, targetStep ${ppo.targetStep}, batchSize ${ppo.batchSize}, repeatTimes ${ppo.repeatTimes}, lr ${ppo.learningRate}, gamma ${ppo.gamma}, seed ${ppo.seed}`,
      },
      { label: 'backend', value: `${manifest.backend.name} (${manifest.backend.matmul})` },
      { label: 'machine', value: `${manifest.machine.cpu}, ${manifest.machine.cores} cores` },
    ],
    sections,
    footer: `written by tradelab ${manifest.tradelab} at ${new Date().toISOString()}`,
  });
  const path = join(dir, RUN_FILES.report);
  writeFileAtomic(path, html);
  return path;
}

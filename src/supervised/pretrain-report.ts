import { writeFileAtomic } from '../core/index.js';
import { renderHtmlReport, renderLineChart, type ReportTable } from '../report/index.js';
import type { RegressionMetrics } from './regression-metrics.js';
import { EPOCH_HEADERS, epochCells, type PretrainRunJson } from './pretrain-run.js';

/*
 * The run's `report.html`: loss and correlation curves per epoch with HAR-RV's validation figures
 * as the line to beat, the epoch table, and the test verdict. One offline page, charts inline.
 */

const DAY_MS = 86_400_000;

/** Whether the TCN beats HAR-RV on the test rows, in one sentence. */
export function verdict(test: { tcn: RegressionMetrics; har: RegressionMetrics }): string {
  const better = test.tcn.rmse < test.har.rmse;
  return better
    ? `The TCN beats HAR-RV on the test rows: RMSE ${test.tcn.rmse.toFixed(4)} against ${test.har.rmse.toFixed(4)}, R² ${test.tcn.r2.toFixed(3)} against ${test.har.r2.toFixed(3)}.`
    : `The TCN does not beat HAR-RV on the test rows: RMSE ${test.tcn.rmse.toFixed(4)} against HAR-RV's ${test.har.rmse.toFixed(4)}, R² ${test.tcn.r2.toFixed(3)} against ${test.har.r2.toFixed(3)}.`;
}

/** Renders the report page of a run. */
export function renderPretrainReport(run: PretrainRunJson): string {
  const epochs = run.history.map((row) => row.epoch);
  const date = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
  const { ranges } = run.data;
  const table: ReportTable = { headers: [...EPOCH_HEADERS], rows: run.history.map(epochCells) };
  const harLoss = run.history.map((r) => r.har.mse / run.data.targetScale.sd ** 2);
  const sections = [
    {
      heading: 'Loss',
      paragraph:
        'Mean squared error of the standardized log forward RV. HAR-RV, fitted once on the training split, scores the same validation rows.',
      charts: [
        renderLineChart({
          title: 'loss per epoch',
          xLabel: 'epoch',
          yLabel: 'MSE (standardized)',
          series: [
            { name: 'train', x: epochs, y: run.history.map((r) => r.trainLoss) },
            { name: 'validation', x: epochs, y: run.history.map((r) => r.validationLoss) },
            { name: 'HAR-RV (validation)', x: epochs, y: harLoss, dash: '6 4' },
          ],
        }),
      ],
    },
    {
      heading: 'Correlation',
      charts: [
        renderLineChart({
          title: 'forecast–target correlation per epoch',
          xLabel: 'epoch',
          yLabel: 'correlation',
          series: [
            { name: 'train', x: epochs, y: run.history.map((r) => r.trainCorrelation) },
            { name: 'validation', x: epochs, y: run.history.map((r) => r.validation.correlation) },
            {
              name: 'HAR-RV (validation)',
              x: epochs,
              y: run.history.map((r) => r.har.correlation),
              dash: '6 4',
            },
          ],
        }),
      ],
    },
    {
      heading: 'Epochs',
      paragraph: '* marks a new best validation loss (the last is the run’s model).',
      table,
    },
  ];
  if (run.test !== undefined)
    sections.push({
      heading: 'Test',
      paragraph: verdict(run.test),
      table: {
        headers: ['model', 'correlation', 'R²', 'RMSE (log RV)', 'rows'],
        rows: [
          [
            'TCN',
            run.test.tcn.correlation.toFixed(3),
            run.test.tcn.r2.toFixed(3),
            run.test.tcn.rmse.toFixed(4),
            String(run.test.tcn.rows),
          ],
          [
            'HAR-RV',
            run.test.har.correlation.toFixed(3),
            run.test.har.r2.toFixed(3),
            run.test.har.rmse.toFixed(4),
            String(run.test.har.rows),
          ],
        ],
      },
    });
  const s = run.settings;
  return renderHtmlReport({
    title: `TCN pretraining on realized volatility: ${run.data.spec}`,
    subtitle: `status ${run.status}; best epoch ${run.bestEpoch ?? '-'}`,
    facts: [
      {
        label: 'model',
        value: `TCN ${s.layers}×${s.hidden}, kernel ${s.kernel}, ${run.model.params.toLocaleString('en-US')} params, sees ${run.model.receptiveField} bars`,
      },
      { label: 'target', value: `log mean RV of the next ${s.horizon} sessions` },
      {
        label: 'chunks',
        value: `${s.chunkLen} bars; ${s.chunks} a micro-batch × ${s.accum} accumulated`,
      },
      {
        label: 'train',
        value: `${date(ranges.train.firstDay)} … ${date(ranges.train.lastDay)} (${ranges.train.sessions} sessions)`,
      },
      {
        label: 'validation',
        value: `${date(ranges.validation.firstDay)} … ${date(ranges.validation.lastDay)}`,
      },
      {
        label: 'test',
        value: `${date(ranges.test.firstDay)} … ${date(ranges.test.lastDay)}; gaps of ${ranges.gap} sessions`,
      },
      { label: 'precision', value: run.precision.note ?? run.precision.used },
      { label: 'backend', value: run.backend },
    ],
    sections,
  });
}

/** Writes `path` with the run's report. */
export function writePretrainReport(path: string, run: PretrainRunJson): void {
  writeFileAtomic(path, renderPretrainReport(run));
}

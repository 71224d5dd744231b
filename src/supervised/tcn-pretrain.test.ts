import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/index.js';
import { calendarFor, generateSynthetic, timeframeMs } from '../data/index.js';
import { loadTcnModel } from '../models/index.js';
import { PRETRAIN_DEFAULTS, type PretrainSettings } from './pretrain-settings.js';
import { buildRvDataset, type RvSeries } from './rv-dataset.js';
import { pretrainTcn, readPretrainRun } from './tcn-pretrain.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tradelab-tcn-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  await useBackend('wasm');
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const m = generateSynthetic({ symbols: 2, bars: 160 * 48, timeframe: '30m', seed: 9 });
const series: RvSeries[] = m.symbols.map((symbol, i) => ({
  symbol,
  bars: m.bars[i] as RvSeries['bars'],
  calendar: calendarFor('24/7'),
  barMs: timeframeMs('30m'),
}));
const settings: PretrainSettings = {
  ...PRETRAIN_DEFAULTS,
  hidden: 8,
  layers: 3,
  chunkLen: 24,
  horizon: 5,
  chunks: 8,
  accum: 2,
  stepsPerEpoch: 4,
  epochs: 3,
  patience: 5,
  checkpoint: false,
};
const dataset = buildRvDataset(series, { chunkLen: settings.chunkLen, horizon: settings.horizon });
const common = {
  spec: 'SYN0,SYN1:30m',
  backend: 'wasm',
  precision: { requested: 'fp32', used: 'fp32' },
} as const;

describe('pretrainTcn', () => {
  it('trains, scores HAR-RV on the same rows, and writes run.json, model/, checkpoint/ and report.html', async () => {
    const dir = tempDir();
    const run = await pretrainTcn(dataset, settings, { ...common, dir });
    expect(run.status).toBe('finished');
    expect(run.history.map((r) => r.epoch)).toEqual([1, 2, 3]);
    for (const row of run.history) {
      expect(row.validation.rows).toBe(row.har.rows);
      expect(Number.isFinite(row.validationLoss)).toBe(true);
      expect(row.samplesPerSecond).toBeCloseTo(row.itPerSecond * 16, 6);
    }
    expect(run.test?.tcn.rows).toBe(run.test?.har.rows);
    expect(readPretrainRun(dir).history).toHaveLength(3);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<svg');
    const best = loadTcnModel(join(dir, 'model'));
    expect(best.meta.epoch).toBe(run.bestEpoch);
    expect(best.meta.chunkLen).toBe(24);
    best.net.dispose();
  });

  it('resumes exactly: stopped in epoch 2 and resumed, it ends with the same weights as a run that never stopped', async () => {
    const straight = tempDir();
    await pretrainTcn(dataset, settings, { ...common, dir: straight });
    const stopped = tempDir();
    let steps = 0;
    const first = await pretrainTcn(dataset, settings, {
      ...common,
      dir: stopped,
      onStep: () => steps++,
      stopRequested: () => steps >= settings.stepsPerEpoch + 2,
    });
    expect(first.status).toBe('stopped');
    expect(first.history).toHaveLength(1);
    const resumed = await pretrainTcn(dataset, settings, { ...common, dir: stopped, resume: true });
    expect(resumed.status).toBe('finished');
    const weights = (dir: string): Buffer => readFileSync(join(dir, 'checkpoint', 'weights.bin'));
    expect(weights(stopped).equals(weights(straight))).toBe(true);
    const losses = (run: typeof resumed): number[] => run.history.map((r) => r.trainLoss);
    expect(losses(resumed)).toEqual(losses(readPretrainRun(straight)));
  });

  it('refuses to resume with other settings, and to overwrite a run', async () => {
    const dir = tempDir();
    await pretrainTcn(dataset, { ...settings, epochs: 1 }, { ...common, dir });
    await expect(
      pretrainTcn(dataset, { ...settings, hidden: 16 }, { ...common, dir, resume: true }),
    ).rejects.toThrow(/these would change: hidden/);
    await expect(pretrainTcn(dataset, settings, { ...common, dir })).rejects.toThrow(
      /already holds a TCN run/,
    );
    // Other data (another market) is refused before anything trains.
    const other = generateSynthetic({ symbols: 2, bars: 160 * 48, timeframe: '30m', seed: 10 });
    const otherData = buildRvDataset(
      other.symbols.map((symbol, i) => ({ ...series[i], symbol, bars: other.bars[i] }) as RvSeries),
      { chunkLen: settings.chunkLen, horizon: settings.horizon },
    );
    await expect(
      pretrainTcn(otherData, { ...settings, epochs: 2 }, { ...common, dir, resume: true }),
    ).rejects.toThrow(/changed since the run started/);
    // Only epochs may change: the run goes on to 2.
    const extended = await pretrainTcn(
      dataset,
      { ...settings, epochs: 2 },
      { ...common, dir, resume: true },
    );
    expect(extended.history.map((r) => r.epoch)).toEqual([1, 2]);
  });
});

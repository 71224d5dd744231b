import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { errorOf } from '../../test/support/assertions.js';
import { tempDir } from '../../test/support/run-cli.js';
import { parseCvMethod, parseHoldout, studySplits } from './cv-spec.js';
import { listPresets, loadPreset } from './presets.js';
import { featureOptionsOf } from './feature-groups.js';
import {
  defaultBudgetScale,
  describeDrlStudy,
  readCheckedFile,
  resolveDrlStudy,
  STUDY_DEFAULTS,
  studyDefaults,
  StudyFileSchema,
  type DrlStudyInput,
  type DrlStudySpec,
} from './study-spec.js';

const dir = tempDir('tradelab-study-spec-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const market: DrlStudyInput['market'] = {
  symbols: ['A', 'B'],
  timeframe: '1h',
  bars: 10_000,
  digest: 'abc',
};

describe('trading study settings', () => {
  it('parses the cross-validations and holdouts the CLI takes, and explains bad ones', () => {
    expect(parseCvMethod('cpcv:4:2')).toEqual({ method: 'cpcv', groups: 4, testGroups: 2 });
    expect(parseCvMethod('kfold:5')).toEqual({ method: 'kfold', k: 5 });
    expect(parseCvMethod('walk-forward:3')).toEqual({ method: 'walk-forward', folds: 3 });
    expect(() => parseCvMethod('cpcv:4:4')).toThrow(/--cv: "cpcv:4:4" is not a cross-validation/);
    expect(errorOf(() => parseCvMethod('loo')).hint).toMatch(/cpcv:N:k .*kfold:K .*walk-forward:F/);
    expect(parseHoldout('20%')).toEqual({ fraction: 0.2 });
    expect(parseHoldout('0.25')).toEqual({ fraction: 0.25 });
    expect(parseHoldout('8000')).toEqual({ at: 8000 });
    expect(parseHoldout('none')).toBeNull();
    expect(() => parseHoldout('120%')).toThrow(/--holdout: "120%" is not a holdout/);
  });

  it('ships five presets as data files, each valid', () => {
    expect(listPresets()).toEqual([
      'ensemble_aggressive',
      'ensemble_balanced',
      'ensemble_conservative',
      'ft_large',
      'ft_small',
    ]);
    for (const name of listPresets()) expect(loadPreset(name).description).not.toBe('');
    // Aggressive trades bigger and is not charged for turnover; conservative pays for both.
    expect(loadPreset('ensemble_aggressive').params.maxTradeFraction).toBe(1);
    expect(loadPreset('ensemble_aggressive').params.turnoverPenalty).toBe(0);
    expect(loadPreset('ensemble_conservative').params.drawdownPenalty).toHaveProperty('low');
    expect(errorOf(() => loadPreset('ensemble_balance')).hint).toMatch(
      /did you mean ensemble_balanced/,
    );
  });

  it('fills in seed 000 defaults: cpcv:4:2, a 20% holdout, a 1% embargo, timeframe budgets', () => {
    const spec = resolveDrlStudy({ dataSpec: 'A,B:1h', market }, loadPreset('ensemble_balanced'));
    expect(spec.cv).toEqual({ method: 'cpcv', groups: 4, testGroups: 2 });
    expect(spec.holdout).toEqual({ fraction: 0.2 });
    expect(spec.embargo).toBe(80); // 1% of the 8,000 bars left after the holdout
    expect(spec.budgetScale).toBe(1);
    expect(defaultBudgetScale('5m')).toBe(12);
    expect(defaultBudgetScale('4h')).toBe(0.25);
    expect(spec.params.learningRate).toEqual({ low: 1e-5, high: 1e-3, log: true });
    const splits = studySplits(market.bars, spec.cv, spec);
    expect(splits.splits).toHaveLength(6);
    expect(splits.paths).toHaveLength(3);
    expect(splits.holdout).toEqual([8000, 10_000]);
    // No split trains or tests on a held-out bar.
    for (const s of splits.splits)
      for (const [, end] of [...s.train, ...s.test]) expect(end).toBeLessThanOrEqual(8000);
  });

  it('keeps the defaults a study was created with, and gives older studies theirs', () => {
    const spec = resolveDrlStudy({ dataSpec: 'A,B:1h', market }, loadPreset('ensemble_balanced'));
    expect(spec.defaults).toEqual({
      executionPrice: 'open',
      normalizeRewards: true,
      episodeLength: 256,
    });
    expect(studyDefaults(spec)).toEqual(STUDY_DEFAULTS);
    expect(describeDrlStudy(spec)).toContainEqual([
      'trading',
      "fills at the next bar's open, rewards scaled by their running sd",
    ]);
    // A study stored before the field: fills at the close, raw rewards, as its trials ran.
    const older: DrlStudySpec = JSON.parse(JSON.stringify(spec)) as DrlStudySpec;
    delete older.defaults;
    expect(studyDefaults(older)).toEqual({ executionPrice: 'close', normalizeRewards: false });
    expect(describeDrlStudy(older)).toContainEqual([
      'trading',
      "fills at the next bar's close, raw rewards",
    ]);
    // The params win over either.
    const fixed = resolveDrlStudy(
      {
        dataSpec: 'A,B:1h',
        market,
        params: { executionPrice: 'close', normalizeRewards: [true, false] },
      },
      undefined,
    );
    expect(describeDrlStudy(fixed)).toContainEqual([
      'trading',
      "fills at the next bar's close, reward scaling searched",
    ]);
  });

  it('lets a study file override any parameter, and names file:line for a bad one', () => {
    const good = join(dir, 'good.yaml');
    writeFileSync(
      good,
      'preset: ensemble_aggressive\nparams:\n  netDim: [64, 128]\n  gamma: 0.97\n',
    );
    const { content } = readCheckedFile(good, StudyFileSchema, 'study file');
    const spec = resolveDrlStudy(
      {
        dataSpec: 'A,B:1h',
        market,
        ...(content.params === undefined ? {} : { params: content.params }),
      },
      loadPreset('ensemble_aggressive'),
    );
    expect(spec.params.netDim).toEqual([64, 128]);
    expect(spec.params.gamma).toBe(0.97);
    expect(spec.params.maxTradeFraction).toBe(1);

    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'params:\n  gamma: 0.97\n  netdim: [64]\n');
    expect(() => readCheckedFile(typo, StudyFileSchema, 'study file')).toThrow(
      /typo\.yaml:3:3: "netdim" is not a study parameter \(did you mean "netDim"\?\)/,
    );
    const backwards = join(dir, 'backwards.yaml');
    writeFileSync(backwards, 'params:\n  learningRate: { low: 0.1, high: 0.01 }\n');
    expect(() => readCheckedFile(backwards, StudyFileSchema, 'study file')).toThrow(
      /backwards\.yaml:2:3: low 0.1 is not below high 0.01/,
    );
    const unknown = join(dir, 'unknown.yaml');
    writeFileSync(unknown, 'cv: cpcv:4:2\nembrago: 5\n');
    expect(() => readCheckedFile(unknown, StudyFileSchema, 'study file')).toThrow(
      /unknown\.yaml:2:1: .*unknown key "embrago" \(did you mean "embargo"\?\)/,
    );
  });

  it('checks fixed values, choices and range bounds against each parameter domain, at file:line', () => {
    const bad = join(dir, 'bad-values.yaml');
    writeFileSync(
      bad,
      [
        'params:',
        '  breakStep: -5',
        '  gamma: 1.5',
        '  batchSize: "big"',
        '  netDim: [64, 0]',
        '  learningRate: { low: 0, high: 0.01 }',
        '  normalizeAdvantages: "yes"',
        '  buyFeeBps: -1',
        '  reward: sharpe',
        '  episodeLength: { low: 0, high: 64 }',
        '',
      ].join('\n'),
    );
    const error = errorOf(() => readCheckedFile(bad, StudyFileSchema, 'study file'));
    expect(error.code).toBe('CONFIG_INVALID');
    const lines = error.message.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /bad-values\.yaml:2:14: breakStep: must be an integer ≥ 1, got -5 \(e\.g\. breakStep: 200000\)$/,
      ),
      expect.stringMatching(/bad-values\.yaml:3:10: gamma: must be in \[0, 1\], got 1\.5 /),
      expect.stringMatching(/bad-values\.yaml:4:14: batchSize: must be an integer ≥ 1, got "big" /),
      expect.stringMatching(/bad-values\.yaml:5:16: netDim: must be an integer ≥ 1, got 0 /),
      expect.stringMatching(/bad-values\.yaml:6:24: learningRate: must be in \(0, 1\], got 0 /),
      expect.stringMatching(
        /bad-values\.yaml:7:24: normalizeAdvantages: must be true or false, got "yes" /,
      ),
      expect.stringMatching(
        /bad-values\.yaml:8:14: buyFeeBps: must be a finite number ≥ 0, got -1 /,
      ),
      expect.stringMatching(
        /bad-values\.yaml:9:11: reward: unknown "sharpe" \(use value-change or excess\)$/,
      ),
      expect.stringMatching(
        /bad-values\.yaml:10:25: episodeLength: must be a positive integer, got 0 /,
      ),
    ]);
    // The same values given in code (no file) are named by their key path.
    expect(() =>
      resolveDrlStudy({ dataSpec: 'A,B:1h', market, params: { gamma: 1.5 } }, undefined),
    ).toThrow(/params\.gamma: gamma: must be in \[0, 1\], got 1\.5/);
    // Every shipped preset passes the same check.
    for (const name of listPresets()) expect(() => loadPreset(name)).not.toThrow();
  });

  it('lets a study name the indicator groups its agents see', () => {
    const preset = loadPreset('ensemble_balanced');
    const spec = resolveDrlStudy(
      { dataSpec: 'A,B:1h', market, features: ['logReturns', 'volatility'] },
      preset,
    );
    expect(spec.features).toEqual(['logReturns', 'volatility']);
    expect(featureOptionsOf(spec.features)).toMatchObject({
      logReturns: {},
      volatility: {},
      rsi: false,
    });
    expect(featureOptionsOf(null)).toEqual({});
    expect(() =>
      resolveDrlStudy({ dataSpec: 'A,B:1h', market, features: ['logReturn'] }, preset),
    ).toThrow(/"logReturn" is not an indicator group \(did you mean "logReturns"\?\)/);
  });

  it('refuses a fine-tuning preset without a study to fine-tune from', () => {
    expect(() =>
      resolveDrlStudy({ dataSpec: 'A,B:1h', market, preset: 'ft_small' }, loadPreset('ft_small')),
    ).toThrow(/preset ft_small fine-tunes another study/);
  });
});

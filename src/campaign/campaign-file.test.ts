import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import { readCampaignFile } from './campaign-file.js';

const dir = mkdtempSync(join(tmpdir(), 'tradelab-campaign-file-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('readCampaignFile', () => {
  it("takes a study file's preset, parameters and sampler, the campaign's own fields winning", () => {
    write(
      'study.yaml',
      'preset: ensemble_conservative\nsampler: { type: random, seed: 3 }\nparams:\n  netDim: [64, 128]\n  gamma: 0.97\n',
    );
    const { content, plan } = readCampaignFile(
      write(
        'c.yaml',
        'name: c\ndata: A,B:1h\nstudies:\n  - name: mine\n    file: study.yaml\n    trials: 5\n    params: { gamma: 0.9 }\n',
      ),
    );
    expect(content.studies[0]).toMatchObject({
      preset: 'ensemble_conservative',
      sampler: { type: 'random', seed: 3 },
      params: { netDim: [64, 128], gamma: 0.9 },
    });
    expect(plan.studies[0]).toMatchObject({
      key: 'mine',
      study: 'c.mine',
      preset: 'ensemble_conservative',
    });
  });

  it("refuses a study file that sets the campaign's data or splits, naming its line", () => {
    write('split.yaml', 'preset: ensemble_balanced\ncv: kfold:3\n');
    const error = errorOf(() =>
      readCampaignFile(
        write('d.yaml', 'name: d\ndata: A,B:1h\nstudies:\n  - file: split.yaml\n    trials: 2\n'),
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/split\.yaml:2:1: cv is the campaign's in a campaign/);
  });

  it('names the file:line:col of a sampler or pruner type that does not exist, in a study file too', () => {
    write('typo.yaml', 'preset: ensemble_balanced\nsampler: {type: tpee}\n');
    const error = errorOf(() =>
      readCampaignFile(
        write(
          'p.yaml',
          'name: p\ndata: A:1h\npruner: {type: none}\nstudies:\n  - preset: ensemble_balanced\n    trials: 2\n  - file: typo.yaml\n    trials: 2\n',
        ),
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      `${join(dir, 'p.yaml')}:3:16: pruner.type: this string is not allowed: expected one of nop, median, percentile, successive-halving, hyperband (did you mean nop?)`,
    );
    const inStudyFile = errorOf(() =>
      readCampaignFile(
        write('q.yaml', 'name: q\ndata: A:1h\nstudies:\n  - file: typo.yaml\n    trials: 2\n'),
      ),
    );
    expect(inStudyFile.message).toContain(
      `${join(dir, 'typo.yaml')}:2:17: sampler.type: this string is not allowed: expected one of tpe, random, grid (did you mean tpe?)`,
    );
  });

  it('names the file:line:col of sampler or pruner options the run could not build, once', () => {
    const error = errorOf(() =>
      readCampaignFile(
        write(
          'o.yaml',
          'name: o\ndata: A:1h\npruner: {type: percentile, percentile: 150}\nstudies:\n  - preset: ensemble_balanced\n    trials: 2\n  - preset: ensemble_aggressive\n    trials: 2\n    sampler: {type: tpe, nStartupTrials: -1}\n',
        ),
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    // The campaign's pruner once, though both studies use it; the study's own sampler at its line.
    expect(error.message.split('\n')).toEqual([
      `${join(dir, 'o.yaml')}:9:14: sampler: tpe sampler: nStartupTrials -1 is not allowed`,
      expect.stringMatching(/^.*o\.yaml:3:9: pruner: .*percentile/),
    ]);
  });
});

describe('readCampaignFile within a project (a job of tradelab serve)', () => {
  const project = join(dir, 'project');
  const outside = join(dir, 'outside');
  mkdirSync(join(project, 'runs', 'tcn'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, join(project, 'out-link'));
  writeFileSync(join(outside, 'study.yaml'), 'preset: ensemble_balanced\n');
  writeFileSync(join(project, 'study.yaml'), 'preset: ensemble_balanced\npolicy: tcn:../outside\n');
  const campaign = (name: string, body: string): string => {
    const path = join(project, name);
    writeFileSync(path, `name: c\ndata: A:1h\n${body}`);
    return path;
  };

  it('refuses every path the file names that leads out of the project, at its line', () => {
    const path = campaign(
      'escape.yaml',
      [
        `storage: sqlite:${join(outside, 'evil.db')}`,
        'policy: tcn:../../..',
        'studies:',
        '  - preset: ensemble_balanced',
        '    trials: 2',
        '    policy: tcn:out-link/run',
        '  - preset: ensemble_aggressive',
        '    trials: 2',
        '    file: ../outside/study.yaml',
        '  - name: third',
        '    file: study.yaml',
        '    trials: 2',
        '',
      ].join('\n'),
    );
    // Read by the machine's owner (no limit), the same file is a campaign.
    expect(readCampaignFile(path).plan.studies).toHaveLength(3);
    const error = errorOf(() => readCampaignFile(path, { within: project }));
    expect(error.code).toBe('PATH_OUTSIDE_PROJECT');
    expect(error.exitCode).toBe(2);
    expect(error.message.split('\n')).toEqual([
      `${path}:3:10: storage: ${join(outside, 'evil.db')} leaves the project`,
      `${path}:4:9: policy: / leaves the project`,
      `${path}:8:13: policy: ${join(project, 'out-link', 'run')} leads out of the project through a symlink`,
      `${path}:11:11: file: ${join(outside, 'study.yaml')} leaves the project`,
      `${join(project, 'study.yaml')}:2:9: policy: ${outside} leaves the project`,
    ]);
  });

  it('refuses a storage URL other than a SQLite file, without quoting it', () => {
    const error = errorOf(() =>
      readCampaignFile(
        campaign(
          'pg.yaml',
          'storage: postgres://u:pa55word@db/x\nstudies:\n  - preset: ensemble_balanced\n    trials: 2\n',
        ),
        { within: project },
      ),
    );
    expect(error.code).toBe('PATH_OUTSIDE_PROJECT');
    expect(error.message).toMatch(/pg\.yaml:3:10: storage: only a sqlite:PATH inside the project/);
    expect(error.message).not.toContain('pa55word');
  });

  it('refuses the campaign file itself through a symlink out of the project', () => {
    writeFileSync(
      join(outside, 'c.yaml'),
      'name: c\ndata: A:1h\nstudies:\n  - preset: ensemble_balanced\n    trials: 2\n',
    );
    const error = errorOf(() =>
      readCampaignFile(join(project, 'out-link', 'c.yaml'), { within: project }),
    );
    expect(error.code).toBe('PATH_OUTSIDE_PROJECT');
    expect(error.message).toContain('the campaign file: FILE: ');
  });

  it('takes paths inside the project', () => {
    const { content } = readCampaignFile(
      campaign(
        'inside.yaml',
        'storage: sqlite:studies/c.db\npolicy: tcn:runs/tcn\nstudies:\n  - preset: ensemble_balanced\n    trials: 2\n',
      ),
      { within: project },
    );
    expect(content.policy).toBe(`tcn:${join(project, 'runs', 'tcn')}`);
  });
});

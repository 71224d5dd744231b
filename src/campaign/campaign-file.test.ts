import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
});

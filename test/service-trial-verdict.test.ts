import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../src/app/index.js';
import { Rng } from '../src/core/index.js';
import type { RunningService } from '../src/server/index.js';
import { openStorage } from '../src/storage/index.js';
import { DRL_ARTIFACTS, encodeOosReturns } from '../src/trading/index.js';
import { responseSchema, schemaProblems, type OpenApiDocument } from './support/openapi-check.js';
import { runCliInProcess } from './support/run-cli.js';
import { call, SERVICE_ENV, serviceProject, startTestService } from './support/service-project.js';

/*
 * The verdict the service gives with a trial's equity, on trials whose answer is known: a trading
 * study on the synthetic data, with trials stored as the DRL objective stores them (out-of-sample
 * returns, splits with their turnover) but whose returns were written here — one that loses half
 * a percent a bar and churns its book, one that gains as much and trades little. The responses
 * are checked against the OpenAPI document the service serves.
 */

let service: RunningService;
let doc: OpenApiDocument;
const STUDY = 'known';
/** Out-of-sample bars of the stored trials: two test ranges with a gap, as walk-forward's. */
const BARS = [
  ...Array.from({ length: 200 }, (_, i) => 600 + i),
  ...Array.from({ length: 200 }, (_, i) => 900 + i),
];

/** Per-bar returns `mean + 1% noise`, seeded, by bar. */
function returnsOf(mean: number, seed: number): Map<number, { sum: number; count: number }> {
  const rng = new Rng(seed);
  return new Map(BARS.map((bar) => [bar, { sum: mean + 0.01 * rng.normal(), count: 1 }]));
}

beforeAll(async () => {
  const dir = await serviceProject();
  const created = await runCliInProcess(
    ['study', 'create', STUDY, '--preset', 'ensemble_balanced', '--data', 'SYN0,SYN1:1h'],
    { cwd: dir, env: SERVICE_ENV },
  );
  expect(created.code, created.stderr).toBe(0);
  const { config } = openProject({ cwd: dir, env: { ...process.env, ...SERVICE_ENV } });
  const storage = await openStorage(config.settings.storage, {
    baseDir: config.projectRoot,
    artifactDir: config.settings.artifactDir,
  });
  try {
    const study = await storage.getStudy(STUDY);
    for (const [mean, turnover] of [
      [-0.005, 400],
      [0.005, 3],
    ] as const) {
      const trial = await storage.claimTrial(study.id, 'test');
      await storage.setTrialUserAttrs(trial.id, {
        splits: [
          { split: 0, test: [[600, 800]], turnover },
          { split: 1, test: [[900, 1100]], turnover },
        ],
      });
      await storage.putArtifact(
        trial.id,
        DRL_ARTIFACTS.oosReturns,
        encodeOosReturns(returnsOf(mean, trial.number + 1)),
      );
      await storage.finishTrial(trial.id, { state: 'complete', value: mean * 1000 });
    }
  } finally {
    await storage.close();
  }
  service = await startTestService(dir);
  doc = (await call(service.url, '/openapi.json')).body as OpenApiDocument;
}, 60_000);

afterAll(async () => {
  await service.close();
});

interface Finding {
  kind: string;
  severity: string;
  text: string;
  advice?: string;
}

/** Trial `number`'s equity response, checked against the document. */
async function equityOf(number: number): Promise<{ times: number[]; findings: Finding[] }> {
  const { status, body } = await call(service.url, `/api/studies/${STUDY}/trials/${number}/equity`);
  expect(status, JSON.stringify(body)).toBe(200);
  const route = '/api/studies/{name}/trials/{number}/equity';
  expect(schemaProblems(doc, responseSchema(doc, 'get', route, 200), body)).toEqual([]);
  return body as { times: number[]; findings: Finding[] };
}

describe("a trial's equity from the service carries its verdict", () => {
  it('tells a losing, churning trial it is behind buy-and-hold and trades noise, with advice', async () => {
    const equity = await equityOf(0);
    expect(equity.times).toHaveLength(BARS.length);
    expect(equity.findings.map((f) => f.kind)).toEqual(['behind-benchmark', 'extreme-turnover']);
    expect(equity.findings.map((f) => f.severity)).toEqual(['warning', 'warning']);
    expect(equity.findings[0]?.text).toMatch(/^Behind buy-and-hold: Sharpe -\d+\.\d\d against/);
    expect(equity.findings[1]?.text).toContain('traded 400× a year');
    expect(equity.findings[1]?.advice).toContain('--turnover-penalty');
  });

  it('tells a winning trial that trades little only that it is ahead', async () => {
    const equity = await equityOf(1);
    expect(equity.findings).toEqual([
      expect.objectContaining({ kind: 'ahead-of-benchmark', severity: 'info' }),
    ]);
  });
});

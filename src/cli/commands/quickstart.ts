import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planHere } from '../../app/index.js';
import type { Project } from '../../app/index.js';
import type { CommandContext } from '../command-spec.js';
import { plural } from '../format.js';
import { intOption } from '../option-values.js';
import { createOutput } from '../output.js';
import { printPlan } from '../print-plan.js';
import { suggestCommand } from '../suggest-command.js';
import { makeDirectory } from '../../core/index.js';

/** The quickstart's synthetic market: 4 assets of 1h bars with a planted momentum signal. */
const MARKET = { symbols: 4, bars: 6000, signal: 0.2, seed: 1 };
/** The trial shape every study of the quickstart shares: tiny, so the campaign takes a minute. */
const TINY = { netDim: 64, nEnvs: 8, targetStep: 512, batchSize: 256, episodeLength: 128 };

/**
 * The quickstart's campaign: the five presets on the synthetic market, a few tiny trials each.
 * The fine-tuning studies start once their source has finished, so which trials they narrow
 * around does not depend on timing; no pruner, since what a median pruner stops depends on
 * which trials happened to end first. Deterministic given the seed.
 */
function campaignFile(trials: number, steps: number): string {
  const params = `{ netDim: [32, ${TINY.netDim}], nEnvs: ${TINY.nEnvs}, targetStep: ${TINY.targetStep}, batchSize: ${TINY.batchSize}, breakStep: ${steps}, repeatTimes: [1, 2], episodeLength: ${TINY.episodeLength} }`;
  const ft = Math.max(1, Math.ceil(trials / 2));
  return `# written by tradelab quickstart
name: quickstart
data: QS0,QS1,QS2,QS3:1h
cv: cpcv:4:2
holdout: 20%
workers: auto
seed: ${MARKET.seed}
sampler: { type: random, seed: ${MARKET.seed} }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: ${trials}
    params: ${params}
  - preset: ensemble_aggressive
    trials: ${trials}
    params: ${params}
  - preset: ensemble_conservative
    trials: ${trials}
    params: ${params}
  - preset: ft_small
    from: ensemble_balanced
    after: ${trials}
    trials: ${ft}
    params: ${params}
  - preset: ft_large
    from: ensemble_aggressive
    after: ${trials}
    trials: ${ft}
    params: ${params}
`;
}

/**
 * `tradelab quickstart`: the main job on embedded defaults. Detect the GPU, pick a profile, plan
 * the workers; synthesize a 4-asset market; run a small campaign of the five presets on SQLite
 * with workers auto; print the campaign's report table. Everything lives in
 * .tradelab/quickstart/ (remade each time): the user's data store and studies are not touched.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const project = context.project();
  const trials = intOption(options, 'trials', 1) ?? 4;
  const steps = intOption(options, 'steps', 256) ?? 8192;
  out.line(
    'tradelab quickstart: detect the GPU, choose a profile, plan trial workers, then run a small campaign of the five presets.',
  );
  out.line();
  const detection = await project.detect();
  if (detection !== undefined) {
    for (const tool of detection.tools)
      out.line(`  ${tool.tool.padEnd(10)} ${tool.status.padEnd(10)} ${tool.detail}`);
    out.line();
  }
  const plan = await planHere(project, {
    netDim: TINY.netDim,
    layers: 2,
    batchSize: TINY.batchSize,
    nEnvs: TINY.nEnvs,
    targetStep: TINY.targetStep,
    dataset: { bars: MARKET.bars, assets: MARKET.symbols, features: 7 },
    timeframe: '1h',
  });
  out.line(`Profile: ${plan.choice.profile.name}: ${plan.choice.reason}`);
  out.line();
  printPlan(out, plan);
  out.line();

  const dir = join(project.config.projectRoot, '.tradelab', 'quickstart');
  rmSync(dir, { recursive: true, force: true });
  makeDirectory(dir);
  const quick = quickstartProject(project, dir);
  const inQuickstart = (
    positionals: string[],
    commandOptions: CommandContext['options'],
    output = out,
  ): CommandContext => ({
    ...context,
    positionals,
    options: commandOptions,
    out: output,
    project: () => quick,
  });
  const silent = createOutput(
    { stdout: { write: () => true }, stderr: { write: () => true } },
    false,
  );
  await (
    await import('./data-synth.js')
  ).run(
    inQuickstart(
      [],
      {
        symbols: 'QS0,QS1,QS2,QS3',
        bars: String(MARKET.bars),
        signal: String(MARKET.signal),
        seed: String(MARKET.seed),
      },
      silent,
    ),
  );
  out.line(
    `Market: ${MARKET.symbols} synthetic assets, ${MARKET.bars.toLocaleString('en-US')} 1h bars, a planted momentum signal (${MARKET.signal}), in ${join(dir, 'data')}.`,
  );
  const file = join(dir, 'campaign.yaml');
  writeFileSync(file, campaignFile(trials, steps));
  out.line(
    `Campaign: ${file} (${plural(trials, 'trial')} a study, ${steps.toLocaleString('en-US')} env steps a split).`,
  );
  out.line();
  const workers = typeof options.workers === 'string' ? options.workers : 'auto';
  await (
    await import('./campaign-run.js')
  ).run(inQuickstart([file], { workers, 'progress-interval': options['progress-interval'] }));
  out.line();
  const report = await import('./campaign-report.js');
  await report.run(inQuickstart(['quickstart'], {}));
  await report.run(
    inQuickstart(['quickstart'], {
      format: 'html',
      out: join(dir, 'report.html'),
      'no-holdout': false,
    }),
  );
  out.line();
  out.line(
    `Next: \`tradelab campaign run FILE\` with your own data (\`tradelab data import --help\`) and presets; \`${suggestCommand(inQuickstart([], {}), ['campaign', 'project', 'quickstart', '--to', 'h100'])}\` to see what another box would do.`,
  );
}

/**
 * The project with the quickstart's own data store, storage and artifacts, as if given as flags:
 * the commands it suggests then carry them, and work as printed.
 */
function quickstartProject(project: Project, dir: string): Project {
  const source = { kind: 'flag', origin: 'tradelab quickstart' } as const;
  return {
    ...project,
    config: {
      ...project.config,
      settings: {
        ...project.config.settings,
        dataDir: join(dir, 'data'),
        storage: `sqlite:${join(dir, 'quickstart.db')}`,
        artifactDir: join(dir, 'artifacts'),
      },
      sources: {
        ...project.config.sources,
        dataDir: source,
        storage: source,
        artifactDir: source,
      },
    },
  };
}

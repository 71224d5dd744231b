import { planHere } from '../../project/index.js';
import type { CommandContext } from '../command-spec.js';
import { printPlan } from '../print-plan.js';

/**
 * `tradelab quickstart`: the main job on embedded defaults. For now: detect the GPU, pick a profile,
 * print the worker plan for the default PPO model. Later issues grow it into a small campaign.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const project = context.project();
  out.line(
    'tradelab quickstart: detect the GPU, choose a profile, plan trial workers for a default PPO model.',
  );
  out.line();
  const detection = await project.detect();
  if (detection !== undefined) {
    for (const tool of detection.tools)
      out.line(`  ${tool.tool.padEnd(10)} ${tool.status.padEnd(10)} ${tool.detail}`);
    out.line();
  }
  const result = await planHere(project);
  out.line(`Profile: ${result.choice.profile.name}: ${result.choice.reason}`);
  out.line();
  printPlan(out, result);
  out.line();
  out.line(
    'Next: `tradelab profiles plan --help` to size your own model; `tradelab profiles list` for every GPU.',
  );
}

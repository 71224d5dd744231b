import { planHere } from '../../project/index.js';
import type { CommandContext } from '../command-spec.js';
import { planRequestFromOptions } from '../plan-request.js';
import { printPlan } from '../print-plan.js';

/** `tradelab profiles plan`: the memory arithmetic per worker and how many workers fit. */
export async function run(context: CommandContext): Promise<void> {
  const request = planRequestFromOptions(context.options);
  printPlan(context.out, await planHere(context.project(), request));
}

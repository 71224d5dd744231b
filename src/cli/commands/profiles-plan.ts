import { TradelabError } from '../../core/index.js';
import { formatBytes } from '../../profiles/index.js';
import { planHere } from '../../app/index.js';
import type { CommandContext } from '../command-spec.js';
import { planRequestFromOptions } from '../plan-request.js';
import { printPlan } from '../print-plan.js';

/**
 * `tradelab profiles plan`: the memory arithmetic per worker and how many workers fit. Exits 1 when
 * not even one worker (or not the requested count) fits, after printing why.
 */
export async function run(context: CommandContext): Promise<void> {
  const request = planRequestFromOptions(context.options);
  const result = await planHere(context.project(), request);
  printPlan(context.out, result);
  const { plan } = result;
  if (plan.fits) return;
  const wanted = plan.limits.find((l) => l.by === 'requested')?.workers ?? 1;
  throw new TradelabError(
    'PLAN_DOES_NOT_FIT',
    `${wanted} worker${wanted === 1 ? '' : 's'} of ${formatBytes(plan.perWorkerBytes)} do${wanted === 1 ? 'es' : ''} not fit on ${plan.profile}: ${plan.workers} fit${plan.workers === 1 ? 's' : ''} (limited by ${plan.limitedBy})`,
    {
      hint:
        plan.workers === 0
          ? shrinkHint(plan.workload)
          : `run with --workers ${plan.workers}, or ${shrinkHint(plan.workload)}`,
      details: {
        workers: plan.workers,
        limitedBy: plan.limitedBy,
        perWorkerBytes: plan.perWorkerBytes,
      },
    },
  );
}

/** What makes one worker smaller, in the workload's own flags. */
function shrinkHint(workload: string): string {
  if (workload === 'tcn')
    return 'reduce --batch-size (chunks), --chunk-len or --hidden, keep gradient checkpointing on, or plan for a larger card with --profile';
  if (workload === 'forecast')
    return 'reduce --batch-size, or plan for a larger card with --profile';
  return 'reduce --batch-size or --net-dim, or plan for a larger card with --profile';
}

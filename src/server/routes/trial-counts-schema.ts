import { z } from '@hono/zod-openapi';

/** A study's trials counted (tune/'s TrialCounts): the same object wherever the API gives one. */
export const TrialCountsSchema = z
  .object({
    total: z.number().int(),
    done: z.number().int(),
    complete: z.number().int(),
    pruned: z.number().int(),
    failed: z.number().int(),
    retried: z.number().int(),
    running: z.number().int(),
    waiting: z.number().int(),
  })
  .openapi({
    description:
      '`done` = complete + pruned + failed; a failure that was enqueued again is `retried`, not `failed` (its retry counts once it ends)',
  });

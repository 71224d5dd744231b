import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { planHere } from '../../app/index.js';
import { WORKLOADS, type Workload } from '../../profiles/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';

const ProfileSchema = z
  .looseObject({
    name: z.string(),
    displayName: z.string(),
    vendor: z.string(),
    vramGb: z.number(),
    origin: z.string(),
    aliases: z.array(z.string()),
    hourlyUsd: z.number().nullable().optional(),
  })
  .openapi('Profile', { description: 'every field of `tradelab profiles show`' });

const TermSchema = z.object({ label: z.string(), bytes: z.number(), formula: z.string() });

const PlanSchema = z
  .object({
    profile: z.string(),
    source: z.string(),
    workload: z.string(),
    backend: z.string(),
    workers: z.number().int(),
    limitedBy: z.string(),
    limits: z.array(z.object({ by: z.string(), workers: z.number(), detail: z.string() })),
    perWorker: z.array(TermSchema),
    perWorkerBytes: z.number(),
    shared: z.array(TermSchema).openapi({
      description: 'held once per worker process by its resident trials (empty otherwise)',
    }),
    sharedBytes: z.number(),
    trialsPerProcess: z
      .number()
      .int()
      .openapi({ description: 'trials one worker process runs at once (resident on the card)' }),
    usable: TermSchema,
    memoryKind: z.string(),
    batchSize: z.number(),
    nEnvs: z.number(),
    paramCount: z.number().nullable(),
    fits: z.boolean(),
  })
  .openapi('Plan');

const list = createRoute({
  method: 'get',
  path: '/api/profiles',
  summary: 'built-in and custom GPU profiles',
  responses: {
    200: {
      content: { 'application/json': { schema: z.array(ProfileSchema) } },
      description: 'the profiles, built-ins first',
    },
  },
});

const plan = createRoute({
  method: 'get',
  path: '/api/plan',
  summary: "the planner's worker plan on this machine's profile, with the memory arithmetic",
  request: {
    query: z.object({
      workload: z
        .enum(WORKLOADS as [Workload, ...Workload[]])
        .default('drl')
        .openapi({ description: 'drl, forecast or tcn' }),
    }),
  },
  responses: {
    200: { content: { 'application/json': { schema: PlanSchema } }, description: 'the plan' },
    400: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'bad query' },
  },
});

/** `/api/profiles` and `/api/plan`. */
export function profileRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  app.openapi(list, (c) =>
    c.json(
      ctx.project.profiles
        .all()
        .map((p) => JSON.parse(JSON.stringify(p)) as z.infer<typeof ProfileSchema>),
      200,
    ),
  );
  app.openapi(plan, async (c) => {
    const { workload } = c.req.valid('query');
    const here = workload === 'drl' ? ctx.plan : await planHere(ctx.project, { workload });
    const p = here.plan;
    return c.json(
      {
        profile: p.profile,
        source: here.choice.source,
        workload: p.workload,
        backend: p.backend,
        workers: p.workers,
        limitedBy: p.limitedBy,
        limits: p.limits,
        perWorker: p.perWorker,
        perWorkerBytes: p.perWorkerBytes,
        shared: p.shared,
        sharedBytes: p.sharedBytes,
        trialsPerProcess: p.trialsPerProcess,
        usable: p.usable,
        memoryKind: p.memoryKind,
        batchSize: p.batchSize,
        nEnvs: p.nEnvs,
        paramCount: p.paramCount ?? null,
        fits: p.fits,
      },
      200,
    );
  });
  return app;
}

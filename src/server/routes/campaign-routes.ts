import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { campaignReport } from '../../app/index.js';
import { membershipOf, renderCampaignHtml } from '../../campaign/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';
import { TrialCountsSchema } from './trial-counts-schema.js';

const CampaignSummarySchema = z
  .object({ name: z.string(), studies: z.array(z.string()) })
  .openapi('CampaignSummary');

/** A study's (or the campaign's) trials in numbers: tune/'s StudySummary as JSON. */
const SummarySchema = z.looseObject({
  ...TrialCountsSchema.shape,
  best: z.looseObject({ number: z.number().int(), value: z.number().nullable() }).optional(),
  meanDurationMs: z.number().nullable(),
  perHour: z.number().nullable(),
});

const ReportSchema = z
  .looseObject({
    name: z.string(),
    storage: z.string(),
    generatedAt: z.number(),
    studies: z.array(
      z.looseObject({
        key: z.string(),
        study: z.string(),
        preset: z.string(),
        direction: z.enum(['minimize', 'maximize']),
        target: z.number().int(),
        state: z.enum(['pending', 'running', 'done']),
        counts: SummarySchema,
        splits: z.number().int(),
        trials: z.array(
          z.looseObject({ number: z.number(), state: z.string(), value: z.number().nullable() }),
        ),
        holdout: z
          .looseObject({
            trial: z.number().int(),
            sharpe: z.number(),
            benchmarkSharpe: z.number(),
            totalReturn: z.number(),
            benchmarkReturn: z.number(),
          })
          .optional()
          .openapi({ description: 'with `?holdout=true`: the best trial on the holdout' }),
      }),
    ),
    total: z.looseObject({ target: z.number().int(), counts: SummarySchema }),
    phases: z.object({
      rollout: z.number(),
      update: z.number(),
      other: z.number(),
      trials: z.number().int(),
    }),
    diagnosis: z.array(z.string()),
  })
  .openapi('CampaignReport', {
    description: 'what `tradelab campaign report NAME --format json --no-holdout` prints',
  });

const NameParam = z.object({
  name: z
    .string()
    .max(200)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'quickstart' }),
});
const notFound = {
  404: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'no such' },
};

const list = createRoute({
  method: 'get',
  path: '/api/campaigns',
  summary: 'the campaigns in the storage, with their studies',
  responses: {
    200: {
      content: { 'application/json': { schema: z.array(CampaignSummarySchema) } },
      description: 'campaigns by name',
    },
  },
});
/** `?holdout=true`: each study's best trial evaluated on its holdout (as `campaign report`). */
const HoldoutQuery = z.object({
  holdout: z.enum(['true', 'false']).optional().openapi({
    description:
      "`true`: each study's best trial's model evaluated on the holdout beside buy-and-hold, as `tradelab campaign report` does (slower: it loads the data and the models)",
  }),
});

const report = createRoute({
  method: 'get',
  path: '/api/campaigns/{name}',
  summary: "a campaign's report: the seed 000 table's rows, counts, phases, diagnosis",
  request: { params: NameParam, query: HoldoutQuery },
  responses: {
    200: { content: { 'application/json': { schema: ReportSchema } }, description: 'the report' },
    ...notFound,
  },
});
const reportHtml = createRoute({
  method: 'get',
  path: '/api/campaigns/{name}/report.html',
  summary: "a campaign's HTML report (charts included; `?holdout=true` adds the holdout)",
  request: { params: NameParam, query: HoldoutQuery },
  responses: {
    200: { content: { 'text/html': { schema: z.string() } }, description: 'the page' },
    ...notFound,
  },
});

/** `/api/campaigns/…`. */
export function campaignRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  app.openapi(list, async (c) => {
    const byName = new Map<string, string[]>();
    for (const study of await ctx.storage.listStudies()) {
      const member = membershipOf(study);
      if (member === undefined) continue;
      byName.set(member.name, [...(byName.get(member.name) ?? []), study.name]);
    }
    return c.json(
      [...byName]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, studies]) => ({ name, studies })),
      200,
    );
  });
  app.openapi(report, async (c) => {
    const built = await campaignReport(ctx.project, ctx.storage, c.req.valid('param').name, {
      holdout: c.req.valid('query').holdout === 'true',
    });
    return c.json(JSON.parse(JSON.stringify(built)) as z.infer<typeof ReportSchema>, 200);
  });
  app.openapi(reportHtml, async (c) => {
    const built = await campaignReport(ctx.project, ctx.storage, c.req.valid('param').name, {
      holdout: c.req.valid('query').holdout === 'true',
    });
    return c.html(renderCampaignHtml(built), 200);
  });
  return app;
}

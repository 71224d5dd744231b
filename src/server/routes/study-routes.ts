import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { membershipOf, paramImportance } from '../../campaign/index.js';
import { studyFigures, summarizeStudy } from '../../tune/index.js';
import { TradelabError } from '../../core/index.js';
import { FINDING_KINDS } from '../../eval/index.js';
import type { StudyRecord, TrialRecord, TrialState } from '../../storage/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';
import { TrialCountsSchema } from './trial-counts-schema.js';
import { MarketCache, trialEquity } from '../../trading/index.js';

const TRIAL_STATES = ['waiting', 'running', 'complete', 'pruned', 'fail'] as const;

const param = z.union([z.number(), z.string(), z.boolean(), z.null()]);

const DistributionSchema = z
  .union([
    z.object({
      type: z.literal('float'),
      low: z.number(),
      high: z.number(),
      log: z.boolean(),
      step: z.number().nullable(),
    }),
    z.object({
      type: z.literal('int'),
      low: z.number(),
      high: z.number(),
      log: z.boolean(),
      step: z.number(),
    }),
    z.object({ type: z.literal('categorical'), choices: z.array(param) }),
  ])
  .openapi('Distribution');

const TrialSchema = z
  .object({
    number: z.number().int(),
    state: z.enum(TRIAL_STATES),
    value: z.number().nullable(),
    params: z.record(z.string(), param),
    distributions: z
      .record(z.string(), DistributionSchema)
      .openapi({ description: "each parameter's search space (a log range draws on a log axis)" }),
    intermediate: z
      .record(z.string(), z.number())
      .openapi({ description: 'reported values by step (the split index of a trading study)' }),
    userAttrs: z.record(z.string(), z.unknown()),
    createdAt: z.number(),
    startedAt: z.number().nullable(),
    finishedAt: z.number().nullable(),
    durationMs: z.number().nullable(),
    workerId: z.string().nullable(),
    retryOf: z.number().nullable(),
    failReason: z.string().nullable(),
  })
  .openapi('Trial');

const StudySchema = z
  .object({
    name: z.string(),
    direction: z.enum(['minimize', 'maximize']),
    createdAt: z.number(),
    campaign: z.string().nullable(),
    kind: z.string().openapi({ description: '`drl` for a trading study, else `custom`' }),
    counts: TrialCountsSchema,
    best: z.object({ number: z.number().int(), value: z.number().nullable() }).nullable(),
    perHour: z
      .number()
      .nullable()
      .openapi({ description: 'trials done per hour from the first start to the last end' }),
    meanDurationMs: z.number().nullable(),
    completionRate: z.number().nullable(),
    pruneRate: z.number().nullable(),
    systemAttrs: z.record(z.string(), z.unknown()),
  })
  .openapi('Study');

const ImportanceSchema = z
  .object({
    trials: z.number().int(),
    params: z.array(
      z.object({
        param: z.string(),
        share: z.number(),
        errorIncrease: z.number(),
        encoding: z.string(),
      }),
    ),
    fixed: z.array(z.string()),
    reason: z.string().optional(),
  })
  .openapi('ParamImportance');

const FindingSchema = z
  .object({
    kind: z.enum(FINDING_KINDS),
    severity: z
      .enum(['warning', 'info'])
      .openapi({ description: '`warning`: something to fix; `info`: how the range compares' }),
    text: z.string(),
    advice: z.string().optional().openapi({ description: "what to try, in the CLI's own flags" }),
  })
  .openapi('Finding');

const EquitySchema = z
  .object({
    study: z.string(),
    trial: z.number().int(),
    times: z.array(z.number()),
    strategy: z.array(z.number()),
    benchmark: z.array(z.number()),
    findings: z.array(FindingSchema).openapi({
      description:
        'the verdict on the two curves: buy-and-hold beaten or not (a block bootstrap of the Sharpe difference), extreme turnover',
    }),
  })
  .openapi('TrialEquity');

const errors = {
  400: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'bad request' },
  404: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'not found' },
};

const StudyParam = z.object({
  name: z
    .string()
    .max(200)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'demo' }),
});
const TrialParam = StudyParam.extend({
  number: z.coerce
    .number()
    .int()
    .min(0)
    .openapi({ param: { name: 'number', in: 'path' }, example: 3 }),
});

const list = createRoute({
  method: 'get',
  path: '/api/studies',
  summary: 'every study: counts, best trial, campaign',
  responses: {
    200: {
      content: { 'application/json': { schema: z.array(StudySchema) } },
      description: 'studies',
    },
  },
});
const show = createRoute({
  method: 'get',
  path: '/api/studies/{name}',
  summary: 'one study',
  request: { params: StudyParam },
  responses: {
    200: { content: { 'application/json': { schema: StudySchema } }, description: 'the study' },
    ...errors,
  },
});
const trials = createRoute({
  method: 'get',
  path: '/api/studies/{name}/trials',
  summary: "a study's trials, sorted and filtered",
  request: {
    params: StudyParam,
    query: z.object({
      state: z
        .string()
        .optional()
        .openapi({ description: 'comma-separated states, e.g. complete,pruned' }),
      sort: z.enum(['number', 'value', 'duration']).default('number'),
      order: z.enum(['asc', 'desc']).default('asc'),
      offset: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
    }),
  },
  responses: {
    200: {
      content: { 'application/json': { schema: z.array(TrialSchema) } },
      description: 'trials',
    },
    ...errors,
  },
});
const trial = createRoute({
  method: 'get',
  path: '/api/studies/{name}/trials/{number}',
  summary: 'one trial, with its intermediate values',
  request: { params: TrialParam },
  responses: {
    200: { content: { 'application/json': { schema: TrialSchema } }, description: 'the trial' },
    ...errors,
  },
});
const importance = createRoute({
  method: 'get',
  path: '/api/studies/{name}/importance',
  summary: "parameter importance (a random forest's permutation importance on complete trials)",
  request: { params: StudyParam },
  responses: {
    200: { content: { 'application/json': { schema: ImportanceSchema } }, description: 'shares' },
    ...errors,
  },
});
const equity = createRoute({
  method: 'get',
  path: '/api/studies/{name}/trials/{number}/equity',
  summary:
    "a trading trial's out-of-sample equity against buy-and-hold on the same bars, with the verdict",
  request: { params: TrialParam },
  responses: {
    200: { content: { 'application/json': { schema: EquitySchema } }, description: 'curves' },
    ...errors,
  },
});

function trialJson(t: TrialRecord): z.infer<typeof TrialSchema> {
  return {
    number: t.number,
    state: t.state,
    value: t.value,
    params: t.params,
    distributions: t.distributions,
    intermediate: Object.fromEntries(
      Object.entries(t.intermediate).map(([step, value]) => [step, value]),
    ),
    userAttrs: t.userAttrs,
    createdAt: t.createdAt,
    startedAt: t.startedAt,
    finishedAt: t.finishedAt,
    durationMs: t.startedAt === null ? null : (t.finishedAt ?? Date.now()) - t.startedAt,
    workerId: t.workerId,
    retryOf: t.retryOf,
    failReason: t.failReason,
  };
}

/** A study with its counts, as the API shows it. */
export function studyJson(
  study: StudyRecord,
  all: readonly TrialRecord[],
): z.infer<typeof StudySchema> {
  return {
    name: study.name,
    direction: study.direction,
    createdAt: study.createdAt,
    campaign: membershipOf(study)?.name ?? null,
    kind: study.systemAttrs.drl === undefined ? 'custom' : 'drl',
    ...studyFigures(summarizeStudy(study.direction, all)),
    systemAttrs: JSON.parse(JSON.stringify(study.systemAttrs)) as Record<string, unknown>,
  };
}

function trialNotFound(study: string, number: number): TradelabError {
  return new TradelabError('TRIAL_NOT_FOUND', `study "${study}" has no trial ${number}`, {
    hint: `see its trials: GET /api/studies/${encodeURIComponent(study)}/trials`,
  });
}

/** `/api/studies/…`. */
export function studyRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const markets = new MarketCache(ctx.project.config.settings.dataDir);
  const trialOf = async (name: string, number: number): Promise<[StudyRecord, TrialRecord]> => {
    const study = await ctx.storage.getStudy(name);
    const found = (await ctx.storage.getTrials(study.id)).find((t) => t.number === number);
    if (found === undefined) throw trialNotFound(name, number);
    return [study, found];
  };
  app.openapi(list, async (c) => {
    const studies = await ctx.storage.listStudies();
    const out = [];
    for (const study of studies) out.push(studyJson(study, await ctx.storage.getTrials(study.id)));
    return c.json(out, 200);
  });
  app.openapi(show, async (c) => {
    const study = await ctx.storage.getStudy(c.req.valid('param').name);
    return c.json(studyJson(study, await ctx.storage.getTrials(study.id)), 200);
  });
  app.openapi(trials, async (c) => {
    const { name } = c.req.valid('param');
    const query = c.req.valid('query');
    const study = await ctx.storage.getStudy(name);
    let states: TrialState[] | undefined;
    if (query.state !== undefined && query.state !== '') {
      states = query.state.split(',').map((s) => s.trim()) as TrialState[];
      const bad = states.filter((s) => !(TRIAL_STATES as readonly string[]).includes(s));
      if (bad.length > 0) {
        throw new TradelabError('INVALID_ARGUMENT', `state: unknown ${bad.join(', ')}`, {
          hint: `use ${TRIAL_STATES.join(', ')}`,
        });
      }
    }
    const rows = (await ctx.storage.getTrials(study.id, states)).map(trialJson);
    const key = (t: z.infer<typeof TrialSchema>): number =>
      query.sort === 'value'
        ? (t.value ?? Number.NEGATIVE_INFINITY)
        : query.sort === 'duration'
          ? (t.durationMs ?? Number.NEGATIVE_INFINITY)
          : t.number;
    const sign = query.order === 'asc' ? 1 : -1;
    rows.sort((a, b) => sign * (key(a) - key(b)) || a.number - b.number);
    return c.json(rows.slice(query.offset, query.offset + query.limit), 200);
  });
  app.openapi(trial, async (c) => {
    const { name, number } = c.req.valid('param');
    const [, found] = await trialOf(name, number);
    return c.json(trialJson(found), 200);
  });
  app.openapi(importance, async (c) => {
    const study = await ctx.storage.getStudy(c.req.valid('param').name);
    const result = paramImportance(await ctx.storage.getTrials(study.id, ['complete']));
    return c.json(
      {
        trials: result.trials,
        params: result.params.map((p) => ({ ...p })),
        fixed: [...result.fixed],
        ...(result.reason === undefined ? {} : { reason: result.reason }),
      },
      200,
    );
  });
  app.openapi(equity, async (c) => {
    const { name, number } = c.req.valid('param');
    const [study, found] = await trialOf(name, number);
    return c.json(await trialEquity(ctx.storage, markets, study, found), 200);
  });
  return app;
}

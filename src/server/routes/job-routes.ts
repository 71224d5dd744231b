import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { isTradelabError, TradelabError } from '../../core/index.js';
import { JOB_STATES, type JobRecord, type JobState } from '../../jobs/index.js';
import { ErrorBodySchema } from '../api-error.js';
import { jobArgv, jobRequestSchema } from '../job-commands.js';
import { plannedJobWorkers } from '../job-workers.js';
import type { ServiceContext } from '../service-context.js';

const JobSchema = z
  .object({
    id: z.number().int(),
    request: z.object({
      command: z.string(),
      positionals: z.array(z.string()),
      options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    }),
    argv: z.array(z.string()).openapi({ description: 'what runs, after `tradelab`' }),
    slots: z.number().int(),
    state: z.enum(JOB_STATES as [JobState, ...JobState[]]),
    createdAt: z.number(),
    startedAt: z.number().nullable(),
    finishedAt: z.number().nullable(),
    heartbeatAt: z.number().nullable(),
    runner: z.string().nullable(),
    pid: z.number().nullable(),
    progress: z
      .object({ percent: z.number().nullable(), text: z.string(), at: z.number() })
      .nullable(),
    cancelRequested: z.boolean(),
    exitCode: z.number().nullable(),
    error: z.string().nullable(),
    result: z
      .array(z.unknown())
      .openapi({ description: 'the JSON objects the command printed (`--json`)' }),
    retryOf: z.number().nullable(),
  })
  .openapi('Job');

const LogLineSchema = z
  .object({
    seq: z.number().int(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
    at: z.number(),
  })
  .openapi('JobLogLine');

const IdParam = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, example: 1 }),
});

const errors = {
  400: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'bad request' },
  404: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'no such job' },
  409: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'wrong state' },
};

/** The request and responses of a route about one job. */
const one = (summary: string) => ({
  summary,
  request: { params: IdParam },
  responses: {
    200: { content: { 'application/json': { schema: JobSchema } }, description: 'the job' },
    ...errors,
  },
});

/** `/api/jobs/…`: submit, list, follow, cancel and retry jobs. */
export function jobRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const RequestSchema = jobRequestSchema(ctx.commands).openapi('JobRequest');
  const job = (j: JobRecord): z.infer<typeof JobSchema> => j;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/jobs',
      summary: 'jobs, newest first',
      request: {
        query: z.object({
          state: z.string().optional().openapi({ description: 'comma-separated job states' }),
          command: z.string().optional().openapi({ example: 'train ppo' }),
          prefix: z
            .string()
            .optional()
            .openapi({ description: 'commands starting with this, e.g. `bench`' }),
          before: z.coerce.number().int().optional().openapi({ description: 'ids below this' }),
          limit: z.coerce.number().int().min(1).max(1000).default(100),
        }),
      },
      responses: {
        200: {
          content: { 'application/json': { schema: z.array(JobSchema) } },
          description: 'jobs',
        },
        400: errors[400],
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const states = q.state === undefined || q.state === '' ? undefined : q.state.split(',');
      const bad = (states ?? []).filter((s) => !(JOB_STATES as readonly string[]).includes(s));
      if (bad.length > 0) {
        throw new TradelabError('INVALID_ARGUMENT', `state: unknown ${bad.join(', ')}`, {
          hint: `use ${JOB_STATES.join(', ')}`,
        });
      }
      let jobs = await ctx.queue.list({
        ...(states === undefined ? {} : { states: states as JobState[] }),
        ...(q.command === undefined ? {} : { command: q.command }),
        ...(q.before === undefined ? {} : { beforeId: q.before }),
        limit: q.prefix === undefined ? q.limit : 1000,
      });
      if (q.prefix !== undefined) {
        const prefix = q.prefix;
        jobs = jobs.filter((j) => j.request.command.startsWith(prefix)).slice(0, q.limit);
      }
      return c.json(jobs.map(job), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/jobs',
      summary: 'queue a job: one of the commands /api/info lists, with its options',
      request: {
        body: { content: { 'application/json': { schema: RequestSchema } }, required: true },
      },
      responses: {
        201: { content: { 'application/json': { schema: JobSchema } }, description: 'queued' },
        400: errors[400],
        403: {
          content: { 'application/json': { schema: ErrorBodySchema } },
          description: 'a path outside the project',
        },
      },
    }),
    async (c) => {
      const request = c.req.valid('json');
      // Checked first (paths, positionals, options), then sized by what `--workers auto` means.
      const checked = jobArgv(ctx.commands, request, ctx.root, ctx.poolSlots);
      // A file or study the job cannot use is the job's to refuse when it runs (the file may
      // change before then, and its process quotes nothing of it): sizing falls back to the pool.
      const planned = await plannedJobWorkers(ctx, request).catch((error: unknown) => {
        if (isTradelabError(error)) return undefined;
        throw error;
      });
      const { argv, slots } =
        planned === undefined
          ? checked
          : jobArgv(ctx.commands, request, ctx.root, ctx.poolSlots, planned);
      const queued = await ctx.queue.submit({ request, argv, slots });
      ctx.events.publish({ event: 'job', data: queued });
      ctx.runner.wake();
      return c.json(job(queued), 201);
    },
  );

  app.openapi(
    createRoute({ method: 'get', path: '/api/jobs/{id}', ...one('one job') }),
    async (c) => c.json(job(await ctx.queue.get(c.req.valid('param').id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/jobs/{id}/log',
      summary: "a job's log lines after `after` (follow it by passing the last seq you saw)",
      request: {
        params: IdParam,
        query: z.object({
          after: z.coerce.number().int().min(0).default(0),
          limit: z.coerce.number().int().min(1).max(5000).default(1000),
        }),
      },
      responses: {
        200: {
          content: { 'application/json': { schema: z.array(LogLineSchema) } },
          description: 'lines',
        },
        ...errors,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { after, limit } = c.req.valid('query');
      return c.json(await ctx.queue.readLog(id, after, limit), 200);
    },
  );

  app.openapi(
    createRoute({ method: 'post', path: '/api/jobs/{id}/cancel', ...one('cancel a job') }),
    async (c) => {
      const cancelled = await ctx.queue.cancel(c.req.valid('param').id);
      ctx.events.publish({ event: 'job', data: cancelled });
      ctx.runner.wake();
      return c.json(job(cancelled), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/jobs/{id}/retry',
      ...one('queue an ended job again (a new job)'),
    }),
    async (c) => {
      const retried = await ctx.queue.retry(c.req.valid('param').id);
      ctx.events.publish({ event: 'job', data: retried });
      ctx.runner.wake();
      return c.json(job(retried), 200);
    },
  );
  return app;
}

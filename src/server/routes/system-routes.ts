import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { commandName } from '../job-commands.js';
import type { ServiceContext } from '../service-context.js';

const HealthSchema = z.object({ ok: z.literal(true), version: z.string() }).openapi('Health');

const InfoSchema = z
  .object({
    version: z.string(),
    root: z.string().openapi({ description: 'the project directory' }),
    storage: z.string().openapi({ description: 'the study storage URL (its job queue too)' }),
    profile: z.object({
      name: z.string(),
      displayName: z.string(),
      vendor: z.string(),
      vramGb: z.number(),
      source: z.string().openapi({ description: 'flag, env, file, detected or default' }),
      origin: z.string(),
    }),
    pool: z.object({
      slots: z.number().int(),
      busy: z.number().int(),
      workload: z.string(),
      limitedBy: z.string(),
    }),
    commands: z.array(
      z.object({
        command: z.string(),
        summary: z.string(),
        positionals: z.array(
          z.object({ name: z.string(), description: z.string(), required: z.boolean() }),
        ),
        options: z.array(
          z.object({
            name: z.string(),
            type: z.enum(['string', 'boolean']),
            value: z.string().optional(),
            description: z.string(),
          }),
        ),
      }),
    ),
  })
  .openapi('Info');

const health = createRoute({
  method: 'get',
  path: '/api/health',
  summary: 'liveness: answers without a token',
  responses: {
    200: { content: { 'application/json': { schema: HealthSchema } }, description: 'alive' },
  },
});

const info = createRoute({
  method: 'get',
  path: '/api/info',
  summary: 'the service: version, project, profile, job pool and the commands jobs may run',
  responses: {
    200: { content: { 'application/json': { schema: InfoSchema } }, description: 'the service' },
  },
});

/** `/api/health` and `/api/info`. */
export function systemRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  app.openapi(health, (c) => c.json({ ok: true as const, version: ctx.version }, 200));
  app.openapi(info, (c) => {
    const { choice, plan } = ctx.plan;
    return c.json(
      {
        version: ctx.version,
        root: ctx.root,
        storage: ctx.storage.url,
        profile: {
          name: choice.profile.name,
          displayName: choice.profile.displayName,
          vendor: choice.profile.vendor,
          vramGb: choice.profile.vramGb,
          source: choice.source,
          origin: choice.origin,
        },
        pool: {
          slots: ctx.poolSlots,
          busy: ctx.runner.busySlots,
          workload: plan.workload,
          limitedBy: plan.limitedBy,
        },
        commands: ctx.commands.map((command) => ({
          command: commandName(command),
          summary: command.summary,
          positionals: command.positionals.map(({ name, description, required }) => ({
            name,
            description,
            required,
          })),
          options: command.options.map(({ name, type, value, description }) => ({
            name,
            type,
            ...(value === undefined ? {} : { value }),
            description,
          })),
        })),
      },
      200,
    );
  });
  return app;
}

import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { OpenAPIHono, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import {
  openProjectStorage,
  planHere,
  tradelabVersion,
  type PlanHere,
  type Project,
} from '../app/index.js';
import { TradelabError } from '../core/index.js';
import { JobRunner, openJobQueue, type JobRecord } from '../jobs/index.js';
import { clientError, errorResponse } from './api-error.js';
import { dashboardRoutes } from './dashboard-assets.js';
import type { JobCommand } from './job-commands.js';
import { LiveEvents } from './live-events.js';
import { campaignRoutes } from './routes/campaign-routes.js';
import { datasetRoutes } from './routes/dataset-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { profileRoutes } from './routes/profile-routes.js';
import { runRoutes } from './routes/run-routes.js';
import { studyRoutes } from './routes/study-routes.js';
import { systemRoutes } from './routes/system-routes.js';
import { isLoopback, originChecks, requireToken, securityHeaders } from './security.js';
import { loadServerToken, type TokenCheck } from './server-token.js';
import type { ServiceContext } from './service-context.js';

/** The largest request body the service reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Options of {@link startService}. */
export interface ServiceOptions {
  project: Project;
  /** Default 127.0.0.1. Anything but a loopback address requires the token. */
  host?: string;
  /** Default 8321; 0 picks a free port. */
  port?: number;
  /** The commands jobs may run (the CLI's list). */
  commands: readonly JobCommand[];
  /** How a job's process starts: the program and its first arguments (node and tradelab's bin). */
  jobCommand: readonly string[];
  /** The jobs' environment: the service's resolved settings, so jobs use what it uses. */
  jobEnv?: NodeJS.ProcessEnv;
  /** Worker slots of the job pool. Default: the planner's trial workers for this profile. */
  slots?: number;
  /** Replace the stored token with a new one. */
  newToken?: boolean;
}

/** A running service. */
export interface RunningService {
  /** `http://HOST:PORT`. */
  url: string;
  host: string;
  port: number;
  plan: PlanHere;
  slots: number;
  /** The study storage and job queue's URL, its password masked (`postgres://u:***@…`). */
  storage: string;
  /** The token, when this start made one (it is shown once); undefined otherwise. */
  newToken: string | undefined;
  /** Where the token's hash is kept; undefined on a loopback bind (no token). */
  tokenFile: string | undefined;
  /** Jobs found running when the service started, whose service had died: now interrupted. */
  interrupted: JobRecord[];
  /** Stops taking requests and jobs; running jobs end as interrupted. */
  close(): Promise<void>;
}

/** The HTTP application over a service's context: API, OpenAPI document, events, dashboard. */
export function createServiceApp(
  ctx: ServiceContext,
  token: TokenCheck | undefined,
  loopback: boolean,
): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const issues = result.error.issues.map((issue) => ({
        path: [result.target, ...issue.path.map(String)].join('.'),
        message: issue.message,
      }));
      return c.json(
        {
          error: {
            code: 'INVALID_REQUEST',
            message: issues.map((i) => `${i.path}: ${i.message}`).join('; '),
            hint: 'GET /openapi.json describes every request',
            details: { issues },
          },
        },
        400,
      );
    },
  });
  app.use('*', securityHeaders);
  app.use('*', originChecks(loopback));
  if (token !== undefined) app.use('*', requireToken(token));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          clientError(
            'BODY_TOO_LARGE',
            `the request body is over ${MAX_BODY_BYTES / 1024} KiB`,
            'a job request is a few hundred bytes: send the command and its options only',
          ),
          413,
        ),
    }),
  );
  app.route('/', systemRoutes(ctx));
  app.route('/', profileRoutes(ctx));
  app.route('/', datasetRoutes(ctx));
  app.route('/', studyRoutes(ctx));
  app.route('/', campaignRoutes(ctx));
  app.route('/', runRoutes(ctx));
  app.route('/', jobRoutes(ctx));
  app.route('/', eventRoutes(ctx));
  app.route('/', dashboardRoutes());
  app.openAPIRegistry.registerComponent('securitySchemes', 'token', {
    type: 'http',
    scheme: 'bearer',
    description: 'needed when the service is bound to anything but localhost',
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/events',
    summary: 'server-sent events: job, log, trial, study',
    responses: {
      200: {
        description: 'an event stream (text/event-stream), one JSON object per event',
        content: { 'text/event-stream': { schema: z.string() } },
      },
    },
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'tradelab',
      version: ctx.version,
      description:
        'The tradelab service: datasets, profiles and plans, studies and trials, campaigns, and jobs that run tradelab commands.',
    },
    security: [{ token: [] }],
  });
  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json(
          clientError(
            'NOT_FOUND',
            `no route ${c.req.method} ${c.req.path}`,
            'GET /openapi.json lists the routes',
          ),
          404,
        )
      : c.text('not found', 404),
  );
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      const status = error.status;
      const message = error.message === '' ? 'bad request' : error.message;
      return c.json(
        clientError(
          status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST',
          message,
          'send JSON with Content-Type: application/json',
        ),
        status,
      );
    }
    const { status, body } = errorResponse(error);
    if (status >= 500)
      process.stderr.write(`${c.req.method} ${c.req.path}: ${error.stack ?? String(error)}\n`);
    return c.json(body, status);
  });
  return app;
}

/** Waits until `server` listens, or fails with a clear error (port taken, address not here). */
function listening(server: ServerType, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('listening', () => {
      resolve(server.address() as AddressInfo);
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? `port ${port} is taken on ${host}`
          : error.code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine`
            : error.code === 'EACCES'
              ? `no permission to listen on port ${port}`
              : error.message;
      reject(
        new TradelabError('INVALID_ARGUMENT', `cannot serve on ${host}:${port}: ${why}`, {
          hint: 'pick another --port (or stop what holds it), or another --host',
          cause: error,
        }),
      );
    });
  });
}

/**
 * Opens the project's storage and job queue, starts the job pool (sized by the planner) and
 * serves the API and the dashboard.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { project } = options;
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  const root = project.config.projectRoot;
  const { settings } = project.config;
  const plan = await planHere(project);
  const slots = options.slots ?? Math.max(1, plan.plan.workers);
  const token = loopback ? undefined : loadServerToken(root, { rotate: options.newToken === true });
  const storage = await openProjectStorage(project);
  const queue = await openJobQueue(settings.storage, root).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
  const events = new LiveEvents(storage);
  const runner = new JobRunner({
    queue,
    slots,
    command: options.jobCommand,
    cwd: root,
    ...(options.jobEnv === undefined ? {} : { env: options.jobEnv }),
    onEvent: (event) => {
      events.fromRunner(event);
    },
  });
  const ctx: ServiceContext = {
    project,
    root,
    storage,
    queue,
    runner,
    commands: options.commands,
    plan,
    poolSlots: slots,
    events,
    version: tradelabVersion(),
  };
  const app = createServiceApp(ctx, token, loopback);
  const port = options.port ?? 8321;
  const server = serve({ fetch: app.fetch, hostname: host, port });
  let address: AddressInfo;
  try {
    address = await listening(server, host, port);
  } catch (error) {
    events.close();
    await queue.close();
    await storage.close();
    throw error;
  }
  token?.save();
  const interrupted = await runner.start();
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    host,
    port: address.port,
    plan,
    slots,
    storage: storage.url,
    newToken: token?.created,
    tokenFile: token?.file,
    interrupted,
    async close() {
      events.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        // Event streams stay open: end them so close() does not wait for the clients.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await runner.stop();
      await queue.close();
      await storage.close();
    },
  };
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { TradelabError } from '../../core/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';

/*
 * Training runs in the runs directory (`paths.runs`, default runs/): `train ppo` writes
 * manifest.json, `pretrain tcn` run.json, each a report.html when it ends. The names are theirs
 * (agents' MANIFEST_FILE, supervised's RUN_FILE, checked equal in run-routes.test.ts); they are not
 * imported, so the service never loads TensorFlow.js to list runs. A run is named by its folder,
 * which must be one the listing found: no request names a path.
 */

/** The file each kind of run writes, by kind. */
export const RUN_FILES = { ppo: 'manifest.json', tcn: 'run.json' } as const;
const REPORT = 'report.html';

const RunSchema = z
  .object({
    name: z.string().openapi({ example: 'btc-1h' }),
    kind: z.enum(['ppo', 'tcn']).openapi({ description: '`train ppo` or `pretrain tcn`' }),
    status: z.string().openapi({ description: 'running, finished, interrupted, stopped, …' }),
    updatedAt: z.number().openapi({ description: 'when its run file last changed (ms)' }),
    data: z.string().nullable().openapi({ description: 'the data it trained on' }),
    report: z.boolean().openapi({ description: 'it has a report.html' }),
  })
  .openapi('Run');

const NameParam = z.object({
  name: z
    .string()
    .max(200)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'btc-1h' }),
});
const notFound = {
  404: { content: { 'application/json': { schema: ErrorBodySchema } }, description: 'no such run' },
};

interface FoundRun {
  dir: string;
  file: string;
  summary: z.infer<typeof RunSchema>;
}

/** The runs in `runsDir`, by name. */
function findRuns(runsDir: string): Map<string, FoundRun> {
  const runs = new Map<string, FoundRun>();
  if (!existsSync(runsDir)) return runs;
  for (const entry of readdirSync(runsDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(runsDir, entry.name);
    for (const [kind, name] of Object.entries(RUN_FILES) as ['ppo' | 'tcn', string][]) {
      const file = join(dir, name);
      if (!existsSync(file)) continue;
      let parsed: { status?: unknown; data?: { spec?: unknown } } = {};
      try {
        parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
      } catch {
        // A run file being rewritten, or damaged: listed with status "unreadable".
        parsed = { status: 'unreadable' };
      }
      runs.set(entry.name, {
        dir,
        file,
        summary: {
          name: entry.name,
          kind,
          status: typeof parsed.status === 'string' ? parsed.status : 'unknown',
          updatedAt: statSync(file).mtimeMs,
          data: typeof parsed.data?.spec === 'string' ? parsed.data.spec : null,
          report: existsSync(join(dir, REPORT)),
        },
      });
      break;
    }
  }
  return runs;
}

function runNotFound(name: string, runsDir: string): TradelabError {
  return new TradelabError('FILE_NOT_FOUND', `no run "${name}" in ${runsDir}`, {
    hint: 'list the runs: GET /api/runs',
  });
}

/** `/api/runs/…`: training and pretraining runs, their run files and reports. */
export function runRoutes(ctx: ServiceContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const runsDir = ctx.project.config.settings.runsDir;
  const find = (name: string): FoundRun => {
    const run = findRuns(runsDir).get(name);
    if (run === undefined) throw runNotFound(name, runsDir);
    return run;
  };
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs',
      summary: 'training runs (train ppo) and pretraining runs (pretrain tcn), newest first',
      responses: {
        200: {
          content: { 'application/json': { schema: z.array(RunSchema) } },
          description: 'runs',
        },
      },
    }),
    (c) =>
      c.json(
        [...findRuns(runsDir).values()]
          .map((r) => r.summary)
          .sort((a, b) => b.updatedAt - a.updatedAt),
        200,
      ),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{name}',
      summary: "a run's run file: settings, data, progress, results",
      request: { params: NameParam },
      responses: {
        200: {
          content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
          description: 'manifest.json (train ppo) or run.json (pretrain tcn), as written',
        },
        ...notFound,
      },
    }),
    (c) => {
      const run = find(c.req.valid('param').name);
      return c.json(JSON.parse(readFileSync(run.file, 'utf8')) as Record<string, unknown>, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{name}/report.html',
      summary: "a run's HTML report",
      request: { params: NameParam },
      responses: {
        200: { content: { 'text/html': { schema: z.string() } }, description: 'the report' },
        ...notFound,
      },
    }),
    (c) => {
      const run = find(c.req.valid('param').name);
      const report = join(run.dir, REPORT);
      if (!existsSync(report)) throw runNotFound(`${run.summary.name}/${REPORT}`, runsDir);
      return c.html(readFileSync(report, 'utf8'), 200);
    },
  );
  return app;
}

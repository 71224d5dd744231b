import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { outsideProject, TradelabError } from '../../core/index.js';
import { ErrorBodySchema } from '../api-error.js';
import type { ServiceContext } from '../service-context.js';

/*
 * Training runs in the runs directory (`paths.runs`, default runs/): `train ppo` writes
 * manifest.json, `pretrain tcn` run.json, each a report.html when it ends. The names are theirs
 * (agents' MANIFEST_FILE, supervised's RUN_FILE, checked equal in run-routes.test.ts); they are not
 * imported, so the service never loads TensorFlow.js to list runs. A run is named by its folder,
 * which must be one the listing found: no request names a path. A run file or report that is a
 * symlink leading out of the runs directory is not read: the service serves what its runs wrote,
 * not what a link in the project points to.
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

/** Whether `file` exists and stays inside `runsDir` once its symlinks are followed. */
function isRunFile(runsDir: string, file: string): boolean {
  return existsSync(file) && outsideProject(runsDir, file) === undefined;
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
      if (!isRunFile(runsDir, file)) continue;
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
          report: isRunFile(runsDir, join(dir, REPORT)),
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

/**
 * A run's run file as written. One that is not a JSON object (cut short, damaged, edited by hand)
 * is MODEL_INVALID naming the file: it is a stored file the service cannot read, not a bug.
 */
function readRunFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new TradelabError('FILE_ACCESS', `cannot read ${file}: ${(cause as Error).message}`, {
      hint: 'let the service read the runs directory (permissions)',
      cause,
      details: { file },
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new TradelabError('MODEL_INVALID', `${file} is not complete JSON`, {
      hint: 'a run writes this file whole (temp file + rename): one cut short was copied or edited by hand; restore it, or train again into a new --out',
      cause,
      details: { file },
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new TradelabError('MODEL_INVALID', `${file} is not a run file (not a JSON object)`, {
      hint: 'train again into a new --out',
      details: { file },
    });
  }
  return parsed as Record<string, unknown>;
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
    (c) => c.json(readRunFile(find(c.req.valid('param').name).file), 200),
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
      if (!isRunFile(runsDir, report)) throw runNotFound(`${run.summary.name}/${REPORT}`, runsDir);
      return c.html(readFileSync(report, 'utf8'), 200);
    },
  );
  return app;
}
